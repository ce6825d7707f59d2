import Foundation
import ModelKit
import Observation
import Testing

// API.md sections 8–12, in the style of APIContractTests.swift (whose suite these extend).

// MARK: - Sections 8–12

struct ContractThemeKey: ModelEnvironmentKey { static let defaultValue = "light" }
extension ModelEnvironmentValues {
    var contractTheme: String {
        get { self[ContractThemeKey.self] } set { self[ContractThemeKey.self] = newValue }
    }
}
struct ContractUnsavedKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}
struct ContractOrderKey: ModelPreferenceKey {
    static let defaultValue: [String] = []
    static func reduce(value: inout [String], nextValue: [String]) { value += nextValue }
}
extension ModelPreferenceValues {
    var contractUnsaved: Int {
        get { self[ContractUnsavedKey.self] } set { self[ContractUnsavedKey.self] = newValue }
    }
    var contractOrder: [String] {
        get { self[ContractOrderKey.self] } set { self[ContractOrderKey.self] = newValue }
    }
}

struct ContractTree: Model {
    var node = ModelNode<Self>()
    let name: String
    @Tracked var title = ""
    @Tracked var items: [ContractTree] = []
    @Tracked var cursor = 0

    var isEmpty: Bool { node.memoize { items.isEmpty } }
    var titleLength: Int { node.memoize(for: "length") { title.count } }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$items)
        r.track(\.$cursor, options: .transient)
    }
}

extension APIContractTests {
    // MARK: 9. Reacting to change

    @Test func onChangeOfAnExpressionWithInitial() async {
        let model = ContractTree(name: "root").withAnchor()
        let seen = Locked<[String]>([])
        model.node.onChange(of: model.title.isEmpty, initial: true) { old, new in
            seen.withLock { $0.append("\(old)→\(new)") }
        }
        model.node.onChange(of: \.title, initial: true) { old, new in
            seen.withLock { $0.append("kp \(old)→\(new)") }
        }
        #expect(seen.value == ["true→true", "kp →"])
        model.title = "a"
        model.title = "ab"
        #expect(await eventually { seen.value.count == 5 })
        #expect(seen.value == ["true→true", "kp →", "true→false", "kp →a", "kp a→ab"])
    }

    @Test func taskIDRunsAtOnceAndRestartsWithoutOverlap() async {
        let model = ContractTree(name: "root").withAnchor()
        let log = Log()
        model.node.task(id: model.title) { title in
            log.add("start \(title)")
            defer { log.add("end \(title)") }
            await waitForCancellation()
        }
        #expect(await log.waitFor("start "))
        model.title = "a"
        #expect(await log.waitFor("start a"))
        #expect(log.all == ["start ", "end ", "start a"])
    }

