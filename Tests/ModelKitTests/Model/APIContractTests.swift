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
}
