import ModelKit
import ModelKitTesting
import Testing

/// Undo across child models: removed children come back live, same-id continuity, shared models,
/// models torn down while entries refer to them (API.md section 12).
@Suite struct UndoChildrenTests {
    @Test func aRemovedChildComesBackLiveWithItsState() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        let part = UndoItem(id: 11, name: "wheel", log: log)
        editor.items.append(UndoItem(id: 1, name: "car", parts: [part], log: log))
        let item = editor.items[0]
        item.name = "red car"
        editor.items.removeAll()
        #expect(item.lifetime == .destructed)
        #expect(log.count(of: "cancel 1") == 1)

        editor.node.undoStack.undo()
        let back = try! #require(editor.items.first)
        #expect(back.lifetime == .anchored)
        #expect(back.id == 1 && back.name == "red car")
        #expect(back.parts.map(\.name) == ["wheel"] && back.parts[0].lifetime == .anchored)
        #expect(log.count(of: "activate 1") == 2 && log.count(of: "activate 11") == 2)

        // Its own entries apply to it again: the rename before the removal is undone on the live child.
        editor.node.undoStack.undo()
        #expect(back.name == "car")
        back.parts[0].name = "tyre"
        editor.node.undoStack.undo()
        #expect(back.parts[0].name == "wheel")
    }

    @Test func aRefreshWrittenAsRemoveAllThenAppendIsUndoneOnTheContinuedChild() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        editor.items = [UndoItem(id: 1, name: "car", log: log)]
        let item = editor.items[0]
        editor.node.transaction {
            editor.items.removeAll()
            editor.items.append(UndoItem(id: 1, name: "red car", log: log))
        }
        #expect(item.lifetime == .anchored && item.name == "red car")
        #expect(log.count(of: "activate 1") == 1 && log.count(of: "cancel 1") == 0)

        editor.node.undoStack.undo()
        #expect(item.lifetime == .anchored && item.name == "car", "one entry, applied to the live child")
        editor.node.undoStack.redo()
        #expect(item.name == "red car")
        #expect(log.count(of: "activate 1") == 1 && log.count(of: "cancel 1") == 0)
    }

    @Test func writingASlotItsOwnChildrenPushesNoEntry() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        editor.items = [UndoItem(id: 1, name: "car", log: log)]
        let stack = editor.node.undoStack
        stack.undo()
        stack.redo()
        #expect(stack.canUndo && !stack.canRedo)
        editor.items = editor.items
        editor.items = [UndoItem(id: 1, name: "car", log: log)]
        // The only entry is still the addition.
        stack.undo()
        #expect(editor.items.isEmpty && !stack.canUndo)
    }

    @Test func aTransactionThatAddsAndRemovesAChildPushesNoEntry() {
        let log = Log()
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "car", log: log)]).withAnchor()
        let stack = editor.node.undoStack
        editor.title = "T"
        editor.node.transaction {
            editor.items.append(UndoItem(id: 2, name: "bike", log: log))
            editor.items.removeLast()
        }
        editor.node.transaction {
            editor.selected = UndoItem(id: 3, name: "boat", log: log)
            editor.selected = nil
        }
        // A new instance continuing the child (same id, same values) leaves the slot as it was too.
        editor.node.transaction {
            editor.items = [UndoItem(id: 1, name: "car", log: log), UndoItem(id: 4, name: "van", log: log)]
            editor.items.removeLast()
        }
        stack.undo()
        #expect(editor.title == "")
        #expect(editor.items.map(\.id) == [1] && editor.items[0].lifetime == .anchored)
        #expect(!stack.canUndo)

        // A slot left holding other children, or the same ones in another order, did change.
        editor.items.append(UndoItem(id: 5, name: "cart", log: log))
        editor.node.transaction {
            editor.items.append(UndoItem(id: 6, name: "tram", log: log))
            editor.items = [editor.items[1], editor.items[0]]
        }
        stack.undo()
        #expect(editor.items.map(\.id) == [1, 5])
    }

    @Test func undoingATransactionThatEditedAChildThenRemovedItRestoresTheEdit() {
        let log = Log()
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "car", log: log), UndoItem(id: 2, name: "bike", log: log)])
            .withAnchor()
        let stack = editor.node.undoStack
        let car = editor.items[0]
        editor.node.transaction {
            editor.items.append(UndoItem(id: 3, name: "van", log: log))
            car.name = "red car"
            editor.items.remove(at: 0)
        }
        stack.undo()
        #expect(editor.items.map(\.id) == [1, 2])
        #expect(editor.items[0].name == "car" && editor.items[0].lifetime == .anchored)
        stack.redo()
        #expect(editor.items.map(\.id) == [2, 3])
        stack.undo()
        #expect(editor.items.map(\.name) == ["car", "bike"])
    }

    @Test func undoingATransactionThatRemovedAChildThenEditedItRestoresTheEdits() {
        let log = Log()
        let part = UndoItem(id: 11, name: "wheel", log: log)
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "car", parts: [part], log: log)]).withAnchor()
        let stack = editor.node.undoStack
        let car = editor.items[0]
        editor.node.transaction {
            editor.items = []
            car.parts = []          // the car is torn down at the end of the transaction
            car.name = "scrap"
        }
        stack.undo()
        let back = try! #require(editor.items.first)
        #expect(back.name == "car" && back.lifetime == .anchored)
        #expect(back.parts.map(\.name) == ["wheel"] && back.parts[0].lifetime == .anchored)
        stack.redo()
        #expect(editor.items.isEmpty)
        stack.undo()
        #expect(editor.items.first?.name == "car" && editor.items.first?.parts.map(\.id) == [11])
    }

    @Test func aChildPutBackAsAnInstanceContinuedSinceComesBackWithItsLatestState() {
        let log = Log()
        let wheel = UndoItem(id: 11, name: "wheel", log: log)
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "car", parts: [wheel], log: log)]).withAnchor()
        let stack = editor.node.undoStack
        editor.items[0].parts.append(UndoItem(id: 12, name: "door", log: log))
        // Same ids: the parts continue, and `wheel` forwards to the new instance's storage.
        editor.items[0].parts = [UndoItem(id: 11, name: "wheel", log: log), UndoItem(id: 12, name: "door", log: log)]
        stack.undo()                                 // the parts are [wheel] again: the earlier instance
        editor.items[0].parts[0].name = "tyre"
        editor.items[0].parts[0].cursor = 3          // transient: kept by the removal's copy only
        editor.items = []
        stack.undo()
        let part = try! #require(editor.items.first?.parts.first)
        #expect(part.name == "tyre" && part.cursor == 3 && part.lifetime == .anchored)
        stack.undo()
        #expect(editor.items.first?.parts.first?.name == "wheel")
    }

    @Test func aRevivedChildIsSetUpAsTheRemovedOneWasAnchored() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        let item = UndoItem(id: 1, name: "car", log: log)
            .withActivation { item in item.log.add("set up \(item.id)") }
            .withDependencies { $0[RevivalLimitKey.self] = 7 }
        editor.items = [item]
        #expect(editor.items[0].node[RevivalLimitKey.self] == 7)
        editor.items = []
        editor.node.undoStack.undo()
        let back = try! #require(editor.items.first)
        #expect(log.count(of: "set up 1") == 2, "its `withActivation` ran again")
        #expect(back.node[RevivalLimitKey.self] == 7, "its dependency override came back")
        // Undone twice: removed, and brought back from a copy of the copy.
        editor.node.undoStack.redo()
        editor.node.undoStack.undo()
        #expect(log.count(of: "set up 1") == 3)
        #expect(editor.items.first?.node[RevivalLimitKey.self] == 7)
    }

    @Test func aRevivedChildWithItsOwnUndoStackComesBackWithThatStack() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        editor.items = [UndoItem(id: 1, name: "draft", log: log).withDependencies { $0.undoStack = ModelUndoStack() }]
        editor.items[0].name = "final"
        let ownStack = editor.items[0].node.undoStack
        editor.items = []
        editor.node.undoStack.undo()
        let back = try! #require(editor.items.first)
        #expect(back.name == "final" && back.lifetime == .anchored)
        // The same dependency values, not new ones from its `withDependencies` run again: its stack
        // still holds the rename, which applies to the child brought back.
        #expect(back.node.undoStack.canUndo)
        back.node.undoStack.undo()
        #expect(back.name == "draft")
        #expect(!ownStack.canUndo && ownStack.canRedo)
        #expect(editor.node.undoStack.canRedo, "the editor's stack keeps its own entries")
    }

    @Test func editsOfARemovedChildsOwnChildrenApplyToTheirCopies() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        editor.items.append(UndoItem(id: 1, name: "car", parts: [UndoItem(id: 11, name: "wheel", log: log)], log: log))
        editor.items[0].parts[0].name = "tyre"
        editor.items = []
        let stack = editor.node.undoStack
        stack.undo()
        let part = editor.items[0].parts[0]
        #expect(part.name == "tyre" && part.lifetime == .anchored)
        stack.undo()                                    // the rename before the removal
        #expect(part.name == "wheel" && editor.items.count == 1)
        // Removed and brought back twice: the rename still finds the part's latest copy.
        stack.redo()
        stack.redo()
        stack.undo()
        stack.undo()
        #expect(editor.items.first?.parts.first?.name == "wheel" && editor.items.count == 1)
        stack.undo()
        #expect(editor.items.isEmpty)
    }

    @Test func redoRemovesTheRevivedChildAndUndoBringsItBackAgain() {
        let log = Log()
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "one", log: log)]).withAnchor()
        editor.items = []
        let stack = editor.node.undoStack
        stack.undo()
        #expect(editor.items.map(\.name) == ["one"])
        stack.redo()
        #expect(editor.items.isEmpty)
        stack.undo()
        #expect(editor.items.map(\.name) == ["one"] && editor.items[0].lifetime == .anchored)
        #expect(log.count(of: "activate 1") == 3)
    }

    @Test func anOptionalChildComesBack() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        editor.selected = UndoItem(id: 7, name: "seven", log: log)
        editor.selected?.name = "sieben"
        editor.selected = nil
        editor.node.undoStack.undo()
        #expect(editor.selected?.name == "sieben" && editor.selected?.lifetime == .anchored)
    }

    @Test func restoringAnArrayHoldingALiveChildContinuesIt() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        let first = UndoItem(id: 1, name: "draft", log: log)
        editor.items = [first]
        editor.items = [UndoItem(id: 1, name: "final", log: log)]   // continues `first`
        #expect(first.name == "final")
        editor.node.undoStack.undo()
        #expect(editor.items.map(\.name) == ["draft"])
        #expect(first.lifetime == .anchored && first.name == "draft")
        #expect(log.count(of: "activate 1") == 1 && log.count(of: "cancel 1") == 0)
        editor.node.undoStack.redo()
        #expect(first.name == "final")
    }

    @Test func undoingAnAdditionRemovesTheChildAndRedoBringsItBack() {
        let log = Log()
        let editor = UndoEditor(log: log, items: [UndoItem(id: 1, name: "old", log: log)]).withAnchor()
        editor.items = []
        editor.items = [UndoItem(id: 1, name: "new", log: log)]
        editor.node.undoStack.undo()
        #expect(editor.items.isEmpty)
        editor.node.undoStack.undo()
        #expect(editor.items.map(\.name) == ["old"] && editor.items[0].lifetime == .anchored)
        editor.node.undoStack.redo()
        editor.node.undoStack.redo()
        #expect(editor.items.map(\.name) == ["new"] && editor.items[0].lifetime == .anchored)
    }

    @Test func aSharedChildStaysLiveAndIsSharedAgain() {
        let log = Log()
        let shared = UndoItem(id: 5, name: "shared", log: log)
        let editor = UndoEditor(log: log, items: [shared]).withAnchor()
        editor.selected = editor.items[0]
        editor.items = []
        #expect(shared.lifetime == .anchored)
        editor.node.undoStack.undo()
        #expect(editor.items.first?.lifetime == .anchored)
        editor.items[0].name = "both"
        #expect(editor.selected?.name == "both")
        #expect(log.count(of: "activate 5") == 1)
    }

    @Test func aSharedModelUnderARemovedChildStaysLiveAndIsSharedAgain() {
        let log = Log()
        let shared = UndoItem(id: 5, name: "shared", log: log)
        let holder = UndoItem(id: 1, name: "holder", parts: [shared], log: log)
        let editor = UndoEditor(log: log, items: [holder]).withAnchor()
        editor.selected = editor.items[0].parts[0]
        editor.items = []                   // `holder` goes; `shared` lives on as `selected`
        #expect(shared.lifetime == .anchored)
        editor.node.undoStack.undo()
        let part = editor.items.first?.parts.first
        #expect(part?.lifetime == .anchored)
        #expect(part?.node.isUniquelyReferenced == false)
        part?.name = "both"
        #expect(editor.selected?.name == "both")
        #expect(shared.name == "both")
        #expect(log.count(of: "activate 5") == 1)
        #expect(log.count(of: "activate 1") == 2)
    }

    @Test func entriesOfATornDownModelAreSkipped() {
        let list = UndoRowList(rows: [UndoRow()]).withAnchor()
        let row = list.rows[0]
        list.title = "T"
        row.text = "a"
        row.text = "b"
        list.rows = []           // untracked slot: the row is torn down for good
        #expect(row.lifetime == .destructed)
        let stack = list.node.undoStack
        stack.undo()             // the row's entries are skipped
        #expect(list.title == "")
        #expect(!stack.canUndo)
        stack.redo()
        #expect(list.title == "T" && !stack.canRedo)
    }

    @Test func canUndoTurnsFalseWhenEveryEntryLeftBelongsToAModelTornDownForGood() {
        let list = UndoRowList(rows: [UndoRow()]).withAnchor()
        let stack = list.node.undoStack
        list.rows[0].text = "a"
        #expect(stack.canUndo)
        let canUndo = Locked<[Bool]>([])
        stack.node.onChange(of: \.canUndo) { _, new in canUndo.withLock { $0.append(new) } }
        list.rows = []           // untracked slot: the row and its entry are gone for good
        #expect(!stack.canUndo)
        #expect(canUndo.value == [false])
        list.title = "T"
        #expect(stack.canUndo)
    }

    @Test func aRevivedChildsRestoresAreChangesATesterAsserts() async {
        let log = Log()
        let (editor, tester) = UndoEditor(log: log, items: [UndoItem(id: 1, name: "one", log: log)]).andTester()
        editor.items = []
        await tester.assert(editor.items.isEmpty)
        editor.node.undoStack.undo()
        await tester.assert(editor.items.map(\.name) == ["one"])
        await tester.finish()
    }
}

