import ModelKit
import ModelKitTesting
import Observation
import Testing

/// `node.trackUndo`, `node.undoStack` (API.md section 12).
@Suite struct UndoTests {
    @Test func undoRestoresAWriteAndRedoReappliesIt() {
        let editor = UndoEditor().withAnchor()
        let stack = editor.node.undoStack
        #expect(!stack.canUndo && !stack.canRedo)
        editor.title = "Draft"
        editor.count += 1
        #expect(stack.canUndo && !stack.canRedo)
        stack.undo()
        #expect(editor.title == "Draft" && editor.count == 0)
        #expect(stack.canUndo && stack.canRedo)
        stack.undo()
        #expect(editor.title == "" && editor.count == 0)
        #expect(!stack.canUndo && stack.canRedo)
        stack.undo()
        #expect(editor.title == "")
        stack.redo()
        stack.redo()
        #expect(editor.title == "Draft" && editor.count == 1)
        #expect(stack.canUndo && !stack.canRedo)
    }

    @Test func aTransactionIsOneEntryRestoringItsFirstValues() {
        let editor = UndoEditor().withAnchor()
        editor.title = "A"
        editor.node.transaction {
            editor.title = "B"
            editor.count = 1
            editor.title = "C"
        }
        editor.node.undoStack.undo()
        #expect(editor.title == "A" && editor.count == 0)
        editor.node.undoStack.redo()
        #expect(editor.title == "C" && editor.count == 1)
    }

    @Test func aTransactionEndingWhereItBeganIsNoEntry() {
        let editor = UndoEditor().withAnchor()
        editor.title = "A"
        editor.node.transaction {
            editor.title = "B"
            editor.title = "A"
        }
        editor.node.undoStack.undo()
        #expect(editor.title == "")
    }

    @Test func aWriteAfterUndoInOneTransactionIsANewEntryAndClearsRedo() {
        let editor = UndoEditor().withAnchor()
        let stack = editor.node.undoStack
        editor.title = "a"
        editor.node.transaction {
            stack.undo()              // "a" → ""
            editor.title = "b"        // a new change of the restored property
            editor.count = 1          // and of another one
        }
        #expect(editor.title == "b" && editor.count == 1)
        #expect(stack.canUndo && !stack.canRedo)
        stack.redo()
        #expect(editor.title == "b", "nothing to redo")
        stack.undo()
        #expect(editor.title == "" && editor.count == 0, "back to what the undo restored")
        #expect(!stack.canUndo)
    }

