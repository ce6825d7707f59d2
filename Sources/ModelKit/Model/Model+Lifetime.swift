extension Model {
    /// Where the model is in its life: initial, anchored, destructed or frozen.
    ///
    /// ```swift
    /// let row = app.counters[0]
    /// row.removeButtonTapped()
    /// assert(row.lifetime == .destructed)
    /// ```
    public var lifetime: ModelLifetime {
        let box = node.box
        guard let context = box.context else { return .initial }
        // Every instance continued by a newer one with the same id shares its context.
        return context.lock.withShortLock { context.state.lifetime }
    }

    /// Sets dependencies for this model and its descendants, before it joins a hierarchy.
    ///
    /// ```swift
    /// let detail = StandupDetail(standup: standup).withDependencies {
    ///     $0.speechClient = .denied
    /// }
    /// app.path.append(.detail(detail))
    /// ```
    ///
    /// - Note: Call it on an initial model. On an anchored model it reports a runtime warning and
    ///   returns the model unchanged.
    public func withDependencies(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ body: @escaping @Sendable (inout DependencyValues) -> Void
    ) -> Self {
        if !node.box.addModifier({ $0.dependencies.append(body) }) {
            reportAnchoredModifier("withDependencies", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return self
    }

    /// Runs `body` with the model right after its `onActivate`, once it joins a hierarchy.
    ///
    /// Useful in tests and previews to put a model in a state that needs its dependencies:
    ///
    /// ```swift
    /// let list = StandupsList().withActivation { list in
    ///     list.destination = list.addDestination(for: Standup(id: Standup.ID()))
    /// }
    /// ```
    public func withActivation(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ body: @escaping @Sendable (Self) -> Void
    ) -> Self {
        if !node.box.addModifier({ $0.activations.append { body($0 as! Self) } }) {
            reportAnchoredModifier("withActivation", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return self
    }

    func reportAnchoredModifier(
        _ name: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) {
        let model = typeName(Self.self)
        reportIssue(ModelIssue(
            "\(name) was called on a \(model) that is already anchored; it has no effect.",
            fixes: ["Call \(name) on the new \(model) before adding it to a hierarchy or anchoring it."],
            fileID: fileID, filePath: filePath, line: line, column: column
        ))
    }
}
