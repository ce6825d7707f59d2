import Foundation
import ModelKit
import Testing

private struct FactClient: Sendable {
    var fetch: @Sendable (Int) async throws -> String
}

extension FactClient: DependencyKey {
    static let liveValue = FactClient { "\($0) is a live fact." }
    static let testValue = FactClient { _ in "test fact" }
}

/// Where a model used as a dependency logs its activation (it inherits the hierarchy's overrides).
private enum LogKey: DependencyKey {
    static let liveValue = Log()
}

private enum NumberKey: DependencyKey {
    static let liveValue = 1
}

extension DependencyValues {
    fileprivate var factClient: FactClient {
        get { self[FactClient.self] }
        set { self[FactClient.self] = newValue }
    }

    fileprivate var number: Int {
        get { self[NumberKey.self] }
        set { self[NumberKey.self] = newValue }
    }
}

/// A model used as a dependency: one shared instance per hierarchy, anchored on first use.
private struct SettingsModel: Model, DependencyKey {
    static var liveValue: SettingsModel { SettingsModel() }

    var node = ModelNode<Self>()
    @Tracked var theme = "light"

    func onActivate() {
        node[LogKey.self].add("activate settings")
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("theme", \.$theme)
    }
}

/// A model dependency whose value tells which instance a model got.
private struct ThemeModel: Model, DependencyKey {
    static var liveValue: ThemeModel { ThemeModel() }

    var node = ModelNode<Self>()
    @Tracked var name = "light"

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("name", \.$name)
    }
}

private struct ConsumerModel: Model {
    var node = ModelNode<Self>()
    @Tracked var fact = ""
    @Tracked var kids: [ConsumerModel] = []

    func loadFact() {
        node.task { fact = try await node.factClient.fetch(3) }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("fact", \.$fact)
        r.track("kids", \.$kids)
    }
}

@Suite struct DependencyTests {
    @Test func liveValueIsUsedOutsideATester() {
        let model = ConsumerModel().withAnchor()
        #expect(model.node[NumberKey.self] == 1)
        #expect(model.node.number == 1)
        #expect(model.node.isTesting == false)
    }

    @Test func liveValueIsUsedEvenWhenTheKeyHasATestValue() async throws {
        let model = ConsumerModel().withAnchor()
        #expect(try await model.node.factClient.fetch(2) == "2 is a live fact.")
        #expect(try await model.node[FactClient.self].fetch(2) == "2 is a live fact.")
    }

    @Test func overrideAtTheAnchorIsSeenByTheWholeHierarchy() {
        let root = ConsumerModel().withAnchor { $0.number = 7 }
        root.kids = [ConsumerModel(kids: [])]
        root.kids[0].kids = [ConsumerModel()]
        #expect(root.node.number == 7)
        #expect(root.kids[0].node.number == 7)
        #expect(root.kids[0].kids[0].node[NumberKey.self] == 7)
    }

    @Test func overrideClosureMayModifyTheBaseValue() {
        let root = ConsumerModel().withAnchor { $0.number += 10 }
        #expect(root.node.number == 11)
    }

    @Test func subtreeOverrideIsInheritedByDescendantsOnly() {
        let root = ConsumerModel().withAnchor { $0.number = 2 }
        let overridden = ConsumerModel().withDependencies { $0.number *= 5 }
        root.kids = [overridden, ConsumerModel()]
        overridden.kids = [ConsumerModel()]
        #expect(root.node.number == 2)
        #expect(overridden.node.number == 10)
        #expect(overridden.kids[0].node.number == 10)
        #expect(root.kids[1].node.number == 2)
    }

    @Test func nestedSubtreeOverridesApplyInOrder() {
        let root = ConsumerModel().withAnchor()
        let outer = ConsumerModel().withDependencies { $0.number = 3 }
        let inner = ConsumerModel().withDependencies { $0.number += 1 }
        outer.kids = [inner]
        root.kids = [outer]
        #expect(inner.node.number == 4)
    }

    @Test func aMovedModelKeepsTheDependenciesItWasAnchoredWith() {
        let root = ConsumerModel().withAnchor()
        root.kids = [
            ConsumerModel().withDependencies { $0.number = 5 },
            ConsumerModel().withDependencies { $0.number = 7 },
        ]
        let (from, to) = (root.kids[0], root.kids[1])
        let moving = ConsumerModel(kids: [ConsumerModel()])
        from.kids = [moving]
        #expect(moving.node.number == 5)
        root.node.transaction {
            from.kids = []
            to.kids = [moving]
        }
        // Resolved when it was anchored: it and its subtree, even models added to it later, keep
        // the overrides of the place it was anchored at.
        #expect(moving.lifetime == .anchored)
        #expect(moving.node.number == 5)
        #expect(moving.kids[0].node.number == 5)
        moving.kids.append(ConsumerModel())
        #expect(moving.kids[1].node.number == 5)
        // A new model added there reads the overrides of its place.
        to.kids.append(ConsumerModel())
        #expect(to.kids[1].node.number == 7)
    }

