import ModelKit

/// An editor tracking undo on a title, a count and its items; `cursor` is `.transient` and `note`
/// is not tracked.
struct UndoEditor: Model {
    var node = ModelNode<Self>()
    @Tracked var title = ""
    @Tracked var count = 0
    @Tracked var cursor = 0
    @Tracked var note = ""
    @Tracked var items: [UndoItem] = []
    @Tracked var selected: UndoItem?
    let log: Log

    init(log: Log = Log(), items: [UndoItem] = []) {
        self.log = log
        self.items = items
    }

    func onActivate() {
        node.trackUndo(\.title, \.count, \.items, \.selected)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$count)
        r.track(\.$cursor, options: .transient)
        r.track(\.$note)
        r.track(\.$items)
        r.track(\.$selected)
    }
}

/// A child with a custom id, tracking undo on all its properties but the transient `cursor`.
struct UndoItem: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var name: String
    @Tracked var cursor = 0
    @Tracked var parts: [UndoItem] = []
    let log: Log

    init(id: Int, name: String, parts: [UndoItem] = [], log: Log) {
        self.id = id
        self.name = name
        self.parts = parts
        self.log = log
    }

    func onActivate() {
        log.add("activate \(id)")
        node.trackUndo()
        node.onCancel { log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$cursor, options: .transient)
        r.track(\.$parts)
    }
}

/// A list whose rows are not undo-tracked (removing one tears it down with no snapshot), each row
/// tracking its own `text`.
struct UndoRowList: Model {
    var node = ModelNode<Self>()
    @Tracked var title = ""
    @Tracked var rows: [UndoRow] = []

    func onActivate() { node.trackUndo(\.title) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$rows)
    }
}

struct UndoRow: Model {
    var node = ModelNode<Self>()
    @Tracked var text = ""

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
    }
}

/// Two values always written together, to check that undo is atomic.
struct UndoPair: Model {
    var node = ModelNode<Self>()
    @Tracked var a = 0
    @Tracked var b = 0

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$a)
        r.track(\.$b)
    }
}
