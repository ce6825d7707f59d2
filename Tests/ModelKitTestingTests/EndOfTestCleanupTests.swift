import ModelKit
import ModelKitTesting
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

    @Test func anEventSentByOnCancelAtTheEndOfATestIsNotRequiredToBeAsserted() async {
        let (_, tester) = Session().andTester()
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
