import Foundation
import ModelKit
import Observation
import Testing

// The edges of API.md's contract: sharing, several routes, continuity in every slot shape, nested
// contexts and transactions, generic models (extending the suite of APIContractTests.swift).

// MARK: - Edges of the contract

struct ContractGroup: Model {
    var node = ModelNode<Self>()
    let name: String
    let log: Log
    @Tracked var members: [ContractLeaf] = []
    @Tracked var byKey: [String: ContractLeaf] = [:]
    @Tracked var list: IdentifiedList<ContractLeaf> = IdentifiedList()

    init(name: String, log: Log) {
        self.name = name
        self.log = log
    }

    func onActivate() {
        log.add("activate \(name)")
        node.onCancel { log.add("cancel \(name)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$members)
        r.track(\.$byKey)
        r.track(\.$list)
    }
}

struct ContractGroups: Model {
    var node = ModelNode<Self>()
    @Tracked var groups: [ContractGroup] = []
    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$groups) }
}

extension APIContractTests {
    @Test func aSharedModelGoesAfterItsLastParentsOwnWork() {
        let log = Log()
        let root = ContractGroups().withAnchor()
        let shared = ContractLeaf(id: 1, log: log)
        let first = ContractGroup(name: "g1", log: log)
        let second = ContractGroup(name: "g2", log: log)
        first.members = [shared]
        second.members = [shared]
        root.groups = [first, second]
        #expect(log.all == ["activate g1", "activate 1", "activate g2"])
        log.clear()
        root.groups = [second]
        #expect(log.all == ["cancel g1"])
        log.clear()
        root.groups = []
        #expect(log.all == ["cancel g2", "cancel 1"])
    }

    @Test func continuityInDictionaryAndGenericCollectionSlots() {
        let log = Log()
        let group = ContractGroup(name: "g", log: log).withAnchor()
        let byKey = ContractLeaf(id: 1, title: "a", log: log)
        let inList = ContractLeaf(id: 2, title: "a", log: log)
        group.byKey = ["k": byKey]
        group.list = IdentifiedList([inList])
        group.byKey = ["k": ContractLeaf(id: 1, title: "b", log: log)]
        group.list = IdentifiedList([ContractLeaf(id: 2, title: "b", log: log)])
        #expect(byKey.title == "b" && byKey.lifetime == .anchored)
        #expect(inList.title == "b" && inList.lifetime == .anchored)
        #expect(log.count(of: "activate 1") == 1 && log.count(of: "activate 2") == 1)
        #expect(log.count(of: "cancel 1") == 0 && log.count(of: "cancel 2") == 0)
    }

    @Test func modificationsOfSelfOnlyAndChildrenAddedOrRemoved() async {
        let log = Log()
        let group = ContractGroup(name: "g", log: log).withAnchor()
        let own = Collector(group.node.modifications(of: .self))
        group.members = [ContractLeaf(id: 1, log: log)]
        group.members[0].title = "child only"
        group.members = []
        #expect(await own.waitForCount(2))
        #expect(own.elements.map(\.paths) == [["ContractGroup.members"], ["ContractGroup.members"]])
    }

    @Test func memoizeComputesAtMostOncePerChange() {
        let counter = AtomicCounter()
        let model = ContractStreams().withAnchor()
        func value() -> Int { model.node.memoize(for: "sum") { counter.increment(); return model.count + model.other } }
        #expect(value() == 0)
        #expect(value() == 0)
        #expect(counter.value == 1)
        model.count = 1
        #expect(value() == 1)
        #expect(value() == 1)
        #expect(counter.value == 2)
        model.node.transaction { model.count = 2; model.other = 2 }
        #expect(value() == 4)
        #expect(counter.value == 3)
    }

    @Test func sendReachesDependencyModels() async {
        let root = ContractFacts().withAnchor()
        let settings = root.node[ContractSettings.self]
        let received = Collector(settings.node.event(ofType: ContractEvent.self))
        root.node.send(ContractEvent.logout, to: [.descendants, .dependencies])
        #expect(await received.waitForCount(1))
        #expect(root.node.mapHierarchy(for: .dependencies) { $0 as? ContractSettings }.map(\.id) == [settings.id])
    }

    @Test func cancellingAForEachCancelsItsRunningBody() async {
        let model = ContractCount().withAnchor()
        let log = Log()
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let loop = model.node.forEach(stream) { _ in
            await waitForCancellation { log.add("waiting") } onCancel: { log.add("cancelled") }
        }
        continuation.yield(1)
        #expect(await log.waitFor("waiting"))
        loop.cancel()
        #expect(log.all.contains("cancelled"))
    }

