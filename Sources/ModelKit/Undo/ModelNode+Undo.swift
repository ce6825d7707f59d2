extension ModelNode {
    /// Makes commits that change these properties undoable: each pushes one entry on
    /// ``DependencyValues/undoStack``.
    ///
    /// Call it from `onActivate`. With no key path, every tracked property not registered
    /// `.transient` is tracked. A transaction is one entry; entries of several models tracking
    /// into the same stack interleave in commit order.
    ///
    /// ```swift
    /// func onActivate() { node.trackUndo(\.title, \.items) }   // or node.trackUndo() for all
    /// func undoTapped() { node.undoStack.undo() }
    /// ```
    ///
    /// - Parameter keyPaths: Tracked properties of this model (`\.title`, not `\.$title`).
    /// - Note: Tracking again adds properties. Naming a `.transient` property, a key path that
    ///   reads no tracked property of the model, or one that reads another model's property
    ///   (`\.items[0].name`: each model tracks its own, in its `onActivate`), reports a runtime
    ///   warning (a test failure under a Tester).
    public func trackUndo(
        _ keyPaths: PartialKeyPath<M>...,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = context(for: "trackUndo", fileID: fileID, filePath: filePath, line: line, column: column),
              let model = context.liveModel(M.self)
        else { return }
        let schema = context.schema
        var indices: [Int] = []
        var issues: [ModelIssue] = []
        if keyPaths.isEmpty {
            indices = (0..<schema.count).filter { !schema.isTransient($0) }
        }
        for keyPath in keyPaths {
            let (_, reads) = AccessRecording.recording { _ = model[keyPath: keyPath] }
            let own = reads.filter { $0.context === context }
            if own.isEmpty, let storage = model[keyPath: keyPath] as? any AnyTracked {
                // The `$` form names the property's storage, which reading does not record.
                let name = DeclaredProperties(of: model).names(of: ObjectIdentifier(storage.anyCell)).first ?? "name"
                issues.append(ModelIssue(
                    "\(schema.typeName).node.trackUndo was passed the storage of `\(name)` (`\\.$\(name)`) instead of the property; nothing was tracked for it.",
                    fixes: ["Pass the property itself: `\\.\(name)`."],
                    fileID: fileID, filePath: filePath, line: line, column: column
                ))
            } else if own.isEmpty {
                issues.append(ModelIssue(
                    "\(schema.typeName).node.trackUndo(\(keyPath)) names no tracked property of \(schema.typeName); nothing was tracked for it.",
                    fixes: ["Pass a key path to a property registered in `\(schema.typeName).register` (`\\.title`)."],
                    fileID: fileID, filePath: filePath, line: line, column: column
                ))
            }
            // A key path through a child (`\.items[0].name`) tracks the slot it goes through here,
            // not the child's property: each model tracks its own.
            var others: [String] = []
            var otherType = ""
            for read in reads where read.context !== context {
                if others.isEmpty { otherType = read.context.schema.typeName }
                let name = "\(read.context.schema.typeName).\(read.context.schema.name(read.index))"
                if !others.contains(name) { others.append(name) }
            }
            if !own.isEmpty && !others.isEmpty {
                let tracked = own.map { "\(schema.typeName).\(schema.name($0.index))" }
                issues.append(ModelIssue(
                    "\(schema.typeName).node.trackUndo was passed a key path that reads \(others.joined(separator: ", ")) of another model; only \(tracked.joined(separator: ", ")) was tracked for it.",
                    fixes: [
                        "Call `node.trackUndo()` (or name the property) in the `onActivate` of \(otherType), which tracks it for every \(otherType).",
                        "Pass the property of \(schema.typeName) itself if that is what undo should restore.",
                    ],
                    fileID: fileID, filePath: filePath, line: line, column: column
                ))
            }
            for read in own where !indices.contains(read.index) {
                if schema.isTransient(read.index) {
                    issues.append(ModelIssue(
                        "\(schema.typeName).\(schema.name(read.index)) is registered `.transient`, so undo leaves it out; it was not tracked.",
                        fixes: [
                            "Remove it from `trackUndo`.",
                            "Register it without `.transient` if undo should restore it.",
                        ],
                        fileID: fileID, filePath: filePath, line: line, column: column
                    ))
                } else {
                    indices.append(read.index)
                }
            }
        }
        let stack = self[UndoStackKey.self, fileID: fileID, filePath: filePath, line: line, column: column]
        let attached: Bool = context.hierarchy.withSection {
            guard context.state.isLive, let stackContext = stack.node.box.context,
                  stackContext.hierarchy === context.hierarchy,
                  stack.history.hierarchy == nil || stack.history.hierarchy === context.hierarchy
            else { return false }
            stack.history.hierarchy = context.hierarchy
            context.trackUndo(indices, history: stack.history)
            return true
        }
        if !attached && context.lifetimeIsLive {
            issues.append(ModelIssue(
                "\(schema.typeName).node.trackUndo used an undo stack that belongs to another hierarchy; nothing was tracked.",
                fixes: ["Give each anchored hierarchy its own `ModelUndoStack` (`withAnchor { $0.undoStack = ModelUndoStack() }`)."],
                fileID: fileID, filePath: filePath, line: line, column: column
            ))
        }
        for issue in issues { context.hierarchy.report(issue) }
    }
}

extension Context {
    /// Whether the model is still anchored. Takes the lock.
    fileprivate var lifetimeIsLive: Bool {
        lock.withShortLock { state.isLive }
    }
}