    @Test func aWriteToAChildBroughtBackInTheSameTransactionIsRecorded() {
        let log = Log()
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "final", log: log)]).withAnchor()
        let stack = editor.node.undoStack
        editor.items = []
        editor.node.transaction {
            stack.undo()                      // the item comes back; its `onActivate` runs after
            editor.items[0].name = "renamed"  // a new change of the child brought back
        }
        #expect(stack.canUndo && !stack.canRedo, "the rename is an entry, and cleared redo")
        stack.undo()
        #expect(editor.items.map(\.name) == ["final"])
        stack.redo()
        #expect(editor.items.map(\.name) == ["renamed"])
    }

    @Test func aWriteBeforeUndoInOneTransactionIsRecordedUnlessTheRestoreOverwroteIt() {
        let editor = UndoEditor().withAnchor()
        let stack = editor.node.undoStack
        editor.title = "a"
        editor.node.transaction {
            editor.count = 1          // kept: recorded
            editor.title = "b"        // overwritten by the restore: nothing to record
            stack.undo()              // title back to ""
        }
        #expect(editor.title == "" && editor.count == 1)
        #expect(stack.canUndo && !stack.canRedo, "the write of count cleared redo")
        stack.undo()
        #expect(editor.count == 0 && editor.title == "")
    }

    @Test func aNewChangeClearsRedo() {
        let editor = UndoEditor().withAnchor()
        let stack = editor.node.undoStack
        editor.title = "A"
        editor.title = "B"
        stack.undo()
        #expect(stack.canRedo)
        editor.count = 5
        #expect(!stack.canRedo)
        stack.redo()
        #expect(editor.title == "A" && editor.count == 5)
        stack.undo()
        #expect(editor.title == "A" && editor.count == 0)
    }

    @Test func untrackedAndTransientPropertiesAreNotRecorded() {
        let editor = UndoEditor().withAnchor()
        editor.title = "A"
        editor.note = "n"
        editor.cursor = 3
        editor.node.undoStack.undo()
        #expect(editor.title == "" && editor.note == "n" && editor.cursor == 3)
        #expect(!editor.node.undoStack.canUndo)
    }

    @Test func restoringIsNotRecorded() {
        let editor = UndoEditor().withAnchor()
        editor.title = "A"
        editor.node.undoStack.undo()
        editor.node.undoStack.redo()
        editor.node.undoStack.undo()
        #expect(editor.title == "")
        #expect(!editor.node.undoStack.canUndo)
    }

    @Test func aWriteAndATouchOfOnePropertyInOneTransactionAreUndoable() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        editor.node.transaction {
            editor.count = 5
            editor.node.touch(\.count)
        }
        editor.node.transaction {
            editor.node.touch(\.title)
            editor.title = "A"
        }
        editor.items = [UndoItem(id: 1, name: "a", log: log)]
        editor.node.transaction {
            editor.items = []
            editor.node.touch(\.items)
        }
        editor.node.undoStack.undo()
        #expect(editor.items.map(\.name) == ["a"] && editor.items.first?.lifetime == .anchored)
        editor.node.undoStack.undo()
        editor.node.undoStack.undo()
        #expect(editor.title == "")
        editor.node.undoStack.undo()
        #expect(editor.count == 0)
        #expect(!editor.node.undoStack.canUndo)
    }

    @Test func aTouchAloneIsNoEntry() {
        let editor = UndoEditor().withAnchor()
        editor.node.touch(\.count)
        editor.node.transaction { editor.node.touch(\.title) }
        #expect(!editor.node.undoStack.canUndo)
    }

    @Test func theLimitDropsTheOldestEntries() {
        let editor = UndoEditor().withAnchor { $0.undoStack = ModelUndoStack(limit: 2) }
        #expect(editor.node.undoStack.limit == 2)
        for count in 1...5 { editor.count = count }
        editor.node.undoStack.undo()
        editor.node.undoStack.undo()
        editor.node.undoStack.undo()
        #expect(editor.count == 3)
        #expect(!editor.node.undoStack.canUndo)
    }

    @Test func entriesOfSeveralModelsInterleaveInCommitOrder() {
        let log = Log()
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "one", log: log)]).withAnchor()
        let item = editor.items[0]
        editor.title = "T"
        item.name = "uno"
        editor.count = 2
        let stack = editor.node.undoStack
        stack.undo()
        #expect(editor.count == 0 && item.name == "uno" && editor.title == "T")
        stack.undo()
        #expect(item.name == "one" && editor.title == "T")
        stack.undo()
        #expect(editor.title == "")
    }

    @Test func canUndoIsObservable() {
        let editor = UndoEditor().withAnchor()
        let stack = editor.node.undoStack
        let changed = Locked(false)
        withObservationTracking {
            _ = stack.canUndo
        } onChange: {
            changed.withLock { $0 = true }
        }
        editor.title = "A"
        #expect(changed.value)
    }

    @Test func undoIsAtomicForOtherThreads() async {
        let pair = UndoPair().withAnchor()
        for value in 1...20 {
            pair.node.transaction {
                pair.a = value
                pair.b = value
            }
        }
        let stack = pair.node.undoStack
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for round in 0..<200 {
                    for _ in 0..<20 { if round % 2 == 0 { stack.undo() } else { stack.redo() } }
                }
                return true
            }
            group.addTask {
                var consistent = true
                for _ in 0..<4_000 {
                    let copy = pair.frozenCopy
                    if copy.a != copy.b { consistent = false }
                }
                return consistent
            }
            for await result in group { #expect(result) }
        }
    }

    @Test func restoresAreChangesATesterAsserts() async {
        let (editor, tester) = UndoEditor().andTester()
        editor.title = "A"
        await tester.assert(editor.title == "A")
        editor.node.undoStack.undo()
        await tester.assert(editor.title == "")
        editor.node.undoStack.redo()
        await tester.assert {
            editor.title == "A"
            editor.node.undoStack.canUndo
        }
        await tester.finish()
    }
}

extension ReportedIssueTests {
    @Suite struct UndoLimitMisuse {
        @Test func aNegativeLimitIsReportedAndKeepsNothing() async {
            await IssueCapture.run(matching: "ModelUndoStack(limit: -1)") { capture in
                let editor = UndoEditor().withAnchor { $0.undoStack = ModelUndoStack(limit: -1) }
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.contains("uses 0") == true)
                #expect(editor.node.undoStack.limit == 0)
                editor.count = 1
                #expect(!editor.node.undoStack.canUndo)
            }
        }
    }
}