    @Test func cancelAllForAnIDLeavesUntaggedAndChildrenWork() async {
        let parent = ContractStreams().withAnchor()
        let log = Log()
        parent.node.task { await waitForCancellation { log.add("untagged") } onCancel: { log.add("untagged cancelled") } }
        #expect(await log.waitFor("untagged"))
        parent.node.cancelAll(for: "nothing")
        #expect(!log.all.contains("untagged cancelled"))
    }

    @Test func nestedTransactionsNotifyOnceWhenTheOutermostEnds() {
        let model = ContractStreams().withAnchor()
        let fired = Locked(0)
        withObservationTracking { _ = model.count } onChange: { fired.withLock { $0 += 1 } }
        model.node.transaction {
            model.node.transaction { model.count = 1 }
            #expect(fired.value == 0)
            model.count = 2
        }
        #expect(fired.value == 1)
    }

    @Test func reentrantWritesJustWork() {
        let model = ContractStreams().withAnchor()
        model.child = ContractStreams()
        model.child?.count = model.count + 1
        model.node.onChange(of: \.count) { _, new in model.other = new * 10 }
        model.count = 3
        #expect(model.other == 30)
        #expect(model.child?.count == 1)
    }
}

enum ContractRowSlot: ModelContainer, Identifiable, Sendable {
    case leaf(ContractLeaf)
    case note(id: Int, text: String)

    var id: Int {
        switch self {
        case .leaf(let leaf): leaf.id
        case .note(let id, _): id
        }
    }

    func visit(_ v: inout ContainerVisitor) {
        if case .leaf(let leaf) = self { v.visit(leaf) }
    }
}

struct ContractSlots: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: IdentifiedList<ContractRowSlot> = IdentifiedList()
    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$rows) }
}

extension APIContractTests {
    @Test func touchReachesOnChangeAndModifications() async {
        let model = ContractStreams().withAnchor()
        let seen = Locked<[String]>([])
        model.node.onChange(of: \.count) { old, new in seen.withLock { $0.append("\(old)→\(new)") } }
        let mods = Collector(model.node.modifications())
        model.node.touch(\.count)
        #expect(await mods.waitForCount(1))
        #expect(mods.elements.first?.paths == ["ContractStreams.count"])
        #expect(await eventually { seen.value == ["0→0"] })
    }

    @Test func hierarchyQueriesAreObservedForWhatTheClosureRead() async {
        let root = ContractTree(name: "root").withAnchor()
        root.items = [ContractTree(name: "a")]
        let titles = Collector(root.node.observe {
            root.node.mapHierarchy(for: .children) { ($0 as? ContractTree)?.title }
        })
        let fired = Locked(false)
        withObservationTracking {
            _ = root.node.reduceHierarchy(for: .children, into: "") { text, model in
                text += (model as? ContractTree)?.title ?? ""
            }
        } onChange: { fired.value = true }
        root.items[0].title = "x"
        #expect(fired.value)
        #expect(await titles.waitForCount(2))
        #expect(titles.elements == [[""], ["x"]])
    }

    @Test func aCollectionOfIdentifiableCustomContainersIsAChildSlot() {
        let log = Log()
        let model = ContractSlots().withAnchor()
        let leaf = ContractLeaf(id: 1, title: "a", log: log)
        model.rows = IdentifiedList([.note(id: 0, text: "n"), .leaf(leaf)])
        #expect(leaf.lifetime == .anchored)
        model.rows = IdentifiedList([.note(id: 0, text: "n"), .leaf(ContractLeaf(id: 1, title: "b", log: log))])
        #expect(leaf.title == "b")
        #expect(log.all == ["activate 1"])
        model.rows = IdentifiedList([.note(id: 0, text: "n")])
        #expect(leaf.lifetime == .destructed)
    }
}

extension APIContractTests {
    @Test func parentAndAncestorRelationsOfAnEvent() async {
        let root = ContractSender().withAnchor()
        root.child = ContractSender()
        let shared = ContractSender()
        let middle = root.child!
        middle.child = shared
        let atRoot = Collector(root.node.event(ofType: ContractEvent.self))
        let atMiddle = Collector(middle.node.event(ofType: ContractEvent.self))
        shared.node.send(ContractEvent.ping(1), to: .parent)
        shared.node.send(ContractEvent.ping(2), to: .ancestors)
        #expect(await atRoot.waitForCount(1))
        #expect(await atMiddle.waitForCount(2))
        #expect(atRoot.elements == [.ping(2)])
        #expect(atMiddle.elements == [.ping(1), .ping(2)])
    }

