import ModelKit

/// A clock that moves only when the test says so.
///
/// Inject it as `continuousClock`; tasks sleeping on it wake, in deadline order, when the test
/// advances it.
///
/// ```swift
/// @Test func timerTicks() async {
///     let clock = TestClock()
///     let (meeting, tester) = RecordMeeting(standup: standup).andTester {
///         $0.continuousClock = clock
///     }
///     await clock.advance(by: .seconds(1))
///     await tester.assert(meeting.secondsElapsed == 1)
/// }
/// ```
public final class TestClock: Clock, Sendable {
    /// A point in a `TestClock`'s time: an offset from its start.
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the clock's start.
        public let offset: Duration

        public init(offset: Duration = .zero) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant()
        var nextID = 0
        var sleepers: [Sleeper] = []
    }

    private let state = Protected(State())

    /// A clock starting at `now`.
    public init(now: Instant = Instant()) {
        state.withLock { $0.now = now }
    }

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// Suspends until the clock is advanced to `deadline` (returns at once if it already is).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking each sleeper whose deadline is reached, in deadline
    /// order, and letting it run before moving on.
    public func advance(by duration: Duration = .zero) async {
        let target = now.advanced(by: duration)
        await advance(to: target)
    }

    /// Moves time forward to `deadline`. See ``advance(by:)``.
    public func advance(to deadline: Instant) async {
        while true {
            await yieldToWokenTasks()
            let due = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.indices.min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline }),
                      state.sleepers[index].deadline <= deadline
                else {
                    if state.now < deadline { state.now = deadline }
                    return nil
                }
                let sleeper = state.sleepers.remove(at: index)
                if state.now < sleeper.deadline { state.now = sleeper.deadline }
                return sleeper
            }
            guard let due else { break }
            due.continuation.resume()
        }
        await yieldToWokenTasks()
    }

    /// Advances until no task is sleeping on the clock.
    public func run() async {
        while true {
            await yieldToWokenTasks()
            let latest = state.withLock { $0.sleepers.map(\.deadline).max() }
            guard let latest else { return }
            await advance(to: latest)
        }
    }

    /// Gives tasks just woken a chance to run (and to sleep again) before time moves on.
    private func yieldToWokenTasks() async {
        for _ in 0..<20 { await Task.yield() }
    }
}
