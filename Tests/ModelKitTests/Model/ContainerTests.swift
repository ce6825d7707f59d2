import ModelKit
import Testing

/// A model identified by a custom `id`.
private struct Item: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var title = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("title", \.$title)
    }
}

/// A container of nested containers: an array of optionals and a dictionary of arrays.
private struct NestedModel: Model {
    var node = ModelNode<Self>()
    @Tracked var grid: [TreeModel?] = []
    @Tracked var groups: [String: [TreeModel]] = [:]

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("grid", \.$grid)
        r.track("groups", \.$groups)
    }
}

private struct CounterHolder: Model {
    var node = ModelNode<Self>()
    @Tracked var counters: [CounterModel] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("counters", \.$counters)
    }
}

@Suite struct ContainerTests {
    @Test func directOptionalChildIsAnchoredAndRemoved() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let child = TreeModel("a", log: log)
        root.child = child
        #expect(child.lifetime == .anchored)
        #expect(log.all == ["activate root", "activate a"])
        root.child = nil
        #expect(child.lifetime == .destructed)
        #expect(log.all.last == "cancel a")
    }

    @Test func arrayChildrenAreAnchoredAndRemovedByIdentity() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let a = TreeModel("a", log: log)
        let b = TreeModel("b", log: log)
        let c = TreeModel("c", log: log)
        root.children = [a, b, c]
        #expect([a, b, c].allSatisfy { $0.lifetime == .anchored })
        root.children.remove(at: 1)
        #expect(b.lifetime == .destructed)
        #expect(a.lifetime == .anchored && c.lifetime == .anchored)
        root.children.reverse()
        #expect(log.count(of: "activate a") == 1)
        #expect(log.count(of: "cancel a") == 0)
        #expect(root.children.map(\.id) == ["c", "a"])
    }

    @Test func dictionaryChildrenAreAnchoredAndRemoved() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let a = TreeModel("a", log: log)
        root.byKey["x"] = a
        root.byKey["y"] = TreeModel("b", log: log)
        #expect(a.lifetime == .anchored)
        #expect(log.all == ["activate root", "activate a", "activate b"])
        root.byKey["x"] = nil
        #expect(a.lifetime == .destructed)
        #expect(root.byKey["y"]?.lifetime == .anchored)
    }

    @Test func customEnumContainerAnchorsTheModelsItVisits() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let detail = TreeModel("detail", log: log)
        root.destination = .detail(detail)
        #expect(detail.lifetime == .anchored)
        root.destination = .message("hello")
        #expect(detail.lifetime == .destructed)
        #expect(log.all == ["activate root", "activate detail", "cancel detail"])
    }

    @Test func customStructContainerAnchorsEveryModelItVisits() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let left = TreeModel("left", log: log)
        let right = TreeModel("right", log: log)
        root.pair = Pair(left: left, right: right)
        #expect(left.lifetime == .anchored && right.lifetime == .anchored)
        root.pair?.right = nil
        #expect(right.lifetime == .destructed)
        #expect(left.lifetime == .anchored)
        root.pair = nil
        #expect(left.lifetime == .destructed)
    }

    @Test func nestedStandardContainersAreContainers() {
        let log = Log()
        let root = NestedModel().withAnchor()
        let a = TreeModel("a", log: log)
        let b = TreeModel("b", log: log)
        root.grid = [nil, a, nil]
        root.groups = ["g": [b]]
        #expect(a.lifetime == .anchored && b.lifetime == .anchored)
        root.grid[1] = nil
        root.groups["g"]?.removeAll()
        #expect(a.lifetime == .destructed && b.lifetime == .destructed)
    }

    @Test func childrenGivenAtInitAreAnchoredWithTheRoot() {
        let log = Log()
        let a = TreeModel("a", log: log, children: [TreeModel("a1", log: log)])
        let root = TreeModel("root", log: log, child: a).withAnchor()
        #expect(a.lifetime == .anchored)
        #expect(root.child?.children.first?.lifetime == .anchored)
        #expect(log.all == ["activate root", "activate a", "activate a1"])
    }

    @Test func reassigningTheSameChildKeepsIt() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.child = TreeModel("a", log: log)
        root.child = root.child
        let copy = root.child
        root.child = copy
        #expect(log.all == ["activate root", "activate a"])
        #expect(root.child?.lifetime == .anchored)
    }

    @Test func reorderingChildrenWithModelIDsKeepsThem() {
        let holder = CounterHolder().withAnchor()
        let a = CounterModel()
        let b = CounterModel()
        holder.counters = [a, b]
        a.count = 1
        holder.counters.reverse()
        holder.counters.append(CounterModel())
        #expect(Array(holder.counters.map(\.id).prefix(2)) == [b.id, a.id])
        #expect(a.lifetime == .anchored && b.lifetime == .anchored)
        #expect(holder.counters[1].count == 1)
        #expect(holder.counters[2].lifetime == .anchored)
    }

    @Test func modelIDIsUniquePerInstanceAndSharedByCopies() {
        let a = CounterModel()
        let copy = a
        let b = CounterModel()
        #expect(copy.id == a.id)
        #expect(a.id != b.id)
        let anchored = a.withAnchor()
        #expect(anchored.id == a.id)
        #expect(anchored.frozenCopy.id == a.id)
    }

    @Test func customIDIsTheModelsIdentity() {
        let item = Item(id: 42)
        #expect(item.id == 42)
        #expect(Item(id: 42).withAnchor().id == 42)
    }
}
