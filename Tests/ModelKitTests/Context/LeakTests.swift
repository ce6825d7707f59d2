import ModelKit
import Testing

/// A tracked value that is not plain data: it holds a token.
private struct Payload: Sendable {
    let token: LifetimeTracker.Token
}

private struct TokenBox: Sendable {
    let token: LifetimeTracker.Token?
}

private enum TokenKey: DependencyKey {
    static let liveValue = TokenBox(token: nil)
}

/// An event that holds a token, matched by `event(of:)`.
private struct TokenEvent: Sendable, Equatable {
    let token: LifetimeTracker.Token
    static func == (lhs: TokenEvent, rhs: TokenEvent) -> Bool { lhs.token === rhs.token }
}

/// A model whose `onActivate` starts every kind of work, each capturing the model (and so its token).
private struct LeakyModel: Model {
    var node = ModelNode<Self>()
    let id: String
    let token: LifetimeTracker.Token
    @Tracked var count = 0
    @Tracked var payload: Payload? = nil
    @Tracked var kids: [LeakyModel] = []

    init(_ id: String, token: LifetimeTracker.Token) {
        self.id = id
        self.token = token
    }

    func onActivate() {
        node.task {
            _ = self.count
            await waitForCancellation()
        }
        node.forEach(change(of: \.count)) { _ in _ = self.token }
        node.forEach(node.event(ofType: Int.self)) { _ in _ = self.count }
        node.forEach(node.observe { count + kids.count }) { _ in _ = self.id }
        node.onChange(of: \.count) { _, _ in _ = self.token }
        node.onCancel { _ = self.token }
        node.task { _ = self.token } catch: { _ in _ = self.token }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("payload", \.$payload)
        r.track("kids", \.$kids)
    }
}

@Suite struct LeakTests {
    @Test func removedModelAndEverythingItCapturedIsFreed() async {
        let tracker = LifetimeTracker()
        let root = LeakyModel("root", token: tracker.token()).withAnchor()
        do {
            let child = LeakyModel("child", token: tracker.token())
            child.kids = [LeakyModel("grandchild", token: tracker.token())]
            root.kids = [child]
            child.count = 1
            child.payload = Payload(token: tracker.token())
            child.node.send(1)
        }
        #expect(tracker.liveCount == 4)
        root.kids = []
        #expect(await eventually { tracker.liveCount == 1 }, "live: \(tracker.liveCount)")
        withExtendedLifetime(root) {}
    }

    @Test func hierarchyIsFreedWithItsAnchor() async {
        let tracker = LifetimeTracker()
        do {
            let root = LeakyModel("root", token: tracker.token()).withAnchor {
                $0[TokenKey.self] = TokenBox(token: tracker.token())
            }
            root.kids = [LeakyModel("a", token: tracker.token()), LeakyModel("b", token: tracker.token())]
            root.kids[0].kids = [LeakyModel("a.0", token: tracker.token())]
            root.payload = Payload(token: tracker.token())
            root.kids[1].count = 3
            _ = root.node[TokenKey.self]
        }
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
    }

    @Test func replacedTrackedValueIsFreedAtOnce() {
        let tracker = LifetimeTracker()
        let root = LeakyModel("root", token: tracker.token()).withAnchor()
        root.payload = Payload(token: tracker.token())
        #expect(tracker.liveCount == 2)
        root.payload = nil
        #expect(tracker.liveCount == 1)
    }

    @Test func sharedModelIsFreedWithItsLastPlace() async {
        let tracker = LifetimeTracker()
        let root = LeakyModel("root", token: tracker.token()).withAnchor()
        root.kids = [LeakyModel("a", token: tracker.token()), LeakyModel("b", token: tracker.token())]
        do {
            let shared = LeakyModel("shared", token: tracker.token())
            root.kids[0].kids = [shared]
            root.kids[1].kids = [shared]
        }
        root.kids[0].kids = []
        #expect(tracker.liveCount == 4)
        root.kids[1].kids = []
        #expect(await eventually { tracker.liveCount == 3 }, "live: \(tracker.liveCount)")
    }

    @Test func modelDependencyIsFreedWithItsHierarchy() async {
        let tracker = LifetimeTracker()
        do {
            let root = LeakyModel("root", token: tracker.token()).withAnchor {
                $0[TokenKey.self] = TokenBox(token: tracker.token())
            }
            let settings = root.node[TrackedSettings.self]
            settings.count = 1
        }
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
    }

    @Test func frozenCopyDoesNotKeepTheLiveHierarchy() async {
        let tracker = LifetimeTracker()
        let frozen: LeakyModel
        do {
            let root = LeakyModel("root", token: tracker.token()).withAnchor {
                $0[TokenKey.self] = TokenBox(token: tracker.token())
            }
            frozen = root.frozenCopy
        }
        #expect(await eventually { tracker.liveCount == 1 }, "live: \(tracker.liveCount)")
        #expect(frozen.lifetime == .frozen)
    }

