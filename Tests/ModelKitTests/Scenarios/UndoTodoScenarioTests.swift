import ModelKit
import ModelKitTesting
import Testing

// The to-do list of UndoTodoModels.swift under a full-exhaustivity Tester: each edit, undo and redo
// asserted with the stack's `canUndo` and `canRedo`, the completed count and the visible items.

/// A list with three items, the middle one done, all of it asserted.
private func startWithThreeItems() async -> (UndoTodoList, Tester) {
    let (list, tester) = UndoTodoList(items: [
        UndoTodoItem(title: "Buy groceries"),
        UndoTodoItem(title: "Walk the dog", isDone: true),
        UndoTodoItem(title: "Write unit tests"),
    ]).andTester()
    await tester.assert {
        list.items.map(\.title) == ["Buy groceries", "Walk the dog", "Write unit tests"]
        list.completedCount == 1
        !list.canUndo
    }
    return (list, tester)
}

@Suite struct UndoTodoScenarioTests {
    @Test func anAddedItemIsUndoneAndRedone() async {
        let (list, tester) = UndoTodoList().andTester()
        list.newItemTitle = "  Buy milk "
        await tester.assert {
            list.newItemTitle == "  Buy milk "
            !list.canUndo
        }
        list.addItemTapped()
        // The new item contributes 0 to the completed count: a contribution set, to assert.
        await tester.assert {
            list.items.map(\.title) == ["Buy milk"]
            list.newItemTitle == ""
            list.completedCount == 0
            list.canUndo
            !list.canRedo
        }
        list.undoTapped()
        await tester.assert {
            list.items.isEmpty
            !list.canUndo
            list.canRedo
        }
        list.redoTapped()
        await tester.assert {
            list.items.map(\.title) == ["Buy milk"]
            list.completedCount == 0
            list.canUndo
            !list.canRedo
        }
        // Typing is not undone: it was never recorded.
        list.newItemTitle = "draft"
        list.undoTapped()
        await tester.assert {
            list.items.isEmpty
            list.newItemTitle == "draft"
            !list.canUndo
            list.canRedo
        }
        await tester.finish()
    }

    @Test func aNewEditAfterUndoClearsRedo() async {
        let (list, tester) = UndoTodoList().andTester()
        list.newItemTitle = "A"
        list.addItemTapped()
        await tester.assert {
            list.items.map(\.title) == ["A"]
            list.newItemTitle == ""
            list.completedCount == 0
            list.canUndo
        }
        list.undoTapped()
        await tester.assert {
            list.items.isEmpty
            list.newItemTitle == ""
            list.canRedo
        }
        list.newItemTitle = "B"
        list.addItemTapped()
        await tester.assert {
            list.items.map(\.title) == ["B"]
            list.newItemTitle == ""
            list.completedCount == 0
            list.canUndo
            !list.canRedo
        }
        await tester.finish()
    }

    @Test func renamingAndTickingOffAreUndoneInOrder() async {
        let (list, tester) = await startWithThreeItems()
        let first = list.items[0]
        first.renameSubmitted("  ")
        first.renameSubmitted(" Buy bread ")
        first.toggleTapped()
        await tester.assert {
            first.title == "Buy bread"
            first.isDone
            list.completedCount == 2
            list.canUndo
        }
        list.undoTapped()
        await tester.assert {
            !first.isDone
            list.completedCount == 1
            list.canRedo
        }
        list.undoTapped()
        await tester.assert {
            first.title == "Buy groceries"
            !list.canUndo
        }
        await tester.finish()
    }

    @Test func aDeletedItemComesBackLiveWithItsState() async {
        let (list, tester) = await startWithThreeItems()
        let dog = list.items[1]
        list.deleteItems(at: [1])
        await tester.assert {
            list.items.map(\.title) == ["Buy groceries", "Write unit tests"]
            list.completedCount == 0
            list.canUndo
        }
        #expect(dog.lifetime == .destructed)
        list.undoTapped()
        let back = try? await tester.unwrap(list.items.count == 3 ? list.items[1] : nil)
        await tester.assert {
            list.completedCount == 1
            !list.canUndo
            list.canRedo
        }
        #expect(back?.title == "Walk the dog" && back?.isDone == true && back?.lifetime == .anchored)
        // The item brought back records its own edits again.
        back?.toggleTapped()
        await tester.assert {
            back?.isDone == false
            list.completedCount == 0
            list.canUndo
            !list.canRedo
        }
        await tester.finish()
    }

    @Test func movingIsUndone() async {
        let (list, tester) = await startWithThreeItems()
        list.moveItems(from: [2], to: 0)
        await tester.assert {
            list.items.map(\.title) == ["Write unit tests", "Buy groceries", "Walk the dog"]
            list.canUndo
        }
        list.moveItems(from: [0], to: 3)
        await tester.assert(list.items.map(\.title) == ["Buy groceries", "Walk the dog", "Write unit tests"])
        list.undoTapped()
        list.undoTapped()
        await tester.assert {
            list.items.map(\.title) == ["Buy groceries", "Walk the dog", "Write unit tests"]
            !list.canUndo
            list.canRedo
        }
        await tester.finish()
    }

    @Test func hidingCompletedItemsReachesEveryItem() async {
        let (list, tester) = await startWithThreeItems()
        list.showCompleted = false
        await tester.assert {
            !list.showCompleted
            list.visibleItems.map(\.title) == ["Buy groceries", "Write unit tests"]
            !list.items[1].isVisible
        }
        list.items[0].toggleTapped()
        await tester.assert {
            list.items[0].isDone
            list.completedCount == 2
            list.visibleItems.map(\.title) == ["Write unit tests"]
            list.canUndo
        }
        list.showCompleted = true
        await tester.assert {
            list.showCompleted
            list.visibleItems.count == 3
        }
        await tester.finish()
    }

    // MARK: - Without a Tester

    @Test func theUndoStackOfTheListIsItsOwnWhenOverridden() {
        let stack = ModelUndoStack(limit: 1)
        let list = UndoTodoList().withAnchor { $0.undoStack = stack }
        list.newItemTitle = "A"
        list.addItemTapped()
        list.newItemTitle = "B"
        list.addItemTapped()
        #expect(stack.canUndo)
        stack.undo()
        #expect(list.items.map(\.title) == ["A"])
        #expect(!stack.canUndo && stack.canRedo)
    }

    @Test func theCompletedCountFollowsItemsAddedAndRemoved() {
        let list = UndoTodoList().withAnchor()
        list.items = [UndoTodoItem(title: "A", isDone: true), UndoTodoItem(title: "B", isDone: true)]
        #expect(list.completedCount == 2)
        list.items.removeFirst()
        #expect(list.completedCount == 1)
    }
}
