/// The undo stack of a hierarchy: what `undo()` and `redo()` of an editor act on.
///
/// Models choose what undo covers with ``ModelNode/trackUndo(_:fileID:filePath:line:column:)``;
/// each commit (a write, or a whole transaction) that changes those properties pushes one entry,
/// across all the models of the hierarchy that record into the stack, in commit order. The stack is
/// the built-in dependency ``DependencyValues/undoStack``: one per hierarchy unless overridden.
///
/// ```swift
/// struct Editor: Model {
///     var node = ModelNode<Self>()
///     @Tracked var title = ""
///     func onActivate() { node.trackUndo(\.title) }
///     func undoTapped() { node.undoStack.undo() }
///     func redoTapped() { node.undoStack.redo() }
///     var canUndo: Bool { node.undoStack.canUndo }
///     static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$title) }
/// }
/// ```
///
/// `canUndo` and `canRedo` are tracked like any model state (Observation, `observe`, `onChange`),
/// registered `.private`: a Tester records their changes but does not require them to be asserted.
/// See Documentation/Undo.md.
///
/// - Note: Safe from any thread. `undo()` and `redo()` apply a whole entry atomically.
public struct ModelUndoStack: Model {
    public var node = ModelNode<Self>()
    /// Whether ``undo()`` has an entry to undo.
    @Tracked public private(set) var canUndo = false
    /// Whether ``redo()`` has an entry to redo.
    @Tracked public private(set) var canRedo = false
    let history: UndoHistory

    /// A stack keeping at most `limit` entries: pushing more drops the oldest.
    ///
    /// ```swift
    /// let editor = Editor().withAnchor { $0.undoStack = ModelUndoStack(limit: 20) }
    /// ```
    ///
    /// - Parameter limit: The most entries kept (100 by default). A negative limit is reported
    ///   and treated as 0 (a stack that keeps nothing).
    public init(limit: Int = 100) {
        if limit < 0 {
            reportIssue(ModelIssue(
                "ModelUndoStack(limit: \(limit)): a limit below 0 keeps no entries; the stack uses 0.",
                fixes: ["Pass the most entries to keep, 0 or more (100 by default)."]))
        }
        history = UndoHistory(limit: max(limit, 0))
        history.flagCells = (_canUndo.cell, _canRedo.cell)
    }

    /// The most entries the stack keeps.
    public var limit: Int { history.limit }

    /// Restores the values the newest entry changed, and makes it redoable.
    ///
    /// A child model the entry removed comes back live (anchored and activated) with the state it
    /// had; a model torn down since is skipped. Restoring is not recorded as a new entry.
    ///
    /// A child held in a custom ``ModelContainer`` cannot come back: undo puts the destructed
    /// instance back and reports a runtime warning (a test failure under a Tester) naming the
    /// model type and the property. See Documentation/Undo.md.
    ///
    /// ```swift
    /// editor.title = "Draft"
    /// editor.node.undoStack.undo()   // editor.title == ""
    /// ```
    ///
    /// - Note: Atomic: another thread sees all of the entry's values restored or none.
    public func undo(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = node.context(for: "undo()", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return }
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        history.undo(in: context.hierarchy, location: location)
    }

    /// Re-applies the newest undone entry, and makes it undoable again.
    ///
    /// ```swift
    /// editor.node.undoStack.undo()
    /// editor.node.undoStack.redo()   // editor.title == "Draft" again
    /// ```
    ///
    /// - Note: Atomic, like ``undo()``. A new change clears the entries to redo.
    public func redo(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = node.context(for: "redo()", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return }
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        history.redo(in: context.hierarchy, location: location)
    }

    /// Forgets every entry, to undo and to redo: `canUndo` and `canRedo` become false, and the
    /// copies kept to bring removed children back are released.
    ///
    /// For a change the user should not undo past: a document just loaded, or a server refresh
    /// that replaces what was edited.
    ///
    /// ```swift
    /// editor.node.transaction { editor.items = fetched }   // pushes an entry, like any commit
    /// editor.node.undoStack.removeAll()                     // … which the user cannot undo
    /// ```
    ///
    /// - Note: Inside a transaction it forgets the entries pushed so far; the transaction's own
    ///   entry is pushed when it ends.
    public func removeAll(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = node.context(for: "removeAll()", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return }
        history.clear(in: context.hierarchy)
    }

    public static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$canUndo, options: .private)
        r.track(\.$canRedo, options: .private)
    }
}

enum UndoStackKey: DependencyKey {
    static var liveValue: ModelUndoStack { ModelUndoStack() }
    static var testValue: ModelUndoStack { ModelUndoStack() }
}

extension DependencyValues {
    /// The undo stack models record into with ``ModelNode/trackUndo(_:fileID:filePath:line:column:)``:
    /// one ``ModelUndoStack`` per hierarchy (anchored into it on first use) unless overridden.
    ///
    /// ```swift
    /// let editor = Editor().withAnchor { $0.undoStack = ModelUndoStack(limit: 20) }
    /// ```
    public var undoStack: ModelUndoStack {
        get { self[UndoStackKey.self] }
        set { self[UndoStackKey.self] = newValue }
    }
}
