/// Prints the changes of one model's subtree as they are committed.
final class ChangePrinter: HierarchyHook, @unchecked Sendable {
    // Safety: `root` is immutable; `pending` is a `Protected`.
    private let root: WeakRef<Context>
    private let printer: @Sendable (String) -> Void
    /// Recorded changes, each with the thread that committed it: a commit records its changes and
    /// calls `didCommit` on one thread, which prints those and no other thread's.
    private let pending = Protected<[(thread: UInt, change: ChangeRecord)]>([])

    init(root: Context, printer: @escaping @Sendable (String) -> Void) {
        self.root = WeakRef(root)
        self.printer = printer
    }

    func record(_ change: ChangeRecord) {
        guard let root = root.object else { return }
        // The subtree's changes; printing from the hierarchy's root, every change of the hierarchy,
        // its model dependencies' included (`Settings.theme`), as a Tester records them.
        guard change.context.isSelfOrAncestor(root)
            || (root === root.hierarchy.root && change.context.hierarchy === root.hierarchy)
        else { return }
        let thread = currentThreadID()
        pending.withLock { $0.append((thread, change)) }
    }

    /// Renders and prints after the lock is released: rendering reads the models inside values,
    /// which may belong to another hierarchy. Only this thread's changes: another thread's commit,
    /// recorded since this one unlocked, is printed by that thread before its write returns.
    func didCommit() {
        let thread = currentThreadID()
        let changes = pending.withLock { pending -> [ChangeRecord] in
            var own: [ChangeRecord] = []
            pending.removeAll { entry in
                guard entry.thread == thread else { return false }
                own.append(entry.change)
                return true
            }
            return own
        }
        for change in changes {
            let oldText = ValueDump.render(change.old)
            let newText = ValueDump.render(change.new)
            // A write that shows no difference (a non-`Equatable` value written again, or a slot
            // given new instances of the same children, which render through to the live values):
            // the differences themselves, if any, are changes of their own.
            if oldText == newText { continue }
            printer(ValueDiff.describe(path: change.propertyPath, oldText: oldText, newText: newText))
        }
    }
}

extension Model {
    /// Prints every state change of this model and its descendants until the returned
    /// ``Cancellable`` is cancelled (or the model is removed).
    ///
    /// ```swift
    /// let printing = app._printChanges()
    /// app.counters[0].counter.incrementTapped()
    /// // prints: AppModel.counters[0].counter.count: 0 → 1
    /// printing.cancel()
    /// ```
    ///
    /// - Parameter printer: Receives each change as text; standard output by default. It is called on
    ///   the writing thread before the write returns.
    @discardableResult
    public func _printChanges(
        to printer: @escaping @Sendable (String) -> Void = { print($0) },
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Cancellable {
        guard let context = node.context(for: "_printChanges", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return Cancellable()
        }
        let hook = ChangePrinter(root: context, printer: printer)
        let hierarchy = context.hierarchy
        hierarchy.addHook(hook)
        guard let workID = context.registerWork(
            isTask: false,
            onCancel: { hierarchy.removeHook(hook) },
            location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        ) else {
            hierarchy.removeHook(hook)
            return Cancellable()
        }
        return Cancellable(context: context, workID: workID)
    }

    /// Prints every state change of this model and its descendants for as long as it lives. Call it
    /// on the root before anchoring:
    ///
    /// ```swift
    /// let app = AppModel()._withPrintChanges().withAnchor()
    /// ```
    public func _withPrintChanges(
        to printer: @escaping @Sendable (String) -> Void = { print($0) },
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Self {
        if !node.box.addModifier({ $0.printers.append(printer) }) {
            // Already anchored: print from now on, for the model's lifetime (nothing cancels it).
            _ = _printChanges(to: printer, fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return self
    }
}