extension ReportedIssueTests {
    @Suite struct UndoMisuseTests {
        @Test func trackingATransientPropertyNamesIt() async {
            await IssueCapture.run(matching: "UndoCursorModel") { capture in
                let model = UndoCursorModel().withAnchor()
                #expect(capture.messages == [
                    """
                    UndoCursorModel.cursor is registered `.transient`, so undo leaves it out; it was not tracked.

                    To fix, either:
                      • Remove it from `trackUndo`.
                      • Register it without `.transient` if undo should restore it.
                    """,
                ])
                model.text = "a"
                model.cursor = 2
                model.node.undoStack.undo()
                #expect(model.text == "" && model.cursor == 2)
            }
        }

        @Test func trackingAChildsPropertyThroughTheParentNamesBoth() async {
            await IssueCapture.run(matching: "UndoThroughChildModel") { capture in
                _ = UndoThroughChildModel().withAnchor()
                #expect(capture.messages == [
                    """
                    UndoThroughChildModel.node.trackUndo was passed a key path that reads UndoRow.text of another model; only UndoThroughChildModel.child was tracked for it.

                    To fix, either:
                      • Call `node.trackUndo()` (or name the property) in the `onActivate` of UndoRow, which tracks it for every UndoRow.
                      • Pass the property of UndoThroughChildModel itself if that is what undo should restore.
                    """,
                ])
            }
        }

        @Test func trackingAPropertysStorageNamesTheProperty() async {
            await IssueCapture.run(matching: "UndoStorageModel") { capture in
                _ = UndoStorageModel().withAnchor()
                #expect(capture.messages == [
                    """
                    UndoStorageModel.node.trackUndo was passed the storage of `title` (`\\.$title`) instead of the property; nothing was tracked for it.

                    To fix: Pass the property itself: `\\.title`.
                    """,
                ])
            }
        }
    }
}