    @Test func aSharedModelKeepsTheDependenciesOfThePlaceItWasAnchoredAt() {
        let root = ConsumerModel().withAnchor()
        root.kids = [
            ConsumerModel().withDependencies { $0.number = 5 },
            ConsumerModel().withDependencies { $0.number = 7 },
        ]
        let shared = ConsumerModel()
        root.kids[0].kids = [shared]
        root.kids[1].kids = [shared]
        #expect(shared.node.number == 5)
        root.kids[0].kids = []   // loses its first place
        #expect(shared.lifetime == .anchored)
        #expect(shared.node.number == 5)
    }

    @Test func taskBodiesSeeTheModelsDependencies() async {
        let child = ConsumerModel().withDependencies {
            $0.factClient.fetch = { "\($0) from the subtree" }
        }
        let root = ConsumerModel().withAnchor { $0.factClient.fetch = { "\($0) from the root" } }
        root.kids = [child]
        root.loadFact()
        child.loadFact()
        #expect(await eventually { root.fact != "" && child.fact != "" })
        #expect(root.fact == "3 from the root")
        #expect(child.fact == "3 from the subtree")
    }

    @Test func uuidIsRandomLiveAndOverridable() {
        let live = ConsumerModel().withAnchor()
        #expect(live.node.uuid() != live.node.uuid())
        let counted = ConsumerModel().withAnchor { $0.uuid = .incrementing() }
        #expect(counted.node.uuid().uuidString == "00000000-0000-0000-0000-000000000000")
        #expect(counted.node.uuid().uuidString == "00000000-0000-0000-0000-000000000001")
        let fixed = UUID()
        let constant = ConsumerModel().withAnchor { $0.uuid = .constant(fixed) }
        #expect(constant.node.uuid() == fixed)
    }

    @Test func eachIncrementingGeneratorCountsOnItsOwn() {
        let first = UUIDGenerator.incrementing()
        let second = UUIDGenerator.incrementing()
        _ = first()
        #expect(first().uuidString.hasSuffix("000000000001"))
        #expect(second().uuidString.hasSuffix("000000000000"))
    }

    @Test func dateIsTheSystemDateLiveAndOverridable() {
        let before = Date()
        let live = ConsumerModel().withAnchor()
        let now = live.node.date.now
        #expect(now >= before && now <= Date())
        let fixed = Date(timeIntervalSince1970: 1_000)
        let constant = ConsumerModel().withAnchor { $0.date = .constant(fixed) }
        #expect(constant.node.date.now == fixed)
        #expect(constant.node.date() == fixed)
    }

    @Test func continuousClockIsLiveByDefaultAndOverridable() async throws {
        let live = ConsumerModel().withAnchor()
        #expect(live.node.continuousClock is ContinuousClock)
        let clock = ImmediateClock()
        let immediate = ConsumerModel().withAnchor { $0.continuousClock = clock }
        try await immediate.node.continuousClock.sleep(for: .seconds(3600))
        #expect(clock.now.offset == .seconds(3600))
    }

    @Test func immediateClockMovesNowToEachDeadline() async throws {
        let clock = ImmediateClock()
        let start = clock.now
        try await clock.sleep(until: start.advanced(by: .seconds(5)))
        #expect(clock.now == start.advanced(by: .seconds(5)))
        try await clock.sleep(until: start.advanced(by: .seconds(1)))
        #expect(clock.now == start.advanced(by: .seconds(5)))
        try await clock.sleep(for: .milliseconds(500))
        #expect(start.duration(to: clock.now) == .milliseconds(5_500))
    }

