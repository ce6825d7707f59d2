import Foundation
import ModelKit
import Observation
import Testing

// The contract of API.md, section by section, written as a user of that page writes it: the names
// and signatures it gives, verbatim, and only the public API. Each test quotes the sentence it pins.

// MARK: - Models

/// API.md section 1, verbatim apart from the name.
struct ContractCount: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0

    func incrementTapped() { count += 1 }
    func decrementTapped() { count -= 1 }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}

/// A child that logs its life stages into the log it is given.
struct ContractLeaf: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log
    @Tracked var title = ""

    init(id: Int, title: String = "", log: Log) {
        self.id = id
        self.log = log
        _title = Tracked(wrappedValue: title)
    }

    func onActivate() {
        log.add("activate \(id)")
        node.onCancel { log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("title", \.$title)
    }
}

enum ContractDestination: ModelContainer {
    case detail(ContractLeaf)
    case alert(String)

    func visit(_ v: inout ContainerVisitor) {
        if case .detail(let m) = self { v.visit(m) }
    }
}

struct ContractParent: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var one: ContractLeaf?
    @Tracked var list: [ContractLeaf] = []
    @Tracked var byKey: [String: ContractLeaf] = [:]
    @Tracked var destination: ContractDestination?

    init(log: Log) { self.log = log }

    func onActivate() {
        log.add("activate parent")
        node.onCancel { log.add("cancel parent") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("one", \.$one)
        r.track("list", \.$list)
        r.track("byKey", \.$byKey)
        r.track("destination", \.$destination)
    }
}

enum ContractEvent: Sendable, Equatable {
    case logout
    case ping(Int)
}

struct ContractSender: Model {
    enum Event: Sendable, Equatable { case deleteStandup }

    var node = ModelNode<Self>()
    @Tracked var child: ContractSender?

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("child", \.$child)
    }
}

struct ContractFactClient: Sendable { var fetch: @Sendable (Int) async throws -> String }
extension ContractFactClient: DependencyKey {
    static let liveValue = ContractFactClient { n in "\(n) live" }
    static let testValue = ContractFactClient { _ in "test fact" }
}
extension DependencyValues {
    var contractFactClient: ContractFactClient {
        get { self[ContractFactClient.self] } set { self[ContractFactClient.self] = newValue }
    }
}

struct ContractFacts: Model {
    var node = ModelNode<Self>()
    @Tracked var fact = ""
    @Tracked var child: ContractFacts?

    func fetchViaSubscript() async throws -> String { try await node[ContractFactClient.self].fetch(1) }
    func fetchViaMember() async throws -> String { try await node.contractFactClient.fetch(1) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("fact", \.$fact)
        r.track("child", \.$child)
    }
}

struct ContractSettings: Model {
    var node = ModelNode<Self>()
    @Tracked var theme = "light"
    static func register(_ r: inout ModelRegistrar<Self>) { r.track("theme", \.$theme) }
}
extension ContractSettings: DependencyKey {
    static var liveValue: ContractSettings { ContractSettings() }
}

struct ContractNonEquatable: Sendable { var n: Int }

struct ContractStreams: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var other = 0
    @Tracked var box = ContractNonEquatable(n: 0)
    @Tracked var child: ContractStreams?

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("other", \.$other)
        r.track("box", \.$box)
        r.track("child", \.$child)
    }
}

struct ContractError: Error {}

// MARK: - Tests

@Suite struct APIContractTests {
    // MARK: 1. Declaring a model

    @Test func copiesShareOneStateAndLetIsUsable() {
        let model = ContractCount()
        let copy = model
        copy.incrementTapped()
        #expect(model.count == 1)
        #expect(model.id == copy.id)
        let anchored = ContractCount().withAnchor()
        let other = anchored
        other.incrementTapped()
        other.incrementTapped()
        anchored.decrementTapped()
        #expect(anchored.count == 1)
    }

    @Test func projectedValueKeyPathIsWritable() {
        let keyPath: WritableKeyPath<ContractCount, Tracked<Int>> = \.$count
        _ = keyPath
    }