    @Test func sharedEventsAreReceivedOnceThroughSeveralRoutes() async {
        let group = ContractSenderGroup().withAnchor()
        let shared = ContractSender()
        group.senders = [ContractSender(child: shared), ContractSender(child: shared)]
        let atRoot = Collector(group.node.event(ofType: ContractEvent.self))
        let parents = group.senders
        let atParents = parents.map { Collector($0.node.event(ofType: ContractEvent.self)) }
        shared.node.send(ContractEvent.ping(1))
        shared.node.send(ContractEvent.ping(2), to: .parent)
        group.node.send(ContractEvent.logout)
        #expect(await atRoot.waitForCount(2))
        #expect(await atParents[0].waitForCount(2))
        #expect(await atParents[1].waitForCount(2))
        #expect(atRoot.elements == [.ping(1), .logout])
        #expect(atParents[0].elements == [.ping(1), .ping(2)])
        #expect(atParents[1].elements == [.ping(1), .ping(2)])
    }

    @Test func onChangeOfAnExpressionInATransactionRunsOnceOrNotAtAll() async {
        let model = ContractStreams().withAnchor()
        let seen = Locked<[String]>([])
        model.node.onChange(of: model.count + model.other) { old, new in seen.withLock { $0.append("\(old)→\(new)") } }
        model.node.transaction {
            model.count = 5
            model.other = 1
        }
        model.node.transaction {
            model.count = 0
            model.other = 6
        }
        model.count = 1
        #expect(await eventually { seen.value.count >= 2 })
        #expect(seen.value == ["0→6", "6→7"])
    }

    @Test func nestedTransactionIsOneModification() async {
        let model = ContractStreams().withAnchor()
        let mods = Collector(model.node.modifications())
        model.node.transaction {
            model.count = 1
            model.node.transaction { model.other = 1 }
        }
        model.count = 2
        #expect(await mods.waitForCount(2))
        #expect(mods.elements.map(\.paths) == [["ContractStreams.count", "ContractStreams.other"], ["ContractStreams.count"]])
    }

    @Test func nestedCancellationContextsTagWithEveryID() async {
        let model = ContractStreams().withAnchor()
        let log = Log()
        model.node.cancellationContext(for: "outer") {
            model.node.cancellationContext(for: "inner") {
                model.node.task { await waitForCancellation { log.add("waiting") } onCancel: { log.add("cancelled") } }
                model.node.onCancel { log.add("onCancel") }
            }
        }
        #expect(await log.waitFor("waiting"))
        model.node.cancelAll(for: "outer")
        #expect(log.all.contains("cancelled"))
        #expect(log.all.contains("onCancel"))
    }

    @Test func aSharedModelInheritsTheEnvironmentOfItsFirstPlace() async {
        let group = ContractSenderGroup().withAnchor()
        let shared = ContractSender()
        group.senders = [ContractSender(child: shared), ContractSender(child: shared)]
        group.senders[0].node.environment.contractTheme = "first"
        group.senders[1].node.environment.contractTheme = "second"
        #expect(shared.node.environment.contractTheme == "first")
        let themes = Collector(shared.node.observe { shared.node.environment.contractTheme })
        group.senders[0].child = nil
        #expect(shared.node.environment.contractTheme == "second")
        #expect(await themes.waitForCount(2))
        #expect(themes.elements == ["first", "second"])
    }
}

struct ContractSenderGroup: Model {
    var node = ModelNode<Self>()
    @Tracked var senders: [ContractSender] = []
    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$senders) }
}

struct ContractNumberKey: DependencyKey {
    static let liveValue = 1
}
extension DependencyValues {
    var contractNumber: Int {
        get { self[ContractNumberKey.self] } set { self[ContractNumberKey.self] = newValue }
    }
}

extension APIContractTests {
    @Test func overridesStartFromWhatTheParentSeesOutermostFirst() {
        let root = ContractFacts().withAnchor { $0.contractNumber += 10 }
        let child = ContractFacts().withDependencies { $0.contractNumber *= 2 }
        root.child = child
        child.child = ContractFacts().withDependencies { $0.contractNumber += 1 }
        let sibling = ContractFacts()
        child.child?.child = sibling
        #expect(root.node.contractNumber == 11)
        #expect(child.node.contractNumber == 22)
        #expect(child.child!.node.contractNumber == 23)
        #expect(sibling.node[ContractNumberKey.self] == 23)
    }