    @Test func hierarchyWithAContinuedChildIsFreed() async {
        let tracker = LifetimeTracker()
        do {
            let root = LeakyModel("root", token: tracker.token()).withAnchor {
                $0[TokenKey.self] = TokenBox(token: tracker.token())
            }
            root.kids = [LeakyModel("a", token: tracker.token())]
            root.kids = [LeakyModel("a", token: tracker.token())]
        }
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
    }

    @Test func hierarchyIsFreedAfterAStreamOfTheRootWasDropped() async {
        let tracker = LifetimeTracker()
        do {
            let root = LeakyModel("root", token: tracker.token()).withAnchor()
            var iterator = root.change(of: \.count).makeAsyncIterator()
            _ = await iterator.next()
        }
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
    }

    /// The observer behind `change(of:)` belongs to the root's context; called on the value
    /// `withAnchor` returned, it must not keep that value (and so the hierarchy) alive.
    @Test func aChangeStreamOnTheAnchoringValueEndsWhenTheHierarchyIsReleased() async {
        let tracker = LifetimeTracker()
        weak var hierarchy: Hierarchy?
        let counts: Collector<Int>
        let payloads: Collector<Payload?>
        do {
            let root = LeakyModel("root", token: tracker.token()).withAnchor()
            hierarchy = root.hierarchy
            #expect(hierarchy != nil)
            counts = Collector(root.change(of: \.count))         // Equatable: distinct values
            payloads = Collector(root.change(of: \.payload))     // not Equatable: every write
            root.count = 1
            #expect(await counts.waitForCount(2))
            #expect(await payloads.waitForCount(1))
        }
        #expect(await eventually { counts.isFinished && payloads.isFinished })
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
        #expect(await eventually { hierarchy == nil })
    }

    @Test func droppedObserveStreamReleasesWhatItsExpressionCaptured() async {
        let tracker = LifetimeTracker()
        let root = LeakyModel("root", token: tracker.token()).withAnchor()
        do {
            let token = tracker.token()
            var iterator = root.node.observe { _ = token; return root.count }.makeAsyncIterator()
            _ = await iterator.next()
        }
        #expect(await eventually { tracker.liveCount == 1 }, "live: \(tracker.liveCount)")
    }

    @Test func droppedEventStreamReleasesItsListener() async {
        let tracker = LifetimeTracker()
        let root = LeakyModel("root", token: tracker.token()).withAnchor()
        do {
            let stream = root.node.event(of: TokenEvent(token: tracker.token()))
            _ = stream
        }
        #expect(await eventually { tracker.liveCount == 1 }, "live: \(tracker.liveCount)")
    }

    @Test func cancelledTaskReleasesWhatItCaptured() async {
        let tracker = LifetimeTracker()
        let root = LeakyModel("root", token: tracker.token()).withAnchor()
        do {
            let token = tracker.token()
            let work = root.node.task {
                _ = token
                await waitForCancellation()
            }
            work.cancel()
        }
        #expect(await eventually { tracker.liveCount == 1 }, "live: \(tracker.liveCount)")
    }
}

/// A model used as a dependency; its work captures it.
private struct TrackedSettings: Model, DependencyKey {
    static var liveValue: TrackedSettings { TrackedSettings() }

    var node = ModelNode<Self>()
    @Tracked var count = 0

    func onActivate() {
        let box = node[TokenKey.self]
        node.task {
            _ = box
            await waitForCancellation()
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }

    @Test func activationAndDependencyClosuresAreReleasedOnceApplied() async {
        let tracker = LifetimeTracker()
        let root = LeakyModel("root", token: tracker.token()).withAnchor()
        do {
            let activationToken = tracker.token()
            let dependencyToken = tracker.token()
            let child = LeakyModel("child", token: tracker.token())
                .withActivation { _ in _ = activationToken }
                .withDependencies { _ = dependencyToken; $0[TokenKey.self] = TokenBox(token: nil) }
            root.kids = [child]
        }
        #expect(await eventually { tracker.liveCount == 2 }, "live: \(tracker.liveCount)")
    }

    /// A teardown of more models than one chunk of a teardown batch holds (4,096) keeps the rest
    /// in further chunks: every value is released after the work, and nothing it held outlives
    /// the teardown.
    @Test func aLargeTeardownReleasesEveryModelValue() async {
        let tracker = LifetimeTracker()
        let root = HeldTokenList(token: tracker.token()).withAnchor()
        root.rows = (0..<5_000).map { HeldTokenRow(key: $0, token: tracker.token()) }
        #expect(tracker.liveCount == 5_001)
        root.rows = []
        #expect(tracker.liveCount == 1, "live: \(tracker.liveCount)")
        root.rows = (0..<4_500).map { HeldTokenRow(key: $0, token: tracker.token()) }
        #expect(tracker.liveCount == 4_501)
        _ = consume root
        #expect(tracker.liveCount == 0, "live: \(tracker.liveCount)")
    }
}

/// A row holding a token in a `let` (released only with its model value).
private struct HeldTokenRow: Model {
    var node = ModelNode<Self>()
    let key: Int
    let token: LifetimeTracker.Token
    @Tracked var count = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$count)
    }
}

private struct HeldTokenList: Model {
    var node = ModelNode<Self>()
    let token: LifetimeTracker.Token
    @Tracked var rows: [HeldTokenRow] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$rows)
    }
}