/// Passes a key path through its child (`\.child.name`) to `trackUndo`.
struct UndoThroughChildModel: Model {
    var node = ModelNode<Self>()
    @Tracked var child = UndoRow()

    func onActivate() { node.trackUndo(\.child.text) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$child)
    }
}

/// Passes a property's storage (`\.$title`) to `trackUndo`.
struct UndoStorageModel: Model {
    var node = ModelNode<Self>()
    @Tracked var title = ""

    func onActivate() { node.trackUndo(\.$title) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
    }
}

struct UndoCursorModel: Model {
    var node = ModelNode<Self>()
    @Tracked var text = ""
    @Tracked var cursor = 0

    func onActivate() { node.trackUndo(\.text, \.cursor) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
        r.track(\.$cursor, options: .transient)
    }
}

private enum RevivalLimitKey: DependencyKey {
    static let liveValue = 0
    static let testValue = 0
}

/// A child brought back by undo has the environment values and preference contributions it had set.
@Suite struct UndoKeyedValuesTests {
    @Test func aRevivedChildKeepsTheEnvironmentValuesAndContributionsItSet() {
        let log = Log()
        let editor = UndoEditor(log: log).withAnchor()
        editor.items.append(UndoItem(id: 1, name: "car", parts: [UndoItem(id: 11, name: "wheel", log: log)], log: log))
        let item = editor.items[0]
        item.node.environment.theme = "dark"
        item.node.preference.unsavedCount = 2
        item.parts[0].node.preference.unsavedCount = 3
        #expect(editor.node.preference.unsavedCount == 5)
        #expect(item.parts[0].node.environment.theme == "dark")

        editor.items.removeAll()
        #expect(editor.node.preference.unsavedCount == 0)

        editor.node.undoStack.undo()
        let back = try! #require(editor.items.first)
        #expect(back.lifetime == .anchored)
        #expect(back.node.environment.theme == "dark")
        #expect(back.parts[0].node.environment.theme == "dark")
        #expect(editor.node.environment.theme == "light")
        #expect(back.node.preference.unsavedCount == 5)
        #expect(editor.node.preference.unsavedCount == 5)

        // Removed and brought back again: the values come with it a second time.
        editor.node.undoStack.redo()
        #expect(editor.node.preference.unsavedCount == 0)
        editor.node.undoStack.undo()
        let again = try! #require(editor.items.first)
        #expect(again.node.environment.theme == "dark")
        #expect(editor.node.preference.unsavedCount == 5)
    }

    @Test func valuesRestoredWithARevivedChildAreNoChangesOfTheirOwn() {
        let editor = UndoEditor().withAnchor()
        editor.items.append(UndoItem(id: 1, name: "car", log: Log()))
        editor.items[0].node.environment.theme = "dark"
        editor.items[0].node.preference.unsavedCount = 1
        editor.items.removeAll()
        let folds = Locked<[Int]>([])
        let observing = editor.node.onChange(of: editor.node.preference.unsavedCount) { _, value in
            folds.withLock { $0.append(value) }
        }
        let printed = Locked<[String]>([])
        let printing = editor._printChanges { line in printed.withLock { $0.append(line) } }
        editor.node.undoStack.undo()
        // The parent's fold changed with the child's return, once; what the child had set is not a
        // change of its own (only the slot is).
        #expect(folds.value == [1])
        // (The undo stack, a model dependency, prints its own flags.)
        let lines = printed.value.filter { !$0.hasPrefix("ModelUndoStack.") }
        #expect(lines.count == 1 && lines.allSatisfy { $0.hasPrefix("UndoEditor.items:") }, "\(printed.value)")
        observing.cancel()
        printing.cancel()
    }
}
