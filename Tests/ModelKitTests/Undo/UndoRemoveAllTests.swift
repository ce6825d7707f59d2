@testable import ModelKit
import ModelKitTesting
import Testing

/// `ModelUndoStack.removeAll()`: forgetting the history after a change the user should not undo.
@Suite struct UndoRemoveAllTests {
    @Test func removeAllForgetsBothSidesAndClearsTheFlags() {
        let editor = UndoEditor().withAnchor()
        let stack = editor.node.undoStack
        editor.title = "Draft"
        editor.count = 1
        stack.undo()
        #expect(stack.canUndo && stack.canRedo)

        stack.removeAll()
        #expect(!stack.canUndo && !stack.canRedo)
        stack.undo()
        stack.redo()
        #expect(editor.title == "Draft" && editor.count == 0)

        // Recording goes on from there.
        editor.title = "Final"
        stack.undo()
        #expect(editor.title == "Draft" && stack.canRedo && !stack.canUndo)
    }

    @Test func aRefreshFollowedByRemoveAllCannotBeUndone() {
        let list = TokenList(rows: [TokenRow(id: 1, token: LifetimeTracker().token())]).withAnchor()
        let stack = list.node.undoStack
        list.rows[0].name = "edited"
        // The server's rows, with the same id: the live row continues, with the server's name.
        list.node.transaction {
            list.rows = [TokenRow(id: 1, token: LifetimeTracker().token())]
            list.rows[0].name = "from the server"
        }
        stack.removeAll()
        stack.undo()
        #expect(list.rows.map(\.name) == ["from the server"])
        #expect(!stack.canUndo)
    }

    @Test func removeAllReleasesTheCopiesKeptForRemovedChildren() async {
        let tracker = LifetimeTracker()
        do {
            let list = TokenList().withAnchor()
            list.rows.append(TokenRow(id: 1, token: tracker.token()))
            list.rows.removeAll()
            #expect(tracker.liveCount == 1, "the removal's entry keeps the row to bring it back")

            list.node.undoStack.removeAll()
            #expect(await eventually { tracker.liveCount == 0 })
            withExtendedLifetime(list) {}
        }
        #expect(await tracker.allFreed())
    }

    @Test func insideATransactionTheTransactionsOwnEntryIsStillPushed() {
        let editor = UndoEditor().withAnchor()
        let stack = editor.node.undoStack
        editor.title = "Loaded"
        editor.node.transaction {
            editor.count = 5
            stack.removeAll()
        }
        stack.undo()
        #expect(editor.count == 0 && editor.title == "Loaded" && !stack.canUndo)
    }

    @Test func aTesterRecordsTheFlagsAsPrivateChanges() async {
        let (editor, tester) = UndoEditor().andTester()
        editor.title = "Draft"
        await tester.assert(editor.title == "Draft")
        editor.node.undoStack.removeAll()
        await tester.assert(!editor.node.undoStack.canUndo)
        await tester.finish()
    }
}