    @Test func compoundUpdatesAreAtomic() async {
        let model = ContractCount().withAnchor()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<500 { model.incrementTapped() } }
            }
        }
        #expect(model.count == 4000)
    }

    @Test func writingAnEqualValueNotifiesNothing() async {
        let model = ContractStreams().withAnchor()
        let changes = Locked(0)
        model.node.onChange(of: \.count) { _, _ in changes.withLock { $0 += 1 } }
        let modifications = Collector(model.node.modifications())
        let fired = Locked(false)
        withObservationTracking { _ = model.count } onChange: { fired.value = true }
        model.count = 0
        model.other = 1   // a marker that does arrive
        #expect(await modifications.waitForCount(1))
        #expect(modifications.elements.count == 1)
        #expect(modifications.elements[0].paths == ["ContractStreams.other"])
        #expect(changes.value == 0)
        #expect(!fired.value)
    }

    @Test func childSlotsOfEveryShapeAnchorAndTearDown() async {
        let log = Log()
        let parent = ContractParent(log: log).withAnchor()
        parent.one = ContractLeaf(id: 1, log: log)
        parent.list = [ContractLeaf(id: 2, log: log)]
        parent.byKey = ["k": ContractLeaf(id: 3, log: log)]
        parent.destination = .detail(ContractLeaf(id: 4, log: log))
        #expect(log.all == ["activate parent", "activate 1", "activate 2", "activate 3", "activate 4"])
        for leaf in [parent.one!, parent.list[0], parent.byKey["k"]!] {
            #expect(leaf.lifetime == .anchored)
        }
        log.clear()
        parent.one = nil
        parent.list = []
        parent.byKey = [:]
        parent.destination = .alert("x")
        #expect(log.all == ["cancel 1", "cancel 2", "cancel 3", "cancel 4"])
    }

    @Test func aDifferentIDReplacesTheChildOldTornDownFirst() {
        let log = Log()
        let parent = ContractParent(log: log).withAnchor()
        let first = ContractLeaf(id: 1, log: log)
        parent.one = first
        log.clear()
        parent.one = ContractLeaf(id: 2, log: log)
        #expect(log.all == ["cancel 1", "activate 2"])
        #expect(first.lifetime == .destructed)
    }

    @Test func theSameIDContinuesTheChild() {
        let log = Log()
        let parent = ContractParent(log: log).withAnchor()
        let first = ContractLeaf(id: 1, title: "draft", log: log)
        parent.list = [first]
        let again = ContractLeaf(id: 1, title: "final", log: log)
        parent.list = [again]
        #expect(parent.list[0].title == "final")
        #expect(first.title == "final")
        #expect(again.title == "final")
        #expect(first.lifetime == .anchored)
        #expect(again.lifetime == .anchored)
        #expect(log.all == ["activate parent", "activate 1"])
        first.title = "x"
        #expect(parent.list[0].title == "x")
        #expect(again.title == "x")
    }

    @Test func theDefaultIDIsUniquePerInstanceAndEventDefaultsToNever() {
        #expect(ContractCount().id != ContractCount().id)
        #expect(ContractCount.Event.self == Never.self)
    }

    @Test func withActivationRunsRightAfterOnActivateParentsFirst() {
        let log = Log()
        let leaf = ContractLeaf(id: 1, log: log).withActivation { model in
            log.add("withActivation \(model.id)")
        }
        let parent = ContractParent(log: log)
        parent.list = [leaf]
        let anchored = parent.withAnchor()
        #expect(log.all == ["activate parent", "activate 1", "withActivation 1"])
        _ = anchored
    }

    // MARK: 2. Anchoring, life stages, sharing

    @Test func anchoringChangesTheModelItself() {
        let m = ContractCount()
        #expect(m.lifetime == .initial)
        let a = m.withAnchor()
        #expect(m.lifetime == .anchored)
        m.incrementTapped()
        #expect(a.count == 1)
    }

    @Test func releasingTheLastAnchorCopyTearsDown() async {
        let log = Log()
        let original = ContractParent(log: log)
        var anchor: ContractParent? = original.withAnchor()
        anchor!.one = ContractLeaf(id: 1, log: log)
        let child = anchor!.one!
        anchor = nil
        #expect(await eventually { original.lifetime == .destructed })
        #expect(await eventually { child.lifetime == .destructed })
        #expect(log.all.contains("cancel 1"))
    }

    @Test func frozenCopyFreezesChildrenInEveryShape() {
        let log = Log()
        let parent = ContractParent(log: log).withAnchor()
        parent.one = ContractLeaf(id: 1, title: "a", log: log)
        parent.list = [ContractLeaf(id: 2, title: "b", log: log)]
        parent.byKey = ["k": ContractLeaf(id: 3, title: "c", log: log)]
        let frozen = parent.frozenCopy
        parent.one?.title = "changed"
        #expect(frozen.lifetime == .frozen)
        #expect(frozen.one?.lifetime == .frozen)
        #expect(frozen.one?.title == "a")
        #expect(frozen.list[0].lifetime == .frozen)
        #expect(frozen.byKey["k"]?.lifetime == .frozen)
    }

    @Test func removingAModelCancelsItsOwnTasksBeforeItsChildren() {
        let log = Log()
        // Add then remove a parent with a child: the parent's onCancel runs before the child's.
        let sub = ContractParent(log: log)
        sub.one = ContractLeaf(id: 9, log: log)
        let host = ContractParentHost(log: log).withAnchor()
        host.sub = sub
        log.clear()
        host.sub = nil
        #expect(log.all == ["cancel parent", "cancel 9"])
    }

    @Test func aSharedModelActivatesOnceAndGoesWithItsLastPlace() {
        let log = Log()
        let parent = ContractParent(log: log).withAnchor()
        let shared = ContractLeaf(id: 1, log: log)
        parent.one = shared
        parent.list = [shared]
        #expect(log.count(of: "activate 1") == 1)
        parent.one = nil
        #expect(shared.lifetime == .anchored)
        #expect(log.count(of: "cancel 1") == 0)
        parent.list = []
        #expect(shared.lifetime == .destructed)
        #expect(log.count(of: "cancel 1") == 1)
    }

    // MARK: 3. Dependencies

    @Test func dependenciesReadLiveValuesAndOverrides() async throws {
        let plain = ContractFacts().withAnchor()
        #expect(try await plain.fetchViaSubscript() == "1 live")
        #expect(try await plain.fetchViaMember() == "1 live")

        let root = ContractFacts().withAnchor { $0.contractFactClient.fetch = { n in "\(n) root" } }
        root.child = ContractFacts().withDependencies { $0.contractFactClient.fetch = { n in "\(n) child" } }
        root.child?.child = ContractFacts()
        #expect(try await root.fetchViaMember() == "1 root")
        #expect(try await root.child!.fetchViaMember() == "1 child")
        #expect(try await root.child!.child!.fetchViaMember() == "1 child")
        let fromTask = Locked("")
        root.node.task { fromTask.value = try await root.node.contractFactClient.fetch(2) }
        #expect(await eventually { fromTask.value == "2 root" })
    }

    @Test func builtInDependenciesOutsideATester() {
        let model = ContractFacts().withAnchor()
        let a = model.node.uuid()
        let b = model.node.uuid()
        #expect(a != b)
        _ = model.node.date.now
        let clock: any Clock<Duration> = model.node.continuousClock
        _ = clock
    }

    @Test func aModelDependencyIsSharedPerHierarchyAndTornDownWithIt() async {
        var root: ContractFacts? = ContractFacts().withAnchor()
        root!.child = ContractFacts()
        let settings = root!.node[ContractSettings.self]
        let again = root!.child!.node[ContractSettings.self]
        #expect(settings.id == again.id)
        #expect(settings.lifetime == .anchored)
        settings.theme = "dark"
        #expect(again.theme == "dark")
        let other = ContractFacts().withAnchor()
        #expect(other.node[ContractSettings.self].id != settings.id)
        root = nil
        #expect(await eventually { settings.lifetime == .destructed })
    }

    // MARK: 4. Tasks, streams, cancellation

    @Test func taskErrorsGoToCatchAndCancellationIsSwallowed() async {
        let model = ContractCount().withAnchor()
        let caught = Locked<[String]>([])
        model.node.task { throw ContractError() } catch: { error in
            caught.withLock { $0.append("\(type(of: error))") }
        }
        model.node.task { throw CancellationError() } catch: { _ in
            caught.withLock { $0.append("cancellation") }
        }
        #expect(await eventually { caught.value == ["ContractError"] })
    }

    @Test func forEachGoesOnAfterAnErrorInOneBody() async {
        let model = ContractCount().withAnchor()
        let seen = Locked<[Int]>([])
        let caught = Locked(0)
        model.node.forEach(AsyncArray(elements: [1, 2, 3])) { n in
            seen.withLock { $0.append(n) }
            if n == 2 { throw ContractError() }
        } catch: { _ in caught.withLock { $0 += 1 } }
        #expect(await eventually { seen.value == [1, 2, 3] })
        #expect(caught.value == 1)
    }

    @Test func forEachCancelPreviousUnwindsBeforeTheNextBody() async {
        let model = ContractCount().withAnchor()
        let log = Log()
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        model.node.forEach(stream, cancelPrevious: true) { n in
            log.add("start \(n)")
            defer { log.add("end \(n)") }
            if n == 1 { await waitForCancellation() }
        }
        continuation.yield(1)
        #expect(await log.waitFor("start 1"))
        continuation.yield(2)
        #expect(await log.waitFor("end 2"))
        #expect(log.all == ["start 1", "end 1", "start 2", "end 2"])
    }

    @Test func changeOfDeliversCurrentThenDistinctValues() async {
        let model = ContractStreams().withAnchor()
        let values = Collector(model.change(of: \.count))
        let later = Collector(model.change(of: \.count, initial: false))
        let boxes = Collector(model.change(of: \.box))
        model.count = 1
        model.count = 1
        model.count = 2
        model.box = ContractNonEquatable(n: 0)
        #expect(await values.waitForCount(3))
        #expect(await later.waitForCount(2))
        #expect(await boxes.waitForCount(2))
        #expect(values.elements == [0, 1, 2])
        #expect(later.elements == [1, 2])
        #expect(boxes.elements.map(\.n) == [0, 0])
    }

    @Test func observeReevaluatesWhenWhatItReadChanges() async {
        let model = ContractStreams().withAnchor()
        let sums = Collector(model.node.observe { model.count + model.other })
        model.count = 1
        model.other = 2
        #expect(await sums.waitForCount(3))
        #expect(sums.elements == [0, 1, 3])
    }

    @Test func streamsListenFromCreation() async {
        let model = ContractStreams().withAnchor()
        let stream = model.change(of: \.count, initial: false)
        model.count = 5
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 5)
    }

    @Test func onChangeRunsInOrderOnEachChange() async {
        let model = ContractStreams().withAnchor()
        let seen = Locked<[String]>([])
        model.node.onChange(of: \.count) { old, new in seen.withLock { $0.append("\(old)→\(new)") } }
        model.count = 1
        model.count = 2
        #expect(await eventually { seen.value == ["0→1", "1→2"] })
    }

    @Test func cancellableIDsAndCancelAll() async {
        let parent = ContractStreams().withAnchor()
        parent.child = ContractStreams()
        let child = parent.child!
        let log = Log()
        parent.node.task { await waitForCancellation { log.add("p waiting") } onCancel: { log.add("p cancelled") } }
            .cancel(for: "tag")
        child.node.task { await waitForCancellation { log.add("c waiting") } onCancel: { log.add("c cancelled") } }
            .cancel(for: "tag")
        #expect(await log.waitFor("p waiting"))
        #expect(await log.waitFor("c waiting"))
        parent.node.cancelAll(for: "tag")
        #expect(log.all.contains("p cancelled"))
        #expect(!log.all.contains("c cancelled"))
        child.node.cancelAll(for: "tag")
        #expect(log.all.contains("c cancelled"))
    }

    @Test func cancelInFlightCancelsWhatRunsUnderTheID() async {
        let model = ContractStreams().withAnchor()
        let log = Log()
        model.node.task { await waitForCancellation { log.add("1 waiting") } onCancel: { log.add("1 cancelled") } }
            .cancel(for: 1, cancelInFlight: true)
        #expect(await log.waitFor("1 waiting"))
        model.node.task { log.add("2 ran") }.cancel(for: 1, cancelInFlight: true)
        #expect(log.all.contains("1 cancelled"))
        #expect(await log.waitFor("2 ran"))

        func start(_ n: Int) {
            model.node.task {
                await waitForCancellation { log.add("s\(n) waiting") } onCancel: { log.add("s\(n) cancelled") }
            }.cancelInFlight()
        }
        start(1)
        #expect(await log.waitFor("s1 waiting"))
        start(2)
        #expect(log.all.contains("s1 cancelled"))
        model.node.cancellationContext(for: "ctx") {
            model.node.task { await waitForCancellation { log.add("x waiting") } onCancel: { log.add("x cancelled") } }
        }
        #expect(await log.waitFor("x waiting"))
        model.node.cancelAll(for: "ctx")
        #expect(log.all.contains("x cancelled"))
    }

    @Test func transactionReturnsItsResultAndNotifiesOnceAfterIt() async {
        let model = ContractStreams().withAnchor()
        let seen = Collector(model.node.observe { "\(model.count),\(model.other)" })
        let fired = Locked(0)
        withObservationTracking { _ = model.count; _ = model.other } onChange: { fired.withLock { $0 += 1 } }
        let result = model.node.transaction {
            model.count = 1
            model.node.transaction { model.other = 1 }
            model.count = 2
            return "done"
        }
        #expect(result == "done")
        #expect(fired.value == 1)
        model.other = 9
        #expect(await seen.waitForCount(3))
        #expect(seen.elements == ["0,0", "2,1", "2,9"])
    }

    @Test func timerAndDebounceOnTheModelClock() async {
        let clock = ManualClock()
        let model = ContractStreams().withAnchor { $0.continuousClock = clock }
        let ticks = Collector(model.node.continuousClock.timer(interval: .seconds(1)))
        clock.advance(by: .seconds(3))
        #expect(await ticks.waitForCount(1))
        _ = AsyncStream<Int> { _ in }.debounce(for: .seconds(1), clock: model.node.continuousClock)
    }

    // MARK: 5. Observation and debugging

    @Test func observationRegistersExactlyThePropertyRead() {
        let a = ContractStreams().withAnchor()
        let b = ContractStreams().withAnchor()
        let fired = Locked(0)
        withObservationTracking { _ = a.count } onChange: { fired.withLock { $0 += 1 } }
        a.other = 1
        b.count = 1
        #expect(fired.value == 0)
        a.count = 1
        #expect(fired.value == 1)
    }

    @Test func printChangesNamesThePathWithADiff() {
        let lines = Locked<[String]>([])
        let log = Log()
        let parent = ContractParent(log: log).withAnchor()
        parent.list = [ContractLeaf(id: 1, log: log)]
        let printing = parent._printChanges { line in lines.withLock { $0.append(line) } }
        parent.list[0].title = "x"
        #expect(lines.value.joined().contains("ContractParent.list[0].title: \"\" → \"x\""))
        printing.cancel()
        parent.list[0].title = "y"
        #expect(!lines.value.joined().contains("\"y\""))
    }

    // MARK: 6. Events

    @Test func eventsReachTheRelationsInSendOrder() async {
        let root = ContractSender().withAnchor()
        root.child = ContractSender()
        root.child?.child = ContractSender()
        let middle = root.child!
        let leaf = middle.child!
        let atRoot = Collector(root.node.event(ofType: ContractEvent.self))
        let atLeaf = Collector(leaf.node.event(ofType: ContractEvent.self))
        let logouts = Collector(root.node.event(of: ContractEvent.logout))
        leaf.node.send(ContractEvent.ping(1))
        leaf.node.send(ContractEvent.logout)
        leaf.node.send(ContractEvent.ping(2))
        middle.node.send(ContractEvent.ping(3), to: .children)
        #expect(await atRoot.waitForCount(3))
        #expect(await atLeaf.waitForCount(4))
        #expect(await logouts.waitForCount(1))
        #expect(atRoot.elements == [.ping(1), .logout, .ping(2)])
        #expect(atLeaf.elements == [.ping(1), .logout, .ping(2), .ping(3)])
    }

    @Test func ownEventsComeWithTheSender() async {
        let root = ContractSender().withAnchor()
        root.child = ContractSender()
        let pairs = Collector(root.node.event(fromType: ContractSender.self))
        root.child!.node.send(.deleteStandup)
        #expect(await pairs.waitForCount(1))
        #expect(pairs.elements.first?.event == .deleteStandup)
        #expect(pairs.elements.first?.model.id == root.child!.id)
    }
}

struct ContractParentHost: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var sub: ContractParent?

    init(log: Log) { self.log = log }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("sub", \.$sub)
    }
}
