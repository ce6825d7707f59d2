import ModelKit
import Observation
import Testing

/// A model with a property that is not part of the document.
private struct Draft: Model {
    var node = ModelNode<Self>()
    @Tracked var text = ""
    @Tracked var cursor = 0
    @Tracked var parts: [Draft] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
        r.track(\.$cursor, options: .transient)
        r.track(\.$parts)
    }
}

/// A document that saves on every modification, as an autosave does: its own stream, read by its
/// own work. The token goes with the model value.
private struct AutosavedDraft: Model {
    var node = ModelNode<Self>()
    let saves: AtomicCounter
    let token: LifetimeTracker.Token
    @Tracked var text = ""

    func onActivate() {
        node.forEach(node.modifications()) { [saves] _ in saves.increment() }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
    }
}

/// `node.modifications(of:)` (API.md section 9): one element per commit in the relation.
@Suite struct ModificationsTests {
    @Test func eachWriteInTheSubtreeIsOneElementNamingWhatChanged() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.child = TreeModel("a", log: Log())
        let modifications = Collector(root.node.modifications())
        root.value = 1
        root.child?.value = 2
        #expect(await modifications.waitForCount(2))
        #expect(modifications.elements.map(\.paths) == [["TreeModel.value"], ["TreeModel.child.value"]])
        modifications.cancel()
    }

    @Test func aTransactionIsOneElement() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.child = TreeModel("a", log: Log())
        let modifications = Collector(root.node.modifications())
        root.node.transaction {
            root.value = 1
            root.child?.value = 2
            root.value = 3
        }
        root.value = 4
        #expect(await modifications.waitForCount(2))
        #expect(modifications.elements.map(\.paths) == [["TreeModel.value", "TreeModel.child.value"], ["TreeModel.value"]])
        modifications.cancel()
    }

    /// A commit of thousands of changes (a list rewritten in one transaction) names each changed
    /// property once, in the order of the writes; paths are kept unique with a set, not by searching
    /// the list for each one.
    @Test func aTransactionOfThousandsOfChangesNamesEachOnceInOrder() async {
        let root = Draft().withAnchor()
        root.parts = (0..<3_000).map { _ in Draft() }
        let parts = root.parts
        let modifications = Collector(root.node.modifications())
        root.node.transaction {
            for part in parts.reversed() { part.text = "a" }
            for part in parts { part.text = "b" }
        }
        #expect(await modifications.waitForCount(1))
        let expected = (0..<3_000).reversed().map { "Draft.parts[\($0)].text" }
        #expect(modifications.elements.first?.paths == expected)
        modifications.cancel()
    }

    @Test func aTransactionThatEndsWhereItBeganIsNoModification() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let modifications = Collector(root.node.modifications())
        let fired = Locked(0)
        withObservationTracking { _ = root.value } onChange: { fired.withLock { $0 += 1 } }
        root.node.transaction {
            root.value = 1
            root.value = 0
        }
        // A marker: the element after the transaction's, if it had one.
        root.child = TreeModel("marker", log: Log())
        #expect(await modifications.waitForCount(1))
        #expect(modifications.elements.map(\.paths) == [["TreeModel.child"]])
        #expect(fired.value == 0)
        modifications.cancel()
    }

    @Test func addingAndRemovingChildrenAreModifications() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let modifications = Collector(root.node.modifications())
        root.children.append(TreeModel("a", log: Log()))
        root.children.removeAll()
        #expect(await modifications.waitForCount(2))
        #expect(modifications.elements.map(\.paths) == [["TreeModel.children"], ["TreeModel.children"]])
        modifications.cancel()
    }

    @Test func selfOnlyLeavesOutTheDescendants() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.child = TreeModel("a", log: Log())
        let modifications = Collector(root.node.modifications(of: .self))
        root.child?.value = 1
        root.value = 2
        #expect(await modifications.waitForCount(1))
        #expect(modifications.elements.map(\.paths) == [["TreeModel.value"]])
        modifications.cancel()
    }

    @Test func aChildCanListenToItsAncestors() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.child = TreeModel("a", log: Log(), child: TreeModel("b", log: Log()))
        let leaf = root.child!.child!
        let modifications = Collector(leaf.node.modifications(of: .ancestors))
        leaf.value = 1
        root.child?.value = 2
        root.value = 3
        #expect(await modifications.waitForCount(2))
        #expect(modifications.elements.map(\.paths) == [["TreeModel.child.value"], ["TreeModel.value"]])
        modifications.cancel()
    }

    @Test func transientPropertiesNeverProduceAnElement() async {
        let draft = Draft().withAnchor()
        let modifications = Collector(draft.node.modifications())
        draft.cursor = 5
        draft.node.transaction {
            draft.cursor = 6
        }
        draft.text = "hello"
        #expect(await modifications.waitForCount(1))
        #expect(modifications.elements.map(\.paths) == [["Draft.text"]])
        modifications.cancel()
    }

    @Test func anEqualWriteIsNoModification() async {
        let draft = Draft().withAnchor()
        let modifications = Collector(draft.node.modifications())
        draft.text = ""
        draft.text = "x"
        #expect(await modifications.waitForCount(1))
        #expect(modifications.elements.map(\.paths) == [["Draft.text"]])
        modifications.cancel()
    }

    @Test func theStreamEndsWhenTheModelIsRemoved() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let child = TreeModel("a", log: Log())
        root.child = child
        let modifications = Collector(child.node.modifications())
        root.child = nil
        #expect(await modifications.waitForFinish())
        #expect(modifications.elements.isEmpty)
    }

    /// A listener refers to its hierarchy, and the hierarchy lists its listeners: the list must not
    /// outlive the models, or the hierarchy (and all it holds) is never freed.
    @Test func aHierarchyWithModificationStreamsIsFreedWithItsAnchor() async {
        let tracker = LifetimeTracker()
        let saves = AtomicCounter()
        weak var hierarchy: Hierarchy?
        let modifications: Collector<ModelModification>
        do {
            let root = AutosavedDraft(saves: saves, token: tracker.token()).withAnchor()
            hierarchy = root.hierarchy
            #expect(hierarchy != nil)
            modifications = Collector(root.node.modifications())
            root.text = "a"
            #expect(await modifications.waitForCount(1))
            #expect(await eventually { saves.value == 1 })
        }
        #expect(await modifications.waitForFinish())
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
        #expect(await eventually { hierarchy == nil })
    }

    @Test func aStreamLeavesItsHierarchyWhenDroppedCancelledOrRemoved() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let hierarchy = root.hierarchy!
        for _ in 0..<500 { _ = root.node.modifications() }
        #expect(hierarchy.modificationStreamCount == 0)

        let read = Collector(root.node.modifications())
        #expect(hierarchy.modificationStreamCount == 1)
        read.cancel()
        #expect(await read.waitForFinish())
        #expect(hierarchy.modificationStreamCount == 0)

        let child = TreeModel("a", log: Log())
        root.child = child
        let ofChild = Collector(child.node.modifications())
        #expect(hierarchy.modificationStreamCount == 1)
        root.child = nil
        #expect(hierarchy.modificationStreamCount == 0)
        #expect(await ofChild.waitForFinish())
    }

    @Test func writesFromManyThreadsAreEachDelivered() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.children = (0..<4).map { TreeModel("\($0)", log: Log()) }
        let modifications = Collector(root.node.modifications())
        let children = root.children
        await withTaskGroup(of: Void.self) { group in
            for child in children {
                group.addTask { for _ in 0..<100 { child.value += 1 } }
            }
        }
        #expect(await modifications.waitForCount(400))
        #expect(modifications.elements.count == 400)
        modifications.cancel()
    }
}