    @Test func modificationsOnePerCommitWithPathsTransientNever() async {
        let root = ContractTree(name: "root").withAnchor()
        root.items = [ContractTree(name: "a")]
        let mods = Collector(root.node.modifications())
        root.cursor = 5
        root.items[0].title = "x"
        root.node.transaction {
            root.title = "t"
            root.items[0].title = "y"
        }
        root.items.append(ContractTree(name: "b"))
        #expect(await mods.waitForCount(3))
        #expect(mods.elements.map(\.paths) == [
            ["ContractTree.items[0].title"],
            ["ContractTree.title", "ContractTree.items[0].title"],
            ["ContractTree.items"],
        ])
    }

    @Test func touchNotifiesWithoutAChange() async {
        let model = ContractTree(name: "root").withAnchor()
        let fired = Locked(false)
        withObservationTracking { _ = model.title } onChange: { fired.value = true }
        let values = Collector(model.change(of: \.title))
        model.node.touch(\.title)
        #expect(fired.value)
        #expect(await values.waitForCount(2))
        #expect(values.elements == ["", ""])
    }

    @Test func untrackedReadsRegisterNothingAndReturnTheResult() {
        let model = ContractTree(name: "root").withAnchor()
        let fired = Locked(false)
        withObservationTracking {
            let title = withUntrackedModelReads { model.title }
            #expect(title == "")
        } onChange: { fired.value = true }
        model.title = "x"
        #expect(!fired.value)
    }

    @Test func memoizedValuesNotifyOnlyWhenTheyChange() {
        let model = ContractTree(name: "root").withAnchor()
        #expect(model.isEmpty)
        let fired = Locked(0)
        func track() {
            withObservationTracking { _ = model.isEmpty } onChange: { fired.withLock { $0 += 1 } }
        }
        track()
        model.items.append(ContractTree(name: "a"))
        #expect(fired.value == 1)
        #expect(!model.isEmpty)
        track()
        model.items.append(ContractTree(name: "b"))
        #expect(fired.value == 1)
        #expect(model.titleLength == 0)
        model.title = "abc"
        #expect(model.titleLength == 3)
        model.node.resetMemoization(for: "length")
        #expect(model.titleLength == 3)
        let initial = ContractTree(name: "initial")
        initial.title = "ab"
        #expect(initial.titleLength == 2)
    }

    // MARK: 10. Environment, preferences, hierarchy queries

    @Test func environmentIsTopDownWithNearestValue() {
        let root = ContractTree(name: "root").withAnchor()
        root.items = [ContractTree(name: "a", items: [ContractTree(name: "a0")])]
        let a = root.items[0]
        let a0 = a.items[0]
        #expect(a0.node.environment.contractTheme == "light")
        root.node.environment.contractTheme = "dark"
        #expect(a0.node.environment.contractTheme == "dark")
        a.node.environment.contractTheme = "blue"
        #expect(a0.node.environment.contractTheme == "blue")
        #expect(root.node.environment.contractTheme == "dark")
        a.node.removeEnvironment(\.contractTheme)
        #expect(a0.node.environment.contractTheme == "dark")
    }

    @Test func preferencesFoldBottomUpModelFirstThenDepthFirst() {
        let root = ContractTree(name: "root").withAnchor()
        root.items = [
            ContractTree(name: "a", items: [ContractTree(name: "a0")]),
            ContractTree(name: "b"),
        ]
        for model in [root, root.items[0], root.items[0].items[0], root.items[1]] {
            model.node.preference.contractOrder = [model.name]
            model.node.preference.contractUnsaved = 1
        }
        #expect(root.node.preference.contractOrder == ["root", "a", "a0", "b"])
        #expect(root.node.preference.contractUnsaved == 4)
        root.items.removeLast()
        #expect(root.node.preference.contractUnsaved == 3)
        root.items[0].node.removePreference(\.contractUnsaved)
        #expect(root.node.preference.contractUnsaved == 2)
    }

    @Test func environmentAndPreferencesAreObservedAndPrinted() async {
        let root = ContractTree(name: "root").withAnchor()
        root.items = [ContractTree(name: "a")]
        let lines = Locked<[String]>([])
        let printing = root._printChanges { line in lines.withLock { $0.append(line) } }
        let themes = Collector(root.items[0].node.observe { root.items[0].node.environment.contractTheme })
        let counts = Collector(root.node.observe { root.node.preference.contractUnsaved })
        let mods = Collector(root.node.modifications())
        root.node.environment.contractTheme = "dark"
        root.items[0].node.preference.contractUnsaved = 2
        #expect(await themes.waitForCount(2))
        #expect(await counts.waitForCount(2))
        #expect(await mods.waitForCount(2))
        #expect(themes.elements == ["light", "dark"])
        #expect(counts.elements == [0, 2])
        #expect(lines.value.contains("ContractTree.environment.contractTheme: \"light\" → \"dark\""))
        printing.cancel()
    }

    @Test func mapHierarchyOrderSelfAncestorsDescendants() {
        let root = ContractTree(name: "root").withAnchor()
        root.items = [
            ContractTree(name: "a", items: [ContractTree(name: "a0"), ContractTree(name: "a1")]),
            ContractTree(name: "b"),
        ]
        let a = root.items[0]
        #expect(a.items[0].node.mapHierarchy(for: [.self, .ancestors]) { ($0 as? ContractTree)?.name }
            == ["a0", "a", "root"])
        #expect(root.node.mapHierarchy(for: [.self, .descendants]) { ($0 as? ContractTree)?.name }
            == ["root", "a", "a0", "a1", "b"])
        #expect(root.node.mapHierarchy(for: .children) { ($0 as? ContractTree)?.name } == ["a", "b"])
        let count = root.node.reduceHierarchy(for: .descendants, into: 0) { total, _ in total += 1 }
        #expect(count == 4)
        // A shared model is visited once.
        let shared = a.items[1]
        root.items[1].items = [shared]
        #expect(root.node.mapHierarchy(for: .descendants) { ($0 as? ContractTree)?.name }
            == ["a", "a0", "a1", "b"])
        #expect(!shared.node.isUniquelyReferenced)
        #expect(a.node.isUniquelyReferenced)
    }

    @Test func mapHierarchyIsObservedInsideObserve() async {
        let root = ContractTree(name: "root").withAnchor()
        let names = Collector(root.node.observe {
            root.node.mapHierarchy(for: .descendants) { ($0 as? ContractTree)?.name }
        })
        root.items = [ContractTree(name: "a")]
        #expect(await names.waitForCount(2))
        #expect(names.elements == [[], ["a"]])
    }

    // MARK: 12. Undo and redo

    @Test func undoRestoresAndRedoReapplies() async {
        let root = ContractTree(name: "root").withAnchor()
        root.node.trackUndo(\.title, \.items)
        let stack = root.node.undoStack
        #expect(!stack.canUndo)
        root.title = "a"
        root.node.transaction {
            root.title = "b"
            root.items = [ContractTree(name: "x", title: "kept")]
        }
        root.cursor = 3   // not tracked for undo: no entry
        #expect(stack.canUndo)
        let child = root.items[0]
        stack.undo()
        #expect(root.title == "a")
        #expect(root.items.isEmpty)
        #expect(stack.canRedo)
        stack.redo()
        #expect(root.title == "b")
        #expect(root.items.count == 1)
        stack.undo()
        stack.undo()
        #expect(root.title == "")
        #expect(!stack.canUndo)
        stack.redo()
        #expect(root.title == "a")
        root.title = "new"
        #expect(!stack.canRedo)
        _ = child
    }

    @Test func undoBringsARemovedChildBackLive() {
        let root = ContractTree(name: "root").withAnchor()
        root.node.trackUndo()
        root.items = [ContractTree(name: "x")]
        root.items[0].title = "edited"
        root.items = []
        root.node.undoStack.undo()
        #expect(root.items.count == 1)
        #expect(root.items[0].lifetime == .anchored)
        #expect(root.items[0].title == "edited")
        root.items[0].title = "live"
        #expect(root.items[0].title == "live")
    }

    @Test func canUndoIsObservable() {
        let root = ContractTree(name: "root").withAnchor()
        root.node.trackUndo()
        let fired = Locked(false)
        withObservationTracking { _ = root.node.undoStack.canUndo } onChange: { fired.value = true }
        root.title = "a"
        #expect(fired.value)
    }

    @Test func undoStackLimitDropsTheOldest() {
        let root = ContractTree(name: "root").withAnchor { $0.undoStack = ModelUndoStack(limit: 2) }
        root.node.trackUndo(\.title)
        root.title = "a"
        root.title = "b"
        root.title = "c"
        root.node.undoStack.undo()
        root.node.undoStack.undo()
        #expect(root.title == "a")
        #expect(!root.node.undoStack.canUndo)
    }
}
