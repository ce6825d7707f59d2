import ModelKit

/// Wakes waiting assertions when anything a predicate might depend on happens: a committed write,
/// a sent event, a probe call, the end of a task. Waiters re-evaluate their predicate; a spurious
/// wake-up costs one evaluation.
final class Activity: Sendable {
    static let shared = Activity()

    private struct State {
        var generation: UInt64 = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Protected(State())

    /// Increases with every signal.
    var generation: UInt64 {
        state.withLock { $0.generation }
    }

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until a signal newer than `generation`, or the deadline, or cancellation.
    func wait(after generation: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timeout = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.resume(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            self.resume(id)
        }
        timeout.cancel()
    }

    private func resume(_ id: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.resume()
    }
}
