import ModelKit
import Testing

/// A value the live model no longer holds or reads (replaced by a continuation, an environment value
/// removed, a preference contribution removed) is not kept alive by ModelKit's storage.
@Suite struct RemovedValueLifetimeTests {
    @Test func aContinuedModelsValueCapturingItsFirstInstanceIsFreedWithTheModel() async {
        let tracker = LifetimeTracker()
        let shelf = Bin().withAnchor()
        do {
            shelf.items = [Item(id: 1, token: tracker.token())]
            let first = shelf.items[0]
            first.action = { _ = first.count }
            // A refresh: the new instance continues the first, whose cells now forward to its own.
            shelf.items = [Item(id: 1)]
            shelf.items = []
        }
        #expect(await tracker.allFreed())
    }

    @Test func aRemovedEnvironmentValueIsFreedAlthoughADescendantReadIt() async {
        let tracker = LifetimeTracker()
        let shelf = Bin(items: [Item(id: 1)]).withAnchor()
        shelf.node.environment.session = Session(token: tracker.token())
        #expect(shelf.items[0].node.environment.session != nil)
        #expect(shelf.node.environment.session != nil)
        shelf.node.removeEnvironment(\.session)
        #expect(await tracker.allFreed())
        #expect(shelf.items[0].node.environment.session == nil)
    }

    @Test func aRemovedPreferenceContributionIsFreedAlthoughAnAncestorReadIt() async {
        let tracker = LifetimeTracker()
        let shelf = Bin(items: [Item(id: 1)]).withAnchor()
        shelf.items[0].node.preference.sessions = [Session(token: tracker.token())]
        #expect(shelf.node.preference.sessions.count == 1)
        shelf.items[0].node.removePreference(\.sessions)
        #expect(await tracker.allFreed())
        #expect(shelf.node.preference.sessions.isEmpty)
    }
}

private final class Session: Sendable {
    let token: LifetimeTracker.Token
    init(token: LifetimeTracker.Token) { self.token = token }
}

private struct SessionKey: ModelEnvironmentKey { static let defaultValue: Session? = nil }

private struct SessionsKey: ModelPreferenceKey {
    static let defaultValue: [Session] = []
    static func reduce(value: inout [Session], nextValue: [Session]) { value += nextValue }
}

extension ModelEnvironmentValues {
    fileprivate var session: Session? { get { self[SessionKey.self] } set { self[SessionKey.self] = newValue } }
}

extension ModelPreferenceValues {
    fileprivate var sessions: [Session] { get { self[SessionsKey.self] } set { self[SessionsKey.self] = newValue } }
}

private struct Item: Model, Identifiable {
    var node = ModelNode<Self>()
    let id: Int
    let token: LifetimeTracker.Token?
    @Tracked var count = 0
    @Tracked var action: @Sendable () -> Void = {}

    init(id: Int, token: LifetimeTracker.Token? = nil) {
        self.id = id
        self.token = token
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$count)
        r.track(\.$action)
    }
}

private struct Bin: Model {
    var node = ModelNode<Self>()
    @Tracked var items: [Item] = []

    init(items: [Item] = []) {
        self.items = items
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$items)
    }
}
