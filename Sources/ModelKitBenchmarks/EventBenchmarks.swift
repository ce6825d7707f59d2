import ModelKit

// Sending events: with nobody listening (the cost every `send` pays), and to a listener on the
// parent that consumes them with `forEach`, against an `AsyncStream` yielded to and consumed by a
// task. A listening sample sends n events and ends once the listener has handled all n.

@MainActor
func eventScenarios() -> [Scenario] {
    [
        .timed("event send, no listener") {
            let root = Sender().withAnchor()
            let family = Listener().withAnchor()
            let child = family.sender
            return [
                Variant("ModelKit: root sends", target: Target(.nanoseconds(100))) { n in
                    measure {
                        for _ in 0..<n { root.ping() }
                    }
                },
                Variant("ModelKit: child sends, parent not listening", target: Target(.nanoseconds(100))) { n in
                    // The child does not keep its hierarchy alive; its anchored root does.
                    withExtendedLifetime(family) {
                        measure {
                            for _ in 0..<n { child.ping() }
                        }
                    }
                },
            ]
        },
        .timedWithTeardown("event send → handled by a listener on the parent") { teardown in
            let family = Listener().withAnchor()
            let handled = Counter()
            family.countPings(into: handled)
            let child = family.sender

            let (stream, continuation) = AsyncStream<Ping>.makeStream()
            let consumed = Counter()
            let consumer = Task.detached {
                for await _ in stream { consumed.increment() }
            }
            teardown.add {
                continuation.finish()
                await consumer.value
            }
            let baseline = "AsyncStream: yield → for await"
            return [
                Variant(
                    "ModelKit: child sends, parent's forEach handles", baseline: baseline,
                    target: Target(.baselineRatio(2))
                ) { n in
                    let goal = handled.value + n
                    let elapsed = await measure {
                        for _ in 0..<n { child.ping() }
                        await handled.wait(until: goal)
                    }
                    // The child does not keep its hierarchy alive; its anchored root does.
                    withExtendedLifetime(family) {}
                    return elapsed
                },
                Variant(baseline) { n in
                    let goal = consumed.value + n
                    return await measure {
                        for _ in 0..<n { continuation.yield(Ping()) }
                        await consumed.wait(until: goal)
                    }
                },
            ]
        },
        // Its own scenario: the one above starts consumer tasks, which valgrind cannot follow, and
        // this row is the one to count instructions on (Performance.md, "Profiling").
        .timed("event send to a listening parent, the sender's side") {
            let unread = Listener().withAnchor()
            let unreadChild = unread.sender
            return [
                Variant(
                    "ModelKit: child sends, parent's events not read yet (the sender's side)",
                    note: "The sending thread's part of \"send → handled\": the events wait in the stream's buffer."
                ) { n in
                    let stream = unread.node.event(ofType: Ping.self)
                    let elapsed = measure {
                        for _ in 0..<n { unreadChild.ping() }
                    }
                    // Dropped after the clock stopped: the buffered events are released untimed.
                    withExtendedLifetime(stream) {}
                    withExtendedLifetime(unread) {}
                    return elapsed
                },
            ]
        },
        // The other half of "send → handled", on one thread too, for callgrind: reading what waits in
        // the buffer costs the reader no wait, only taking the elements out.
        .timed("event stream read from its buffer, the reader's side") {
            let buffered = Listener().withAnchor()
            let bufferedChild = buffered.sender
            return [
                Variant(
                    "ModelKit: the parent reads the events its child sent (the reader's side)",
                    note: "The consuming task's part of \"send → handled\" without the loop's body: `next()` on a stream holding n events."
                ) { n in
                    let stream = buffered.node.event(ofType: Ping.self)
                    for _ in 0..<n { bufferedChild.ping() }
                    var iterator = stream.makeAsyncIterator()
                    var read = 0
                    let elapsed = await measure {
                        for _ in 0..<n where await iterator.next(isolation: #isolation) != nil { read &+= 1 }
                    }
                    precondition(read == n, "the stream lost events")
                    withExtendedLifetime(buffered) {}
                    return elapsed
                },
            ]
        },
    ]
}