    @Test func aModelDependencyOverrideIsSeenWhereItApplies() {
        let root = ContractFacts().withAnchor { $0[ContractSettings.self] = ContractSettings(theme: "dark") }
        root.child = ContractFacts()
        #expect(root.child!.node[ContractSettings.self].theme == "dark")
        #expect(root.node[ContractSettings.self].lifetime == .anchored)
    }
}

struct ContractBox<Value: Sendable & Equatable>: Model {
    var node = ModelNode<Self>()
    @Tracked var value: Value
    @Tracked var boxes: [ContractBox<Value>] = []

    init(_ value: Value) { _value = Tracked(wrappedValue: value) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$value)
        r.track(\.$boxes)
    }
}

extension APIContractTests {
    @Test func aGenericModelWorksAsAnyOther() async {
        let root = ContractBox(0).withAnchor()
        root.boxes = [ContractBox(1)]
        let mods = Collector(root.node.modifications())
        root.boxes[0].value = 2
        #expect(await mods.waitForCount(1))
        #expect(mods.elements[0].paths.count == 1)
        #expect(mods.elements[0].paths[0].hasSuffix(".boxes[0].value"))
        #expect(root.boxes[0].lifetime == .anchored)
    }

    /// Section 1: "Writing a value `==` to the current one (for `Equatable` values) is a no-op",
    /// also where the declaring code does not know the value is `Equatable` (a generic model).
    /// (ModelKitTestingTests' `aGenericModelsEqualWriteIsNoChangeForTheTester` fails without it.)
    @Test func aGenericModelsEqualWriteIsANoOp() async {
        let root = ContractBox(1).withAnchor()
        let log = Log()
        root.node.onChange(of: \.value) { _, new in log.add("\(new)") }
        let observed = Log()
        withObservationTracking { _ = root.value } onChange: { observed.add("notified") }
        root.value = 1
        root.value = 1
        #expect(observed.all.isEmpty, "Observation hears of no equal write")
        root.value = 2
        #expect(log.all == ["2"], "only the write of 2 is a change")
        #expect(observed.all == ["notified"])
    }
}

struct ContractNested: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log
    @Tracked var title: String
    @Tracked var children: [ContractNested] = []
    @Tracked var destination: ContractNestedDestination?

    init(id: Int, title: String, log: Log, children: [ContractNested] = [], destination: ContractNestedDestination? = nil) {
        self.id = id
        self.log = log
        _title = Tracked(wrappedValue: title)
        _children = Tracked(wrappedValue: children)
        _destination = Tracked(wrappedValue: destination)
    }

    func onActivate() {
        log.add("activate \(id)")
        node.onCancel { log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$children)
        r.track(\.$destination)
    }
}

enum ContractNestedDestination: ModelContainer, Sendable {
    case detail(ContractNested)
    func visit(_ v: inout ContainerVisitor) {
        if case .detail(let m) = self { v.visit(m) }
    }
}

extension APIContractTests {
    @Test func continuityReconcilesChildSlotsRecursivelyAndPrintsEachDifference() {
        let log = Log()
        let root = ContractNested(id: 0, title: "root", log: log).withAnchor()
        let inner = ContractNested(id: 10, title: "inner", log: log)
        let viaEnum = ContractNested(id: 20, title: "enum", log: log)
        root.children = [ContractNested(id: 1, title: "draft", log: log, children: [inner], destination: .detail(viaEnum))]
        let outer = root.children[0]
        let lines = Locked<[String]>([])
        let printing = root._printChanges { line in lines.withLock { $0.append(line) } }
        log.clear()
        root.children = [ContractNested(
            id: 1, title: "final", log: log,
            children: [ContractNested(id: 10, title: "inner 2", log: log)],
            destination: .detail(ContractNested(id: 20, title: "enum 2", log: log))
        )]
        printing.cancel()
        #expect(log.all == [])
        #expect(outer.title == "final" && outer.lifetime == .anchored)
        #expect(inner.title == "inner 2" && inner.lifetime == .anchored)
        #expect(viaEnum.title == "enum 2" && viaEnum.lifetime == .anchored)
        #expect(lines.value.sorted() == [
            "ContractNested.children[0].children[0].title: \"inner\" → \"inner 2\"",
            "ContractNested.children[0].destination.detail.title: \"enum\" → \"enum 2\"",
            "ContractNested.children[0].title: \"draft\" → \"final\"",
        ])
    }

    @Test func aDefaultModelIDNeverContinues() {
        let box = ContractStreams().withAnchor()
        box.child = ContractStreams()
        let old = box.child!
        box.child = ContractStreams()
        #expect(old.lifetime == .destructed)
    }
}
