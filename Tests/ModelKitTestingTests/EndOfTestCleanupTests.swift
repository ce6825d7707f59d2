import ModelKit
import ModelKitTesting
import Synchronization
import Testing

/// A model that resets its state when its work ends, in `onCancel` or in a task's `defer`.
private struct Connection: Model {
    var node = ModelNode<Self>()
    @Tracked var connected = true
    @Tracked var loading = false

    func onActivate() {
        node.onCancel { connected = false }
        node.task {
            loading = true
            defer { loading = false }
            // Suspended until cancelled: the stream ends its iteration then.
            let (stream, continuation) = AsyncStream<Void>.makeStream()
            for await _ in stream {}
            continuation.finish()
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$connected)
        r.track(\.$loading)
    }
}

/// A model that tells its parent when its work ends.
private struct Session: Model {
    var node = ModelNode<Self>()

    enum Event { case ended }

    func onActivate() {
        node.onCancel { node.send(Event.ended) }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

private struct Screen: Model {
    var node = ModelNode<Self>()
    @Tracked var connection: Connection?

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$connection) }
}

private struct PlayerScreen: Model {
    var node = ModelNode<Self>()
    @Tracked var player: Player?

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$player) }
}

/// A row that asks its list to delete it.
private struct Row: Model {
    var node = ModelNode<Self>()
    let id: Int

    enum Event: Equatable, Sendable { case delete }

    func deleteTapped() { node.send(Event.delete) }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// Deletes the rows that ask for it, from a listener started in `onActivate`.
private struct Rows: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [Row] = []

    func onActivate() {
        node.forEach(node.event(fromType: Row.self)) { event, row in
            if event == .delete { rows.removeAll { $0.id == row.id } }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$rows) }
}

/// A child whose work its parent's `onActivate` starts.
private struct Listening: Model {
    var node = ModelNode<Self>()

    func startListening() {
        node.task {
            let (stream, continuation) = AsyncStream<Never>.makeStream()
            for await _ in stream {}
            continuation.finish()
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

private struct ListeningParent: Model {
    var node = ModelNode<Self>()
    @Tracked var child = Listening()

    func onActivate() { child.startListening() }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$child) }
}

/// Loads until stopped: the load resets `loading` as it unwinds.
private struct Loader: Model {
    var node = ModelNode<Self>()
    @Tracked var loading = false
    enum LoadID {}

    func loadTapped() {
        node.task {
            loading = true
            defer { loading = false }
            try await node.continuousClock.sleep(for: .seconds(10))
        }
        .cancel(for: LoadID.self)
    }

    func stopTapped() { node.cancelAll(for: LoadID.self) }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$loading) }
}

/// Saves from a task its `onCancel` handler starts.
private struct Autosaver: Model {
    var node = ModelNode<Self>()
    @Tracked var saved = false

    func onActivate() {
        node.onCancel {
            node.task {
                // Work of several steps, which goes on after the handler returned.
                for _ in 0..<100 { await Task.yield() }
                saved = true
            }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$saved) }
}

/// A player whose sound stops when its work ends, through a dependency's closure.
private struct Player: Model {
    var node = ModelNode<Self>()

