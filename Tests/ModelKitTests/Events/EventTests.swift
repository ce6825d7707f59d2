import ModelKit
import Testing

private enum AppEvent: Sendable, Equatable {
    case logout
    case refresh(Int)
}

/// A model with its own `Event` type that listens from `onActivate` and sends from it.
private struct RowModel: Model {
    enum Event: Sendable, Equatable {
        case deleteTapped
        case hello(String)
    }

    var node = ModelNode<Self>()
    let name: String
    @Tracked var rows: [RowModel] = []

    func onActivate() {
        node.send(.hello(name))
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
    }
}

private struct ListModel: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var rows: [RowModel] = []

    func onActivate() {
        node.forEach(node.event(fromType: RowModel.self)) { event, row in
            log.add("\(row.name): \(event)")
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
    }
}

@Suite struct EventTests {
    /// root → a → a1, and root → b. Returns listeners (collecting `AppEvent`s) on each.
    private struct Tree {
        let root: TreeModel
        let a: TreeModel
        let a1: TreeModel
        let b: TreeModel
        let listeners: [String: Collector<AppEvent>]

        init() {
            let log = Log()
            root = TreeModel("root", log: log).withAnchor()
            a = TreeModel("a", log: log)
            a1 = TreeModel("a1", log: log)
            b = TreeModel("b", log: log)
            root.children = [a, b]
            a.children = [a1]
            var listeners: [String: Collector<AppEvent>] = [:]
            for model in [root, a, a1, b] {
                listeners[model.id] = Collector(model.node.event(ofType: AppEvent.self))
            }
            self.listeners = listeners
        }

        /// Sends `event` from `sender` to `relation`, then a marker to every model, and returns who
        /// received `event`, sorted.
        func receivers(of event: AppEvent, from sender: TreeModel, to relation: ModelRelation) async -> [String] {
            sender.node.send(event, to: relation)
            root.node.send(AppEvent.logout, to: [.self, .descendants])
            for collector in listeners.values {
                _ = await eventually { collector.elements.contains(.logout) }
            }
            defer { for collector in listeners.values { collector.cancel() } }
            return listeners.filter { $0.value.elements.contains(event) }.map(\.key).sorted()
        }
    }

    @Test func defaultRelationIsSelfAndAncestors() async {
        let tree = Tree()
        tree.a1.node.send(AppEvent.refresh(1))
        let receivers = await tree.receivers(of: .refresh(2), from: tree.a1, to: [.self, .ancestors])
        #expect(receivers == ["a", "a1", "root"])
        #expect(tree.listeners["a"]?.elements.first == .refresh(1))
    }

    @Test func parentRelationReachesOnlyTheParent() async {
        let tree = Tree()
        #expect(await tree.receivers(of: .refresh(1), from: tree.a1, to: .parent) == ["a"])
    }

    @Test func selfRelationReachesOnlyTheSender() async {
        let tree = Tree()
        #expect(await tree.receivers(of: .refresh(1), from: tree.a, to: .self) == ["a"])
    }

    @Test func childrenRelationReachesOnlyDirectChildren() async {
        let tree = Tree()
        #expect(await tree.receivers(of: .refresh(1), from: tree.root, to: .children) == ["a", "b"])
    }

    @Test func descendantsRelationReachesEveryModelBelow() async {
        let tree = Tree()
        #expect(await tree.receivers(of: .refresh(1), from: tree.root, to: .descendants) == ["a", "a1", "b"])
    }

    @Test func combinedRelationsReachEachModelOnce() async {
        let tree = Tree()
        tree.a.node.send(AppEvent.refresh(1), to: [.self, .parent, .ancestors, .children, .descendants])
        let receivers = await tree.receivers(of: .refresh(1), from: tree.a, to: [])
        #expect(receivers == ["a", "a1", "root"])
        for id in receivers {
            #expect(tree.listeners[id]?.elements.filter { $0 == .refresh(1) }.count == 1)
        }
    }

