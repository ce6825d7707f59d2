import ModelKit
import Observation

// A write that one observer sees: ModelKit's `onChange` (called on the writing thread once the write
// commits) and `change(of:)` (a stream consumed by a task), against an `@Observable` class observed by
// `withObservationTracking` that re-registers on every change. Each sample writes n distinct values
// and ends once the observer has seen all n.

@MainActor
func observerScenarios() -> [Scenario] {
    [
        .timed("write with one observer") {
            let observed = Pair().withAnchor()
            let changes = Counter()
            observed.countChangesOfA(into: changes)

            let streamed = Pair().withAnchor()
            let values = Counter()
            streamed.countStreamedValuesOfA(into: values)

            let buffered = Pair().withAnchor()

            let object = ObservablePair()
            let notifications = Counter()
            observeRepeatedly(object, counting: notifications)

            var written = 0
            return [
                Variant(
                    "ModelKit: m.a = i, onChange", baseline: "@Observable: o.a = i, withObservationTracking",
                    target: Target(.microseconds(1))
                ) { n in
                    let start = written
                    written &+= n
                    let goal = changes.value + n
                    return await measure {
                        for i in 1...n { observed.a = start &+ i }
                        await changes.wait(until: goal)
                    }
                },
                Variant(
                    "ModelKit: m.a = i, change(of:) → forEach", baseline: "@Observable: o.a = i, withObservationTracking",
                    target: Target(.microseconds(1))
                ) { n in
                    let start = written
                    written &+= n
                    let goal = values.value + n
                    return await measure {
                        for i in 1...n { streamed.a = start &+ i }
                        await values.wait(until: goal)
                    }
                },
                Variant(
                    "ModelKit: m.a = i, change(of:) not read yet (the writer's side)",
                    note: "The writing thread's part of the row above: the values wait in the stream's buffer."
                ) { n in
                    let start = written
                    written &+= n
                    let stream = buffered.change(of: \.a, initial: false)
                    let elapsed = measure {
                        for i in 1...n { buffered.a = start &+ i }
                    }
                    // Dropped after the clock stopped: the buffered values are released untimed.
                    withExtendedLifetime(stream) {}
                    return elapsed
                },
                Variant("@Observable: o.a = i, withObservationTracking") { n in
                    let start = written
                    written &+= n
                    let goal = notifications.value + n
                    return await measure {
                        for i in 1...n { object.a = start &+ i }
                        await notifications.wait(until: goal)
                    }
                },
            ]
        },
    ]
}

/// Observes `object.a` with `withObservationTracking`, re-registering each time it fires, as code that
/// follows an `@Observable` value over time does.
@MainActor
func observeRepeatedly(_ object: ObservablePair, counting counter: Counter) {
    withObservationTracking {
        _ = object.a
    } onChange: {
        counter.increment()
        // The handler runs inside the write, on the writing thread: the benchmark's main actor.
        MainActor.assumeIsolated {
            observeRepeatedly(object, counting: counter)
        }
    }
}