    @Test func immediateClockSleepThrowsWhenCancelled() async {
        let clock = ImmediateClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func modelDependencyIsOneSharedModelAnchoredOnFirstUse() {
        let log = Log()
        let root = ConsumerModel().withAnchor { $0[LogKey.self] = log }
        root.kids = [ConsumerModel()]
        #expect(log.all.isEmpty)
        let fromRoot = root.node[SettingsModel.self]
        let fromChild = root.kids[0].node[SettingsModel.self]
        #expect(fromRoot.lifetime == .anchored)
        #expect(fromRoot.id == fromChild.id)
        fromRoot.theme = "dark"
        #expect(fromChild.theme == "dark")
        #expect(root.node[SettingsModel.self].theme == "dark")
        #expect(log.all == ["activate settings"])
    }

    @Test func modelDependencyIsPerHierarchy() {
        let first = ConsumerModel().withAnchor()
        let second = ConsumerModel().withAnchor()
        #expect(first.node[SettingsModel.self].id != second.node[SettingsModel.self].id)
    }

    @Test func modelDependencyIsTornDownWithItsHierarchy() {
        var root: ConsumerModel? = ConsumerModel().withAnchor()
        let settings = root?.node[SettingsModel.self]
        #expect(settings?.lifetime == .anchored)
        root = nil
        #expect(root == nil)
        #expect(settings?.lifetime == .destructed)
    }

    @Test func modelDependencyFirstUsedWhileTheHierarchyIsTornDownIsNotAnchored() {
        let log = Log()
        // `model` is the root without its anchor: it does not keep the hierarchy alive.
        let model = ConsumerModel()
        var root: ConsumerModel? = model.withAnchor { $0[LogKey.self] = log }
        let settings = Locked<SettingsModel?>(nil)
        // The root's `onCancel` runs during the teardown, after the dependency models were torn down.
        model.node.onCancel { settings.value = model.node[SettingsModel.self] }
        root = nil
        #expect(root == nil && model.lifetime == .destructed)
        // Handed out as it is: not anchored, so nothing of it outlives its hierarchy.
        #expect(settings.value?.lifetime == .initial)
        #expect(log.all.isEmpty)
    }

    @Test func modelDependencyOverriddenAtTheAnchorIsAnchoredOnFirstUse() {
        let root = ConsumerModel().withAnchor { $0[ThemeModel.self] = ThemeModel(name: "dark") }
        root.kids = [ConsumerModel()]
        let theme = root.kids[0].node[ThemeModel.self]
        #expect(theme.name == "dark")
        #expect(theme.lifetime == .anchored)
        #expect(root.node[ThemeModel.self].id == theme.id)
    }

    @Test func subtreeOverrideOfAModelDependencyIsSeenOnlyBySubtree() {
        for subtreeReadsFirst in [false, true] {
            let root = ConsumerModel().withAnchor()
            let child = ConsumerModel().withDependencies { $0[ThemeModel.self] = ThemeModel(name: "dark") }
            root.kids = [child]
            let (fromRoot, fromChild) = subtreeReadsFirst
                ? { let c = child.node[ThemeModel.self]; return (root.node[ThemeModel.self], c) }()
                : (root.node[ThemeModel.self], child.node[ThemeModel.self])
            #expect(fromRoot.name == "light", "subtree reads first: \(subtreeReadsFirst)")
            #expect(fromChild.name == "dark", "subtree reads first: \(subtreeReadsFirst)")
        }
    }
}

/// A model dependency whose default is one stored instance (user error): every hierarchy gets it.
private struct StoredSettings: Model, DependencyKey {
    var node = ModelNode<Self>()
    @Tracked var volume = 1

    static let liveValue = StoredSettings()
    static let testValue = StoredSettings()

    static func register(_ r: inout ModelRegistrar<Self>) { r.track("volume", \.$volume) }
}

private struct StoredSettingsReader: Model {
    var node = ModelNode<Self>()

    var volume: Int { node[StoredSettings.self].volume }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

extension ReportedIssueTests {
    @Suite struct ForeignDependencyTests {
        @Test func aModelDependencyOfAnotherHierarchyIsReportedOnce() async {
            await IssueCapture.run(matching: "StoredSettings") { capture in
                let first = StoredSettingsReader().withAnchor()
                #expect(first.volume == 1)
                #expect(capture.messages.isEmpty)
                let second = StoredSettingsReader().withAnchor()
                _ = second.volume
                _ = second.volume
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix(
                    "StoredSettingsReader uses the dependency StoredSettings, a StoredSettings that belongs to another hierarchy (or was removed with it)"
                ) == true)
                #expect(capture.messages.first?.contains("`static var liveValue: StoredSettings { StoredSettings() }`") == true)
            }
        }
    }
}

/// A model dependency configured field by field in override closures.
private struct Session: Model, DependencyKey {
    static var liveValue: Session { Session() }

    var node = ModelNode<Self>()
    @Tracked var user = ""

    static func register(_ r: inout ModelRegistrar<Self>) { r.track("user", \.$user) }
}

private struct SessionReader: Model {
    var node = ModelNode<Self>()
    @Tracked var kids: [SessionReader] = []

    var user: String { node[Session.self].user }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track("kids", \.$kids) }
}

extension ReportedIssueTests {
    @Suite struct ModelDependencyOverrideTests {
        @Test func settingAFieldOfAModelDependencyReadInAnOverrideIsReported() async {
            await IssueCapture.run(matching: "model dependency Session") { capture in
                let root = SessionReader().withAnchor { $0[Session.self].user = "anchor" }
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.contains("`$0[Session.self] = Session(…)`") == true)
                #expect(root.user == "")
                // In a subtree, the model read is the one the whole hierarchy shares.
                root.kids = [SessionReader().withDependencies { $0[Session.self].user = "subtree" }]
                #expect(capture.messages.count == 2)
            }
        }

        @Test func aModelDependencySetInTheSameOverrideCanBeConfiguredFieldByField() async {
            await IssueCapture.run(matching: "model dependency Session") { capture in
                let root = SessionReader().withAnchor {
                    $0[Session.self] = Session()
                    $0[Session.self].user = "anchor"
                }
                #expect(root.user == "anchor")
                #expect(capture.messages.isEmpty)
            }
        }
    }
}
