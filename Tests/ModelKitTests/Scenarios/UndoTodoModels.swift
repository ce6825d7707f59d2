import Foundation
import ModelKit

// SwiftModel's TodoList example, ported to ModelKit: a to-do list with undo and redo of its items
// (adding, deleting, moving, renaming, ticking off) but not of the "new item" field being typed, a
// count of completed items folded up from the items (a preference), and a "show completed" switch
// the items read from their list (the environment).

struct UndoTodoShowCompletedKey: ModelEnvironmentKey {
    static let defaultValue = true
}

struct UndoTodoCompletedKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelEnvironmentValues {
    var undoTodoShowCompleted: Bool {
        get { self[UndoTodoShowCompletedKey.self] }
        set { self[UndoTodoShowCompletedKey.self] = newValue }
    }
}

extension ModelPreferenceValues {
    var undoTodoCompleted: Int {
        get { self[UndoTodoCompletedKey.self] }
        set { self[UndoTodoCompletedKey.self] = newValue }
    }
}

struct UndoTodoItem: Model {
    var node = ModelNode<Self>()
    @Tracked var title: String
    @Tracked var isDone: Bool

    init(title: String, isDone: Bool = false) {
        self.title = title
        self.isDone = isDone
    }

    /// Whether the list shows this item: done items only while completed ones are shown.
    var isVisible: Bool { !isDone || node.environment.undoTodoShowCompleted }

    func onActivate() {
        // Each item records its own edits; the list's `trackUndo(\.items)` records adding,
        // removing and moving items only.
        node.trackUndo(\.title, \.isDone)
        node.onChange(of: isDone, initial: true) { _, isDone in
            node.preference.undoTodoCompleted = isDone ? 1 : 0
        }
    }

    func toggleTapped() { isDone.toggle() }

    func renameSubmitted(_ newTitle: String) {
        let trimmed = newTitle.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        title = trimmed
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$isDone)
    }
}

struct UndoTodoList: Model {
    var node = ModelNode<Self>()
    @Tracked var items: [UndoTodoItem]
    @Tracked var newItemTitle = ""

    init(items: [UndoTodoItem] = []) { self.items = items }

    /// The number of items ticked off, folded up from the items.
    var completedCount: Int { node.preference.undoTodoCompleted }

    var showCompleted: Bool {
        get { node.environment.undoTodoShowCompleted }
        nonmutating set { node.environment.undoTodoShowCompleted = newValue }
    }

    var visibleItems: [UndoTodoItem] { items.filter(\.isVisible) }

    var canUndo: Bool { node.undoStack.canUndo }
    var canRedo: Bool { node.undoStack.canRedo }

    func onActivate() {
        node.trackUndo(\.items)
    }

    func addItemTapped() {
        let trimmed = newItemTitle.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        items.append(UndoTodoItem(title: trimmed))
        newItemTitle = ""
    }

    /// The list's swipe to delete, at these offsets.
    func deleteItems(at offsets: Set<Int>) {
        items = items.enumerated().filter { !offsets.contains($0.offset) }.map(\.element)
    }

    /// The list's drag to reorder: the items at `source` go before the item at `destination`.
    func moveItems(from source: Set<Int>, to destination: Int) {
        let moved = source.sorted().map { items[$0] }
        var rest: [UndoTodoItem] = []
        var insertion = 0
        for (offset, item) in items.enumerated() where !source.contains(offset) {
            if offset < destination { insertion += 1 }
            rest.append(item)
        }
        rest.insert(contentsOf: moved, at: insertion)
        items = rest
    }

    func undoTapped() { node.undoStack.undo() }
    func redoTapped() { node.undoStack.redo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$items)
        r.track(\.$newItemTitle)
    }
}
