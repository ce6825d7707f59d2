import ModelKit
import Synchronization

// Reading a dependency from a model, against a `Mutex`-guarded dictionary lookup (what a naive
// thread-safe dependency container does).

/// Dependencies by key type, behind a `Mutex`.
final class MutexDependencies: Sendable {
    let values = Mutex<[ObjectIdentifier: any Sendable]>([ObjectIdentifier(Answer.self): Answer.liveValue])

    func value<Key: DependencyKey>(_ key: Key.Type) -> Key.Value {
        values.withLock { $0[ObjectIdentifier(key)] } as! Key.Value
    }
}

@MainActor
func dependencyScenarios() -> [Scenario] {
    [
        .timed("dependency read") {
            let reader = DependencyReader().withAnchor()
            let overriding = DependencyReader().withAnchor { $0.answer = 7 }
            let dictionary = MutexDependencies()
            let baseline = "Mutex<[ObjectIdentifier: any Sendable]>: lookup + cast"
            return [
                Variant("ModelKit: node.answer (live value)", baseline: baseline, target: Target(.nanoseconds(50))) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= reader.answerByMember() }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant("ModelKit: node[Answer.self] (live value)", baseline: baseline, target: Target(.nanoseconds(50))) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= reader.answerByKey() }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant("ModelKit: node.answer (overridden at the root)", baseline: baseline, target: Target(.nanoseconds(50))) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= overriding.answerByMember() }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant(baseline) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= dictionary.value(Answer.self) }
                    }
                    blackHole(sum)
                    return elapsed
                },
            ]
        },
    ]
}
