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
    ]
}
