import ModelKit
import Testing

/// A connection that announces its end: from its `onCancel` handler, and from the `defer` of a task
/// that runs until it is cancelled.
private struct ClosingConnection: Model {
    enum Event: Sendable, Equatable {
        case closed
        case stopped
    }

    var node = ModelNode<Self>()
    @Tracked var connected = false
    let unwound = Locked(false)

    func onActivate() {
        connected = true
        node.onCancel {
            connected = false
            node.send(.closed)
        }
    }

    func listen(started: Gate) {
        node.task {
            defer {
                node.send(.stopped)
                unwound.value = true
            }
            await waitForCancellation(waiting: { started.open() })
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$connected)
    }
}

private struct ConnectionHost: Model {
    var node = ModelNode<Self>()
    @Tracked var connection: ClosingConnection? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$connection)
    }
}

extension ReportedIssueTests {
    @Suite struct SendAsAModelEndsTests {
        @Test func aRemovedModelsOwnEndingWorkSendsWithoutAReport() async {
            await IssueCapture.run(matching: "ClosingConnection") { capture in
                let host = ConnectionHost().withAnchor()
                let connection = ClosingConnection()
                host.connection = connection
                let started = Gate()
                connection.listen(started: started)
                await started.enter()

                host.connection = nil

                #expect(await eventually { connection.unwound.value })
                #expect(connection.lifetime == .destructed)
                // Like the write beside it in `onCancel`, each send is dropped quietly.
                #expect(capture.messages.isEmpty)
            }
        }

        @Test func sendingFromARemovedModelOutsideItsOwnWorkIsStillReported() async {
            await IssueCapture.run(matching: "ClosingConnection") { capture in
                let host = ConnectionHost().withAnchor()
                let connection = ClosingConnection()
                host.connection = connection
                host.connection = nil
                let sent = Locked(false)
                host.node.task {
                    connection.node.send(.closed)
                    sent.value = true
                }

                #expect(await eventually { sent.value })
                #expect(capture.messages == ["""
                    ClosingConnection sent closed after it was removed from its hierarchy; the event was not \
                    delivered.

                    To fix: Send events from models that are still anchored; check `lifetime == .anchored` in \
                    long-lived callbacks.
                    """])
            }
        }
    }
}
