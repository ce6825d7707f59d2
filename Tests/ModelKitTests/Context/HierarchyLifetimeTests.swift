import Foundation
import ModelKit
import Testing

/// A non-plain tracked value (a struct holding a closure): a destructed model reads its initial value.
private struct Formatter: Sendable {
    var name: String
    var format: @Sendable (Int) -> String
}

private struct SnapshotModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var tags: [String] = []
    @Tracked var when = Date(timeIntervalSince1970: 0)
    @Tracked var formatter = Formatter(name: "initial") { "\($0)" }
    @Tracked var child: CounterModel? = nil
    @Tracked var list: [CounterModel] = []
    @Tracked var table: [String: CounterModel] = [:]
    @Tracked var destination: Destination = .none

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("tags", \.$tags)
        r.track("when", \.$when)
        r.track("formatter", \.$formatter)
        r.track("child", \.$child)
        r.track("list", \.$list)
        r.track("table", \.$table)
        r.track("destination", \.$destination)
    }
}

private struct ActivationProbe: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var count = 0

    func onActivate() {
        log.add("onActivate count=\(count)")
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}

@Suite struct HierarchyLifetimeTests {
    @Test func lifetimeGoesFromInitialToAnchoredToDestructed() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let child = TreeModel("a", log: log)
        #expect(child.lifetime == .initial)
        root.child = child
        #expect(child.lifetime == .anchored)
        root.child = nil
        #expect(child.lifetime == .destructed)
        #expect(child.frozenCopy.lifetime == .frozen)
    }

    @Test func anchoringChangesTheModelItselfNotACopy() {
        let model = CounterModel()
        let anchored = model.withAnchor()
        #expect(model.lifetime == .anchored)
        model.count = 4
        #expect(anchored.count == 4)
        anchored.incrementTapped()
        #expect(model.count == 5)
    }

    @Test func rootIsActivatedByWithAnchor() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        #expect(log.all == ["activate root"])
        withExtendedLifetime(root) {}
    }

    @Test func childIsActivatedSynchronouslyDuringTheWrite() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.children.append(TreeModel("a", log: log))
        #expect(log.all == ["activate root", "activate a"])
    }

    @Test func childIsActivatedAfterParent() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let subtree = TreeModel(
            "a", log: log,
            child: TreeModel("a.child", log: log, children: [TreeModel("a.child.0", log: log)]),
            children: [TreeModel("a.0", log: log), TreeModel("a.1", log: log)]
        )
        root.child = subtree
        let activations = log.entries(withPrefix: "activate")
        #expect(activations.first == "activate root")
        func position(_ id: String) -> Int { activations.firstIndex(of: "activate \(id)") ?? -1 }
        #expect(position("a") < position("a.child"))
        #expect(position("a.child") < position("a.child.0"))
        #expect(position("a") < position("a.0"))
        #expect(position("a") < position("a.1"))
        #expect(activations.count == 6)
    }

    @Test func onActivateRunsOnceAndSeesTheModelsValues() {
        let log = Log()
        let probe = ActivationProbe(log: log)
        probe.count = 3
        let anchored = probe.withAnchor()
        anchored.count = 4
        #expect(log.all == ["onActivate count=3"])
    }

    @Test func withActivationRunsRightAfterOnActivate() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let child = TreeModel("a", log: log).withActivation { model in
            log.add("withActivation \(model.id) lifetime=\(model.lifetime)")
            model.value = 9
        }
        root.child = child
        #expect(log.all == ["activate root", "activate a", "withActivation a lifetime=anchored"])
        #expect(child.value == 9)
    }

    @Test func removingAModelTearsItDownSynchronously() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let child = TreeModel("a", log: log, children: [TreeModel("a.0", log: log)])
        root.child = child
        let started = Gate()
        let ended = Gate()
        child.node.task {
            started.open()
            await waitForCancellation()
            ended.open()
        }
        await started.enter()
        root.child = nil
        #expect(child.lifetime == .destructed)
        #expect(log.all.suffix(2) == ["cancel a", "cancel a.0"])
        #expect(await eventually { ended.isOpen })
    }

    @Test func teardownCancelsAModelsOwnWorkBeforeItsChildrens() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let grandchild = TreeModel("a.0.0", log: log)
        let child = TreeModel("a", log: log, children: [TreeModel("a.0", log: log, children: [grandchild])])
        root.child = child
        let started = AtomicCounter()
        for model in [child, child.children[0], grandchild] {
            model.node.task {
                await withTaskCancellationHandler {
                    started.increment()
                    await waitForCancellation()
                } onCancel: {
                    log.add("task cancelled \(model.id)")
                }
            }
        }
        #expect(await eventually { started.value == 3 })
        log.clear()
        root.child = nil
        #expect(log.all == [
            "task cancelled a", "cancel a",
            "task cancelled a.0", "cancel a.0",
            "task cancelled a.0.0", "cancel a.0.0",
        ])
    }

    @Test func hierarchyIsTornDownWhenItsAnchorIsReleased() {
        let log = Log()
        let child = TreeModel("a", log: log)
        let original = TreeModel("root", log: log, child: child)
        do {
            let root = original.withAnchor()
            #expect(root.lifetime == .anchored)
        }
        #expect(original.lifetime == .destructed)
        #expect(child.lifetime == .destructed)
        #expect(log.all == ["activate root", "activate a", "cancel root", "cancel a"])
    }

    @Test func streamsEndWhenTheHierarchyIsReleased() async {
        let original = TreeModel("root", log: Log())
        var root: TreeModel? = original.withAnchor()
        let values = Collector(original.change(of: \.value))
        let events = Collector(original.node.event(ofType: Int.self))
        #expect(await values.waitForCount(1))
        root = nil
        #expect(root == nil)
        #expect(await values.waitForFinish())
        #expect(await events.waitForFinish())
    }

    @Test func onlyTheReturnedValueAndItsCopiesKeepTheHierarchyAlive() {
        let log = Log()
        let original = TreeModel("root", log: log)
        var anchored: TreeModel? = original.withAnchor()
        anchored?.child = TreeModel("a", log: log)
        let childReadFromParent = original.child
        var copy = anchored
        anchored = nil
        #expect(original.lifetime == .anchored)
        copy = nil
        #expect(copy == nil)
        #expect(original.lifetime == .destructed)
        #expect(childReadFromParent?.lifetime == .destructed)
    }

    @Test func destructedModelReadsPlainDataAsLastValueAndOtherValuesAsInitial() {
        let root = SnapshotHolder().withAnchor()
        let snapshot = SnapshotModel()
        root.model = snapshot
        snapshot.count = 5
        snapshot.tags = ["x"]
        snapshot.when = Date(timeIntervalSince1970: 100)
        snapshot.formatter = Formatter(name: "changed") { "#\($0)" }
        snapshot.child = CounterModel()
        root.model = nil
        #expect(snapshot.lifetime == .destructed)
        #expect(snapshot.count == 5)
        #expect(snapshot.tags == ["x"])
        #expect(snapshot.when == Date(timeIntervalSince1970: 100))
        #expect(snapshot.formatter.name == "initial")
        #expect(snapshot.child == nil)
    }

    @Test func frozenCopyIsASnapshot() {
        let root = SnapshotModel().withAnchor()
        root.count = 1
        root.tags = ["a"]
        let frozen = root.frozenCopy
        root.count = 2
        root.tags.append("b")
        #expect(frozen.count == 1)
        #expect(frozen.tags == ["a"])
        #expect(frozen.lifetime == .frozen)
        #expect(frozen.id == root.id)
    }

    @Test func frozenCopyFreezesChildrenInOptionalsArraysAndDictionaries() {
        let root = SnapshotModel().withAnchor()
        root.child = CounterModel()
        root.list = [CounterModel()]
        root.table = ["k": CounterModel()]
        root.child?.count = 1
        root.list[0].count = 2
        root.table["k"]?.count = 3
        let frozen = root.frozenCopy
        root.child?.count = 10
        root.list[0].count = 20
        root.table["k"]?.count = 30
        #expect(frozen.child?.lifetime == .frozen)
        #expect(frozen.list.first?.lifetime == .frozen)
        #expect(frozen.table["k"]?.lifetime == .frozen)
        #expect(frozen.child?.count == 1)
        #expect(frozen.list.first?.count == 2)
        #expect(frozen.table["k"]?.count == 3)
        #expect(frozen.child?.id == root.child?.id)
    }

    @Test func frozenCopyKeepsModelsInCustomContainersLive() {
        let root = SnapshotModel().withAnchor()
        let detail = TreeModel("detail", log: Log())
        root.destination = .detail(detail)
        let frozen = root.frozenCopy
        guard case .detail(let frozenDetail) = frozen.destination else {
            Issue.record("expected .detail")
            return
        }
        #expect(frozenDetail.lifetime == .anchored)
        frozenDetail.value = 3
        #expect(detail.value == 3)
    }

    @Test func frozenCopyOfAnInitialModelIsFrozen() {
        let model = CounterModel()
        model.count = 2
        let frozen = model.frozenCopy
        model.count = 3
        #expect(frozen.count == 2)
        #expect(frozen.lifetime == .frozen)
        #expect(model.lifetime == .initial)
    }
}

private struct SnapshotHolder: Model {
    var node = ModelNode<Self>()
    @Tracked var model: SnapshotModel? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("model", \.$model)
    }
}