    @Test func eventOfMatchesEqualEventsOnly() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let logouts = Collector(root.node.event(of: AppEvent.logout))
        let refreshes = Collector(root.node.event(of: AppEvent.refresh(2)))
        root.node.send(AppEvent.refresh(1))
        root.node.send(AppEvent.logout)
        root.node.send(AppEvent.refresh(2))
        root.node.send("a string event")
        #expect(await logouts.waitForCount(1))
        #expect(await refreshes.waitForCount(1))
        #expect(logouts.elements == [.logout])
        #expect(refreshes.elements == [.refresh(2)])
        logouts.cancel()
        refreshes.cancel()
    }

    @Test func eventOfTypeMatchesByType() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let strings = Collector(root.node.event(ofType: String.self))
        root.node.send(AppEvent.logout)
        root.node.send("one")
        root.node.send(2)
        root.node.send("three")
        #expect(await strings.waitForCount(2))
        #expect(strings.elements == ["one", "three"])
        strings.cancel()
    }

    @Test func eventFromTypeYieldsTheEventAndTheSendingModel() async {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let row = RowModel(name: "r1")
        list.rows = [row]
        row.node.send(.deleteTapped)
        #expect(await log.waitFor("r1: deleteTapped"))
        let fromType = Collector(list.node.event(fromType: RowModel.self))
        row.node.send(.deleteTapped)
        #expect(await fromType.waitForCount(1))
        #expect(fromType.elements.first?.model.id == row.id)
        #expect(fromType.elements.first?.event == .deleteTapped)
        fromType.cancel()
    }

    @Test func eventOfFromTypeYieldsTheModelsThatSentThatEvent() async {
        let list = ListModel(log: Log()).withAnchor()
        let first = RowModel(name: "r1")
        let second = RowModel(name: "r2")
        list.rows = [first, second]
        let deletions = Collector(list.node.event(of: .deleteTapped, fromType: RowModel.self))
        first.node.send(.hello("ignored"))
        second.node.send(.deleteTapped)
        first.node.send(.deleteTapped)
        #expect(await deletions.waitForCount(2))
        #expect(deletions.elements.map(\.name) == ["r2", "r1"])
        deletions.cancel()
    }

    @Test func parentListeningInOnActivateReceivesWhatChildrenSendFromTheirs() async {
        let log = Log()
        let list = ListModel(log: log)
        list.rows = [RowModel(name: "x", rows: [RowModel(name: "x.0")]), RowModel(name: "y")]
        let anchored = list.withAnchor()
        #expect(await log.waitForCount(3))
        #expect(Set(log.all) == ["x: hello(\"x\")", "x.0: hello(\"x.0\")", "y: hello(\"y\")"])
        _ = anchored
    }

    @Test func eventsFromOneSenderArriveInSendOrder() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let child = TreeModel("a", log: Log())
        root.child = child
        let received = Collector(root.node.event(ofType: Int.self))
        for number in 0..<500 { child.node.send(number) }
        #expect(await received.waitForCount(500))
        #expect(received.elements == Array(0..<500))
        received.cancel()
    }

    @Test func streamListensFromCreationNotFromFirstNext() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let stream = root.node.event(ofType: Int.self)
        root.node.send(1)
        root.node.send(2)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
    }

    @Test func streamEndsWhenTheListeningModelIsRemoved() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let child = TreeModel("a", log: Log())
        root.child = child
        let received = Collector(child.node.event(ofType: Int.self))
        child.node.send(1)
        #expect(await received.waitForCount(1))
        root.child = nil
        #expect(await received.waitForFinish())
        #expect(received.elements == [1])
    }

    @Test func removedModelReceivesNothingMore() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let child = TreeModel("a", log: Log())
        root.child = child
        let received = Collector(child.node.event(ofType: Int.self))
        root.child = nil
        root.node.send(5, to: .descendants)
        #expect(await received.waitForFinish())
        #expect(received.elements.isEmpty)
    }

    @Test func modelsOwnEventIsSentWithoutNamingItsType() async {
        let list = ListModel(log: Log()).withAnchor()
        let row = RowModel(name: "r")
        list.rows = [row]
        let events = Collector(list.node.event(ofType: RowModel.Event.self))
        row.node.send(.deleteTapped)
        #expect(await events.waitForCount(1))
        #expect(events.elements == [.deleteTapped])
        events.cancel()
    }
}