    func onActivate() {
        node.onCancel { node.playerSound.stop() }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

private struct PlayerSound: DependencyKey, Sendable {
    var stop: @Sendable () -> Void
    static let liveValue = PlayerSound(stop: {})
}

extension DependencyValues {
    fileprivate var playerSound: PlayerSound { get { self[PlayerSound.self] } set { self[PlayerSound.self] = newValue } }
}

/// What the end of a test does to the models (cancelling the work of `onActivate`) is not the
/// test's to assert: no assertion can follow it.
@Suite struct EndOfTestCleanupTests {
    @Test func cleanupInOnCancelAtTheEndOfATestIsNotRequiredToBeAsserted() async {
        let (connection, tester) = Connection().andTester()
        await tester.assert {
            connection.connected
            connection.loading
        }
        await tester.finish()
    }

    @Test func whatATaskStartedByOnCancelAtTheEndOfATestDoesIsNotRequiredToBeAsserted() async {
        // On every run, whether the task's steps run before or after the handler has returned.
        for _ in 0..<20 {
            let (autosaver, tester) = Autosaver().andTester()
            await tester.finish()
            #expect(autosaver.saved, "the task ran")
        }
    }

    @Test func anEventSentByOnCancelAtTheEndOfATestIsNotRequiredToBeAsserted() async {
        let (_, tester) = Session().andTester()
        await tester.finish()
    }

    @Test func aProbeCallByOnCancelAtTheEndOfATestIsNotRequiredToBeAsserted() async {
        let stops = TestProbe("stop")
        let (_, tester) = Player().andTester { $0.playerSound.stop = { stops.call() } }
        tester.install(stops)
        await tester.finish()
        #expect(stops.callCount == 1, "the handler ran, and its call is counted")
    }

    @Test func aProbeCallByOnCancelWhenTheTestRemovesTheModelIsReported() async {
        let stops = TestProbe("stop")
        let (screen, tester) = PlayerScreen().andTester { $0.playerSound.stop = { stops.call() } }
        tester.install(stops)
        screen.player = Player()
        screen.player = nil
        await withKnownIssue {
            await tester.assert(screen.player == nil)
        } matching: { issue in
            text(issue).hasPrefix("Probe calls were not asserted:\n\n  stop()\n")
        }
        await tester.finish()
    }

    @Test func cleanupAtTheEndOfATestReleasedWithoutFinishIsNotRequiredToBeAsserted() async {
        var tester: Tester?
        var connection: Connection?
        (connection, tester) = Connection().andTester()
        await tester?.assert { connection?.loading == true }
        tester = nil
        #expect(connection?.lifetime == .destructed)
    }

    @Test func aListenersReactionToTheLastActionIsReportedOnEveryRun() async {
        let reported = Mutex(0)
        for _ in 0..<20 {
            await withKnownIssue {
                let (list, tester) = Rows().andTester()
                list.rows = [Row(id: 1), Row(id: 2)]
                await tester.assert(list.rows.count == 2)
                let row = list.rows[0]
                row.deleteTapped()
                // Passes at once: the event is recorded; the list's removal is queued behind it.
                await tester.assert(row.didSend(.delete))
                await tester.finish()
            } matching: { issue in
                guard "\(issue)".contains("Rows.rows: [[0]: Row(id: 1), [1]: Row(id: 2)] → [[0]: Row(id: 2)]") else {
                    return false
                }
                reported.withLock { $0 += 1 }
                return true
            }
        }
        #expect(reported.withLock { $0 } == 20)
    }

    @Test func whatATaskTheLastActionCancelledDoesAsItUnwindsIsReportedOnEveryRun() async {
        let reported = Mutex(0)
        for _ in 0..<20 {
            await withKnownIssue {
                let clock = TestClock()
                let (loader, tester) = Loader().andTester { $0.continuousClock = clock }
                loader.loadTapped()
                await tester.assert(loader.loading)
                loader.stopTapped()
                await tester.finish()
            } matching: { issue in
                guard text(issue).hasPrefix("State changes were not asserted:\n\n  Loader.loading: true → false\n")
                else { return false }
                reported.withLock { $0 += 1 }
                return true
            }
        }
        #expect(reported.withLock { $0 } == 20)
    }

    @Test func workAParentsOnActivateStartsOnItsChildIsCancelledAtTheEnd() async {
        let (_, tester) = ListeningParent().andTester()
        await tester.finish()
    }

    @Test func cleanupInOnCancelWhenTheModelIsRemovedWritesNothingAndReportsNothing() async {
        let (screen, tester) = Screen().andTester()
        let connection = Connection()
        screen.connection = connection
        await tester.assert {
            screen.connection?.connected == true
            screen.connection?.loading == true
        }
        screen.connection = nil
        await tester.assert(screen.connection == nil)
        #expect(connection.connected, "a destructed model keeps its last state")
        await tester.finish()
    }
}
