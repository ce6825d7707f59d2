/// Keeps a hierarchy alive. Held only by the model value `withAnchor` returns and its copies; when the
/// last of them is released the hierarchy is torn down.
@usableFromInline
final class Anchor: Sendable {
    @usableFromInline let box: NodeBox
    let hierarchy: Hierarchy

    init(box: NodeBox, hierarchy: Hierarchy) {
        self.box = box
        self.hierarchy = hierarchy
    }

    deinit {
        hierarchy.tearDown()
    }
}

extension Hierarchy {
    /// Anchors `model` as the root of this (new) hierarchy and activates it; returns its box.
    func anchorRoot<M: Model>(_ model: M, dependencies: DependencyValues) -> NodeBox {
        let box = model.node.box
        // A new hierarchy, so this is the outermost section. The activation of a root without
        // child slots is kept out of the action list: when the section leaves nothing else, it is
        // performed after the section without allocating one.
        var activation: DeferredActivation?
        beginSection()
        root = makeContext(
            for: model, place: nil, inherited: dependencies.storage, isRoot: true, deferring: true, &activation
        )
        guard let activation else {
            endSection()
            return box
        }
        if hasPendingWork {
            pendingActions.insert(activation.action, at: activation.position)
            endSection()
        } else {
            endSection()
            activation.action.performActivation()
        }
        return box
    }
}

extension Model {
    /// Anchors the model: it becomes the root of a live hierarchy, and it and its children are
    /// activated.
    ///
    /// Only the returned value and its copies keep the hierarchy alive; when the last of them is
    /// released, every model in it is torn down and its tasks cancelled. The original value is the
    /// same model (it reads and writes the live state) but does not keep it alive.
    ///
    /// ```swift
    /// let app = AppModel().withAnchor()
    /// app.addButtonTapped()
    /// ```
    ///
    /// - Note: Capturing the returned value in a task started through it, or in a callback handed
    ///   to a child, keeps the hierarchy alive until that task ends or that child is removed.
    @inlinable
    public func withAnchor(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Self {
        withAnchor(fileID: fileID, filePath: filePath, line: line, column: column) { _ in }
    }

    /// Anchors the model with dependency overrides for the whole hierarchy.
    ///
    /// ```swift
    /// let app = AppModel().withAnchor {
    ///     $0.factClient.fetch = { "\($0) is a good number." }
    /// }
    /// ```
    // Inlinable, so that the copy returned is made to hold the anchor in code specialized for the
    // model's type: unspecialized, updating its `node` looks up `ModelNode<Self>`'s metadata.
    @inlinable
    public func withAnchor(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ dependencies: (inout DependencyValues) -> Void
    ) -> Self {
        var copy = self
        if let anchor = anchorAsRoot(fileID: fileID, filePath: filePath, line: line, column: column, dependencies) {
            copy.node.hold(anchor)
        }
        return copy
    }

    /// This model, as a copy that does not keep its hierarchy alive: what a closure that the
    /// hierarchy owns captures, since `self` may be a value `withAnchor` returned (an observer
    /// holding that value would keep the hierarchy, and so itself, alive).
    @inlinable
    var unanchored: Self {
        guard case .anchoring(let anchor) = node.reference else { return self }
        var copy = self
        copy.node.reference = .plain(anchor.box)
        return copy
    }

    /// Anchors the model as the root of a new hierarchy and returns what keeps it alive; nil (with a
    /// report) when it is anchored already.
    @usableFromInline
    func anchorAsRoot(
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt,
        _ dependencies: (inout DependencyValues) -> Void
    ) -> Anchor? {
        if node.box.context != nil {
            let name = typeName(Self.self)
            let state = lifetime
            let issue = if state == .destructed || state == .frozen {
                ModelIssue(
                    "withAnchor() was called on \(state.describing(name)), which cannot be anchored; it was returned unchanged.",
                    fixes: ["Anchor a new instance: `\(name)(…).withAnchor()`."],
                    fileID: fileID, filePath: filePath, line: line, column: column
                )
            } else {
                ModelIssue(
                    "\(name) is already anchored; withAnchor() returned it unchanged.",
                    fixes: [
                        "Anchor a model once, at the root of its hierarchy.",
                        "To add a model to an existing hierarchy, assign it to a tracked property of a model in it.",
                    ],
                    fileID: fileID, filePath: filePath, line: line, column: column
                )
            }
            reportIssue(issue)
            return nil
        }
        return anchorInNewHierarchy(testing: nil, dependencies)
    }

    /// Anchors the model in a new hierarchy, optionally under a tester.
    package func anchored(
        testing: TestingSupport?, hooks: [any HierarchyHook] = [], _ dependencies: (inout DependencyValues) -> Void
    ) -> Self {
        var copy = self
        copy.node.hold(anchorInNewHierarchy(testing: testing, hooks: hooks, dependencies))
        return copy
    }

    /// Anchors the model as the root of a new hierarchy; returns the anchor that keeps it alive.
    private func anchorInNewHierarchy(
        testing: TestingSupport?, hooks: [any HierarchyHook] = [], _ dependencies: (inout DependencyValues) -> Void
    ) -> Anchor {
        let hierarchy = Hierarchy(testing: testing)
        for hook in hooks { hierarchy.addHook(hook) }
        var values = DependencyValues(hierarchy: hierarchy)
        dependencies(&values)
        return Anchor(box: hierarchy.anchorRoot(self, dependencies: values), hierarchy: hierarchy)
    }

    /// The hierarchy this model lives in, if anchored (for ModelKitTesting).
    package var hierarchy: Hierarchy? {
        node.box.context?.hierarchy
    }

    /// Identifies this model's context (for ModelKitTesting), if anchored.
    package var contextID: ObjectIdentifier? {
        node.box.context.map(ObjectIdentifier.init)
    }
}
