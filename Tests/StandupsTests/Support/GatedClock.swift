import Synchronization

/// A clock whose sleeps wait until the test opens it, and return at once from then on, as an
/// `ImmediateClock`'s do.
///
/// It lets a test set the stage before time runs: work that sleeps (a meeting's timer) waits until
/// what must come first (the transcript) has come, whatever the order the tasks run in.
///
/// ```swift
/// await tester.assert(meeting.transcript == "I completed the project")
/// clock.open()   // the meeting now runs to its end at once
/// ```
final class GatedClock: Clock, Sendable {
    struct Instant: InstantProtocol, Sendable {
        let offset: Duration

        func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var isOpen = false
        var nextID = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }

    var minimumResolution: Duration { .zero }

    /// Lets every sleep, now and from now on, end at once.
    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Waits until the clock is open, then moves `now` to `deadline` (if later).
    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
        try Task.checkCancellation()
        state.withLock { $0.now = max($0.now, deadline) }
        await Task.yield()
        try Task.checkCancellation()
    }
}
