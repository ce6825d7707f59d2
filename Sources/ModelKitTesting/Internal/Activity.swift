import ModelKit

/// Wakes the assertions waiting on one source of change: a tester's hierarchy (a committed write,
/// a sent event, the end of a task, a failure kept for the test's task) or one ``TestProbe`` (a
/// call). Each tester and each probe has its own, so a signal wakes only the assertions that depend
/// on it: those of the tester whose hierarchy changed, those whose predicate read a model of that
/// hierarchy, and those whose predicate consulted the probe. A woken waiter re-evaluates its
/// predicate; a spurious wake-up costs one evaluation.
final class Activity: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [ObjectIdentifier: Waiter] = [:]
    }

    private let state = Protected(State())

    /// Increases with every signal.
    var generation: UInt64 {
        state.withLock { $0.generation }
    }

    /// This activity at its current generation, to wait for a later signal.
    var mark: Mark {
        Mark(activity: self, generation: generation)
    }

    /// Wakes the waiters of this activity, and only them.
    func signal() {
        let waiters = state.withLock { state -> [Waiter] in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How many waiters are registered now (tests check that a signal leaves others asleep).
    var waiterCount: Int {
        state.withLock { $0.waiters.count }
    }

    /// Registers `waiter` unless a signal came after `generation`; returns false in that case.
    private func add(_ waiter: Waiter, after generation: UInt64) -> Bool {
        state.withLock { state in
            guard state.generation == generation else { return false }
            state.waiters[ObjectIdentifier(waiter)] = waiter
            return true
        }
    }

    private func remove(_ waiter: Waiter) {
        _ = state.withLock { $0.waiters.removeValue(forKey: ObjectIdentifier(waiter)) }
    }

    /// An activity and the generation a waiter has seen of it.
    struct Mark: Sendable {
        let activity: Activity
        let generation: UInt64
    }

    /// Suspends until any of `marks`' activities signals after its generation, or the deadline, or
    /// cancellation. It never blocks the thread: the deadline is a sleeping task, cancelled on return.
    static func wait(for marks: [Mark], until deadline: ContinuousClock.Instant) async {
        let waiter = Waiter()
        let timeout = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            waiter.resume()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.set(continuation)
                if Task.isCancelled { waiter.resume() }
                for mark in marks where !mark.activity.add(waiter, after: mark.generation) {
                    waiter.resume()
                    break
                }
            }
        } onCancel: {
            waiter.resume()
        }
        timeout.cancel()
        for mark in marks { mark.activity.remove(waiter) }
    }
}

/// One suspended wait; resumed once, by whichever comes first (a signal, the deadline, cancellation).
private final class Waiter: Sendable {
    private enum Phase {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case resumed
    }

    private let phase = Protected(Phase.idle)

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = phase.withLock { phase -> Bool in
            guard case .idle = phase else { return true }
            phase = .waiting(continuation)
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func resume() {
        let continuation = phase.withLock { phase -> CheckedContinuation<Void, Never>? in
            defer { phase = .resumed }
            guard case .waiting(let continuation) = phase else { return nil }
            return continuation
        }
        continuation?.resume()
    }
}
