import ModelKit
import Testing

private struct Greeting: DependencyKey, Sendable {
    var text: String
    static let liveValue = Greeting(text: "live")
}

/// Sharing: one model instance stored at several places is one live model.
@Suite struct SharingTests {
    /// root → a, b (in `children`); returns (root, a, b).
    private func makeTree(_ log: Log) -> (TreeModel, TreeModel, TreeModel) {
        let root = TreeModel("root", log: log).withAnchor()
        root.children = [TreeModel("a", log: log), TreeModel("b", log: log)]
        return (root, root.children[0], root.children[1])
    }

    @Test func sharedModelIsActivatedOnce() {
        let log = Log()
        let (root, a, b) = makeTree(log)
        defer { withExtendedLifetime(root) {} }
        let shared = TreeModel("s", log: log)
        a.child = shared
        b.child = shared
        #expect(log.count(of: "activate s") == 1)
        #expect(a.child?.id == b.child?.id)
        b.child?.value = 4
        #expect(a.child?.value == 4)
    }

    @Test func sharedModelLivesUntilItsLastPlaceIsRemoved() {
        let log = Log()
        let (root, a, b) = makeTree(log)
        defer { withExtendedLifetime(root) {} }
        let shared = TreeModel("s", log: log)
        a.child = shared
        b.children = [shared]
        a.child = nil
        #expect(shared.lifetime == .anchored)
        #expect(log.count(of: "cancel s") == 0)
        b.children = []
        #expect(shared.lifetime == .destructed)
        #expect(log.count(of: "cancel s") == 1)
    }

    @Test func sharedModelInTwoSlotsOfOneParent() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let shared = TreeModel("s", log: log)
        root.child = shared
        root.children = [shared]
        #expect(log.count(of: "activate s") == 1)
        root.child = nil
        #expect(shared.lifetime == .anchored)
        root.children = []
        #expect(shared.lifetime == .destructed)
    }

    @Test func sharedModelIsTornDownAfterItsLastParentsOwnWork() {
        let log = Log()
        let (root, a, b) = makeTree(log)
        let shared = TreeModel("s", log: log)
        a.child = shared
        b.child = shared
        root.children.removeFirst()
        #expect(shared.lifetime == .anchored)
        log.clear()
        root.children = []
        #expect(log.all == ["cancel b", "cancel s"])
    }

    @Test func modelMovedByAddingBeforeRemovingIsNotTornDown() {
        let log = Log()
        let (root, a, b) = makeTree(log)
        let moving = TreeModel("m", log: log)
        a.child = moving
        b.child = moving
        a.child = nil
        #expect(moving.lifetime == .anchored)
        #expect(log.count(of: "cancel m") == 0)
        _ = root
    }

    @Test func modelMovedInOneTransactionIsNotTornDown() {
        let log = Log()
        let (root, a, b) = makeTree(log)
        let moving = TreeModel("m", log: log)
        a.child = moving
        root.node.transaction {
            a.child = nil
            b.children.append(moving)
        }
        #expect(moving.lifetime == .anchored)
        #expect(log.count(of: "cancel m") == 0)
        #expect(log.count(of: "activate m") == 1)
        #expect(b.children.first?.id == "m")
    }

    @Test func sharedModelSendsEachEventOnceToACommonAncestor() async {
        let log = Log()
        let (root, a, b) = makeTree(log)
        let shared = TreeModel("s", log: log)
        a.child = shared
        b.child = shared
        let atRoot = Collector(root.node.event(ofType: TreeModel.Event.self))
        let atA = Collector(a.node.event(ofType: TreeModel.Event.self))
        let atB = Collector(b.node.event(ofType: TreeModel.Event.self))
        shared.node.send(TreeModel.Event.ping("1"))
        shared.node.send(TreeModel.Event.ping("2"))
        #expect(await atRoot.waitForCount(2))
        #expect(await atA.waitForCount(2))
        #expect(await atB.waitForCount(2))
        root.node.send(TreeModel.Event.ping("end"), to: .self)
        #expect(await atRoot.waitForCount(3))
        #expect(atRoot.elements == [.ping("1"), .ping("2"), .ping("end")])
        #expect(atA.elements == [.ping("1"), .ping("2")])
        #expect(atB.elements == [.ping("1"), .ping("2")])
        for collector in [atRoot, atA, atB] { collector.cancel() }
    }

    @Test func sharedModelReceivesEachEventOnce() async {
        let log = Log()
        let (root, a, b) = makeTree(log)
        let shared = TreeModel("s", log: log)
        a.child = shared
        b.child = shared
        let received = Collector(shared.node.event(ofType: TreeModel.Event.self))
        root.node.send(TreeModel.Event.ping("down"), to: .descendants)
        shared.node.send(TreeModel.Event.ping("self"), to: .self)
        #expect(await received.waitForCount(2))
        #expect(received.elements == [.ping("down"), .ping("self")])
        received.cancel()
    }

    @Test func sharedModelInheritsDependenciesFromItsFirstPlace() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.children = [
            TreeModel("a", log: log).withDependencies { $0[Greeting.self] = Greeting(text: "from a") },
            TreeModel("b", log: log).withDependencies { $0[Greeting.self] = Greeting(text: "from b") },
        ]
        let shared = TreeModel("s", log: log)
        root.children[0].child = shared
        root.children[1].child = shared
        #expect(shared.node[Greeting.self].text == "from a")
    }

    @Test func parentRelationOfASharedModelReachesEveryParent() async {
        let log = Log()
        let (root, a, b) = makeTree(log)
        let shared = TreeModel("s", log: log)
        a.child = shared
        b.child = shared
        let listeners = [root, a, b].map { Collector($0.node.event(ofType: Int.self)) }
        shared.node.send(1, to: .parent)
        root.node.send(2, to: [.self, .children])
        for listener in listeners { #expect(await listener.waitForCount(1)) }
        #expect(listeners.map(\.elements) == [[2], [1, 2], [1, 2]])
        for listener in listeners { listener.cancel() }
    }
}
