import ModelKit
import Observation
import Synchronization

// Reading and writing a tracked property of an anchored model, against an `@Observable` class and a
// `Mutex`-guarded struct. Each loop sums what it reads into a checksum handed to `blackHole`.

/// The state of a `Pair`, behind a `Mutex`: the naive thread-safe baseline.
///
/// Its accessors are nonisolated methods: a `withLock` closure written in the main-actor benchmark
/// bodies would inherit main-actor isolation and pay a dynamic isolation check on every call.
final class MutexPair: Sendable {
    struct State {
        var a = 0
        var b = 0
    }

    private let state = Mutex(State())

    var a: Int {
        get { state.withLock { $0.a } }
        set { state.withLock { $0.a = newValue } }
    }
}

/// A naive thread-safe tracked property: a `Mutex` plus Observation's registrar, the simplest
/// design that does what a tracked property does.
final class NaiveTrackedPair: Observable, Sendable {
    private let registrar = ObservationRegistrar()
    private let state = Mutex(MutexPair.State())

    var a: Int {
        get {
            registrar.access(self, keyPath: \.a)
            return state.withLock { $0.a }
        }
        set {
            registrar.withMutation(of: self, keyPath: \.a) {
                state.withLock { $0.a = newValue }
            }
        }
    }
}

@MainActor
func readWriteScenarios() -> [Scenario] {
    [
        .timed("tracked read, anchored, no observer") {
            let model = Pair().withAnchor()
            let object = ObservablePair()
            let locked = MutexPair()
            let naive = NaiveTrackedPair()
            return [
                Variant("ModelKit: m.a", baseline: "@Observable: o.a", target: Target(.baselineRatio(2), .nanoseconds(30))) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= model.a }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant("@Observable: o.a") { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= object.a }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant("Mutex<struct>: withLock { $0.a }", baseline: "@Observable: o.a") { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= locked.a }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant("naive tracked: registrar.access + Mutex", baseline: "@Observable: o.a") { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= naive.a }
                    }
                    blackHole(sum)
                    return elapsed
                },
            ]
        },
        .timed("tracked read inside withObservationTracking") {
            let model = Pair().withAnchor()
            let object = ObservablePair()
            // One tracking scope per sample: each scope leaves one registration behind until the
            // property changes, and nothing here writes it.
            return [
                Variant("ModelKit: m.a", baseline: "@Observable: o.a", target: Target(.baselineRatio(2))) { n in
                    var sum = 0
                    let elapsed = measure {
                        withObservationTracking {
                            for _ in 0..<n { sum &+= model.a }
                        } onChange: {}
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant("@Observable: o.a") { n in
                    var sum = 0
                    let elapsed = measure {
                        withObservationTracking {
                            for _ in 0..<n { sum &+= object.a }
                        } onChange: {}
                    }
                    blackHole(sum)
                    return elapsed
                },
            ]
        },
        .timed("tracked write, no observer") {
            let model = Pair().withAnchor()
            let object = ObservablePair()
            let locked = MutexPair()
            let naive = NaiveTrackedPair()
            // Every write stores a new value, so none is skipped as equal to the current one.
            var written = 0
            return [
                Variant("ModelKit: m.a = i", baseline: "@Observable: o.a = i", target: Target(.baselineRatio(2), .nanoseconds(60))) { n in
                    let start = written
                    written &+= n
                    return measure {
                        for i in 1...n { model.a = start &+ i }
                    }
                },
                Variant("@Observable: o.a = i") { n in
                    let start = written
                    written &+= n
                    return measure {
                        for i in 1...n { object.a = start &+ i }
                    }
                },
                Variant("Mutex<struct>: withLock { $0.a = i }", baseline: "@Observable: o.a = i") { n in
                    let start = written
                    written &+= n
                    return measure {
                        for i in 1...n { locked.a = start &+ i }
                    }
                },
                Variant("naive tracked: registrar.withMutation + Mutex", baseline: "@Observable: o.a = i") { n in
                    let start = written
                    written &+= n
                    return measure {
                        for i in 1...n { naive.a = start &+ i }
                    }
                },
            ]
        },
        .timed("tracked compound update (+= 1), no observer") {
            let model = Pair().withAnchor()
            let object = ObservablePair()
            return [
                Variant("ModelKit: m.a += 1", baseline: "@Observable: o.a += 1") { n in
                    measure {
                        for _ in 0..<n { model.a += 1 }
                    }
                },
                Variant("@Observable: o.a += 1") { n in
                    measure {
                        for _ in 0..<n { object.a += 1 }
                    }
                },
            ]
        },
    ]
}
