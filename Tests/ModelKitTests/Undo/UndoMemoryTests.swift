@testable import ModelKit
import Testing

/// What undo keeps for removed children is bounded by the stack's limit: a kept copy is released
/// once no entry, on either side, refers to it.
@Suite struct UndoMemoryTests {
    @Test func keptCopiesOfRemovedChildrenAreReleasedWithTheirLastEntry() async {
        let tracker = LifetimeTracker()
        do {
            let list = TokenList().withAnchor { $0.undoStack = ModelUndoStack(limit: 2) }
            for id in 1...6 {
                list.rows.append(TokenRow(id: id, token: tracker.token()))
                list.rows.removeAll()
            }
            // Only the last addition and removal remain: the last row's copy is the one kept.
            #expect(await eventually { tracker.liveCount == 1 })
            list.node.undoStack.undo()
            #expect(list.rows.map(\.id) == [6] && list.rows[0].lifetime == .anchored)

            // A new change clears the redo side and drops the oldest entry: nothing refers to the
            // row's kept copy any more, while the live row holds its own token.
            list.rows.append(TokenRow(id: 7, token: tracker.token()))
            list.title = "seven"
            list.rows.removeAll()
            list.title = "none"
            list.title = "empty"
            #expect(await eventually { tracker.liveCount == 0 })
        }
        #expect(await tracker.allFreed())
    }

    @Test func aChildAddedAndRemovedInOneTransactionIsNotKept() async {
        let tracker = LifetimeTracker()
        do {
            let list = TokenList().withAnchor()
            list.node.transaction {
                list.rows.append(TokenRow(id: 1, token: tracker.token()))
                list.rows.removeAll()
            }
            #expect(!list.node.undoStack.canUndo)
            #expect(keptRevivals(of: list) == 0)
            #expect(await eventually { tracker.liveCount == 0 })
            withExtendedLifetime(list) {}
        }
        #expect(await tracker.allFreed())
    }

    @Test func aRevivedChildKeepsItsEarlierEntriesWhenTheRemovalIsDropped() {
        let list = TokenList(rows: [TokenRow(id: 1, token: LifetimeTracker().token())])
            .withAnchor { $0.undoStack = ModelUndoStack(limit: 3) }
        let stack = list.node.undoStack
        list.rows[0].name = "renamed"
        list.rows.removeAll()
        stack.undo()
        let back = list.rows[0]
        // The removal's entry goes with the redo side; the rename still applies to the row brought back.
        list.title = "new"
        stack.undo()
        stack.undo()
        #expect(back.name == "" && back.lifetime == .anchored)
    }

    @Test func undoAndRedoOfOneRemovalKeepABoundedNumberOfCopies() {
        let log = Log()
        let part = UndoItem(id: 11, name: "wheel", log: log)
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "car", parts: [part], log: log)])
            .withAnchor { $0.undoStack = ModelUndoStack(limit: 5) }
        let stack = editor.node.undoStack
        editor.items[0].parts[0].name = "tyre"
        editor.items = []
        stack.undo()
        stack.redo()
        let kept = keptRevivals(of: editor)
        // Each undo brings the car back as a new model, each redo removes that one.
        for _ in 0..<300 {
            stack.undo()
            stack.redo()
        }
        #expect(keptRevivals(of: editor) == kept, "undo keeps one removed model per entry that names it")
        #expect(kept <= 3)

        // The entries still apply: the removal, then the rename of the part.
        stack.undo()
        #expect(editor.items.first?.parts.first?.name == "tyre")
        stack.undo()
        #expect(editor.items.first?.parts.first?.name == "wheel" && editor.items[0].lifetime == .anchored)
    }

    @Test func aThousandUndoRedoCyclesRestoreTheLatestState() {
        let editor = UndoEditor(items: [UndoItem(id: 1, name: "car", log: Log())])
            .withAnchor { $0.undoStack = ModelUndoStack(limit: 5) }
        let stack = editor.node.undoStack
        editor.items = []
        var stale: [String] = []
        for cycle in 0..<1_200 {
            stack.undo()
            let item = editor.items.first
            if cycle > 0, item?.cursor != cycle - 1, stale.count < 3 {
                stale.append("cycle \(cycle): cursor \(item.map { "\($0.cursor)" } ?? "no item")")
            }
            item?.cursor = cycle                         // transient: no entry, kept by the removal
            stack.redo()
        }
        #expect(stale.isEmpty, "undo brought back an earlier state: \(stale)")
        stack.undo()
        #expect(editor.items.first?.cursor == 1_199 && editor.items[0].lifetime == .anchored)
    }
}

/// The removed models whose copies (or links to the models that brought them back) undo keeps.
private func keptRevivals(of model: some Model) -> Int {
    guard let hierarchy = model.hierarchy else { return 0 }
    return hierarchy.lock.withShortLock { hierarchy.undo?.revivals.count ?? 0 }
}

struct TokenList: Model {
    var node = ModelNode<Self>()
    @Tracked var title = ""
    @Tracked var rows: [TokenRow] = []

    init(rows: [TokenRow] = []) { self.rows = rows }

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$rows)
    }
}

struct TokenRow: Model {
    var node = ModelNode<Self>()
    let id: Int
    let token: LifetimeTracker.Token
    @Tracked var name = ""

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
    }
}
