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
        /// The executor of the tested hierarchy whose task sleeps, if any.
        let executor: ObjectIdentifier?
    }

    private struct WeakExecutor {
        weak var executor: TesterExecutor?
    }

    private struct State {
        var now = Instant()
        var nextID = 0
        var sleepers: [Sleeper] = []
        /// The executors of the tested hierarchies whose tasks slept on this clock.
        var executors: [ObjectIdentifier: WeakExecutor] = [:]

        /// Removes the sleeper due first (the earliest deadline, then the first to sleep) if it is due
        /// by `deadline`, and moves `now` to its deadline; otherwise moves `now` to `deadline`.
        mutating func takeDue(by deadline: Instant) -> Sleeper? {
            var index: Int?
            for candidate in sleepers.indices where sleepers[candidate].deadline <= deadline {
                if let current = index, sleepers[current].deadline <= sleepers[candidate].deadline { continue }
                index = candidate
            }
            guard let index else {
                if now < deadline { now = deadline }
                return nil
            }
            let sleeper = sleepers.remove(at: index)
            if now < sleeper.deadline { now = sleeper.deadline }
            return sleeper
        }
    }

    private let state = Protected(State())

    /// A clock starting at `now`.
    public init(now: Instant = Instant()) {
        state.withLock { $0.now = now }
    }

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// Suspends until the clock is advanced to `deadline` (returns at once if it already is).
    ///
    /// Cancelling the sleeping task ends the sleep by throwing `CancellationError`, however close
    /// the cancellation comes to the start of the sleep.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let executor = TesterExecutor.current.value
        let executorID = executor.map(ObjectIdentifier.init)
        let (id, isNewExecutor) = state.withLock { state -> (Int, Bool) in
            state.nextID += 1
            // Also when the entry is of a freed executor whose address this one reuses.
            guard let executor, let executorID, state.executors[executorID]?.executor !== executor else {
                return (state.nextID, false)
            }
            state.executors[executorID] = WeakExecutor(executor: executor)
            return (state.nextID, true)
        }
        if isNewExecutor { executor?.noteSleeping(on: self) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Action { case wait, resume, cancel }
                let action = state.withLock { state -> Action in
                    // A cancellation that came before this point found no sleeper to resume; the
                    // task's flag is set before its handler runs, so it is seen here.
                    if Task.isCancelled { return .cancel }
                    if deadline <= state.now { return .resume }
                    state.sleepers.append(Sleeper(
                        id: id, deadline: deadline, continuation: continuation, executor: executorID))
                    return .wait
                }
                switch action {
                case .wait: break
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
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
    /// order, and letting its task run until it suspends again before waking the next.
    ///
    /// It first settles the tested hierarchies (see ``Tester/settle(timeout:isolation:)``), so a
    /// sleep that a task is about to start is not missed; "the tested hierarchies" are those of the
    /// testers of the running test and those whose tasks slept on this clock. Tasks that are not
    /// under a tester are woken in order but not waited for.
    public func advance(by duration: Duration = .zero, isolation: isolated (any Actor)? = #isolation) async {
        let target = now.advanced(by: duration)
        await advance(to: target)
    }

    /// Moves time forward to `deadline`. See ``advance(by:isolation:)``.
    public func advance(to deadline: Instant, isolation: isolated (any Actor)? = #isolation) async {
        await settleTestedHierarchies()
        while let due = state.withLock({ $0.takeDue(by: deadline) }) {
            due.continuation.resume()
            await settleTestedHierarchies()
        }
    }

    /// The earliest deadline among the sleeps of `executor`'s tasks and the clock's time (both as
    /// offsets from the clock's start), for the report of a task still running at the end of a test.
    func earliestSleep(of executor: TesterExecutor) -> (deadline: Duration, now: Duration)? {
        let id = ObjectIdentifier(executor)
        return state.withLock { state in
            state.sleepers.lazy.filter { $0.executor == id }.map(\.deadline).min()
                .map { ($0.offset, state.now.offset) }
        }
    }

    /// Advances until no task is sleeping on the clock.
    ///
    /// Work that always sleeps again (a repeating timer, a polling loop) would keep it going forever:
    /// after `maximumRounds` rounds of advancing to the latest sleeper it stops, and records a test
    /// failure saying so.
    ///
    /// ```swift
    /// recorder.startTapped()
    /// await clock.run()        // every sleep of the meeting's countdown is over
    /// ```
    public func run(
        maximumRounds: Int = 10_000,
        isolation: isolated (any Actor)? = #isolation,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) async {
        for _ in 0..<max(maximumRounds, 0) {
            await settleTestedHierarchies()
            let latest = state.withLock { $0.sleepers.map(\.deadline).max() }
            guard let latest else { return }
            await advance(to: latest)
        }
        await settleTestedHierarchies()
        guard state.withLock({ !$0.sleepers.isEmpty }) else { return }
        FailureRecording.record(
            """
            TestClock.run() stopped after \(maximumRounds) rounds (the clock is at \(now.offset)): a task \
            sleeps on the clock again each time it wakes, such as a repeating timer or a polling loop.

            To fix, either:
              • Advance by the time the test needs instead: `await clock.advance(by: .seconds(5))`.
              • Or end that work before running the clock (cancel the timer, or remove its model).
            """,
            at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Lets the tasks of the tested hierarchies run until each waits for something, passing until
    /// every executor is idle at once (a job of one may give work to another).
    private func settleTestedHierarchies(isolation: isolated (any Actor)? = #isolation) async {
        let testers = LiveTesters.ofCurrentTest
        var executors = testers.map(\.executor)
        let sleptHere = state.withLock { state -> [TesterExecutor] in
            state.executors = state.executors.filter { $0.value.executor != nil }
            return state.executors.values.compactMap(\.executor)
        }
        for executor in sleptHere where !executors.contains(where: { $0 === executor }) {
            executors.append(executor)
        }
        guard !executors.isEmpty else { return }
        let timeout = testers.map(\.timeout).max() ?? .seconds(1)
        let deadline = ContinuousClock.now + timeout
        repeat {
            for executor in executors {
                await executor.settle(until: deadline)
            }
        } while executors.contains(where: { !$0.isIdle }) && ContinuousClock.now < deadline
    }
}
