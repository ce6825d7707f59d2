import ModelKit
import Synchronization

// Reacting to change (API.md section 9): a memoized read, a write that invalidates a memo one
// observer follows, the writer's side of a `modifications` listener three levels up, `task(id:)`
// restarting per change against `forEach(cancelPrevious: true)`, and an untracked scan of 1,000
// children against a loop over plain structs under one lock.

/// A model with a memoized derived value.
struct Memoizing: Model {
    var node = ModelNode<Self>()
    @Tracked var a = 0

    var doubled: Int { node.memoize { a &* 2 } }

    /// Counts each change of the memoized value with `onChange`.
    func countChangesOfDoubled(into counter: Counter) {
        node.onChange(of: doubled) { _, _ in counter.increment() }
    }

    /// Counts each run of a `task(id: a)` body.
    func countRunsOfTaskID(into counter: Counter) {
        node.task(id: a) { _ in counter.increment() }
    }

    /// Counts each run of a `forEach(cancelPrevious: true)` body over the values of `a`.
    func countRunsOfForEach(into counter: Counter) {
        node.forEach(change(of: \.a, initial: false), cancelPrevious: true) { _ in counter.increment() }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$a)
    }
}

/// A chain of models, one child each.
struct Link: Model {
    var node = ModelNode<Self>()
    @Tracked var a = 0
    @Tracked var next: Link?

    init(depth: Int) {
        _next = Tracked(wrappedValue: depth > 0 ? Link(depth: depth - 1) : nil)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$a)
        r.track(\.$next)
    }
}

/// A plain struct with two Ints, for the scan's baseline.
struct PlainPair {
    var a = 0
    var b = 0
}

// The scans are nonisolated functions: a closure written inside the `@MainActor` scenario builder
// would be main-actor isolated, and Swift checks the executor on each of its calls (per child).

/// The sum of the children's `a`, read untracked.
func untrackedSumOfA(_ parent: Parent) -> Int {
    withUntrackedModelReads { parent.children.reduce(0) { $0 &+ $1.a } }
}

/// The sum of the structs' `a`, read under one lock.
func sumOfA(_ plain: borrowing Mutex<[PlainPair]>) -> Int {
    plain.withLock { $0.reduce(0) { $0 &+ $1.a } }
}

@MainActor
func reactionScenarios() -> [Scenario] {
    [
        .timed("memoized read, cached") {
            let model = Memoizing().withAnchor()
            _ = model.doubled
            let baseline = "ModelKit: m.a (a tracked read)"
            return [
                Variant("ModelKit: m.doubled (node.memoize)", baseline: baseline, target: Target(.baselineRatio(2))) { n in
                    var sum = 0
                    let elapsed = measure { for _ in 0..<n { sum &+= model.doubled } }
                    blackHole(sum)
                    return elapsed
                },
                Variant(baseline) { n in
                    var sum = 0
                    let elapsed = measure { for _ in 0..<n { sum &+= model.a } }
                    blackHole(sum)
                    return elapsed
                },
            ]
        },
        .timed("write that invalidates a memo with one observer") {
            let model = Memoizing().withAnchor()
            let changes = Counter()
            model.countChangesOfDoubled(into: changes)
            var written = 0
            return [
                Variant("ModelKit: m.a = i, onChange(of: m.doubled)", target: Target(.microseconds(1))) { n in
                    let start = written
                    written &+= n
                    let goal = changes.value + n
                    return await measure {
                        for i in 1...n { model.a = start &+ i }
                        await changes.wait(until: goal)
                    }
                },
            ]
        },
        .timed("write with a modifications listener three levels up") {
            let root = Link(depth: 3).withAnchor()
            let leaf = root.next!.next!.next!
            var written = 0
            return [
                Variant(
                    "ModelKit: leaf.a = i, root.node.modifications() not read yet (the writer's side)",
                    target: Target(.microseconds(1))
                ) { n in
                    let start = written
                    written &+= n
                    let modifications = root.node.modifications()
                    let elapsed = measure {
                        for i in 1...n { leaf.a = start &+ i }
                    }
                    blackHole(modifications)
                    return elapsed
                },
            ]
        },
        .timed("restart per change: task(id:) against forEach(cancelPrevious:)") {
            let restarted = Memoizing().withAnchor()
            let runs = Counter()
            restarted.countRunsOfTaskID(into: runs)
            let looped = Memoizing().withAnchor()
            let loopRuns = Counter()
            looped.countRunsOfForEach(into: loopRuns)
            var written = 0
            let baseline = "ModelKit: forEach(change(of: \\.a), cancelPrevious: true)"
            return [
                Variant("ModelKit: task(id: a)", baseline: baseline, target: Target(.baselineRatio(2))) { n in
                    let start = written
                    written &+= n
                    return await measure {
                        for i in 1...n {
                            let goal = runs.value + 1
                            restarted.a = start &+ i
                            await runs.wait(until: goal)
                        }
                    }
                },
                Variant(baseline) { n in
                    let start = written
                    written &+= n
                    return await measure {
                        for i in 1...n {
                            let goal = loopRuns.value + 1
                            looped.a = start &+ i
                            await loopRuns.wait(until: goal)
                        }
                    }
                },
            ]
        },
        .timed("scan 1,000 children") {
            let parent = Parent().withAnchor()
            parent.children = (0..<1_000).map { _ in Pair() }
            let plain = Mutex((0..<1_000).map { _ in PlainPair() })
            let baseline = "Mutex<[struct]>: withLock { sum of a }"
            return [
                Variant(
                    "ModelKit: withUntrackedModelReads { sum of children's a }", baseline: baseline,
                    target: Target(.baselineRatio(1.5)),
                    note: "Each child's value is its own cell, read under the hierarchy's lock one at a time."
                ) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n {
                            sum &+= untrackedSumOfA(parent)
                        }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant(baseline) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n {
                            sum &+= sumOfA(plain)
                        }
                    }
                    blackHole(sum)
                    return elapsed
                },
            ]
        },
    ]
}
