import ModelKitTesting

/// A ``TestClock`` that tells the test when a task starts to sleep on it.
///
/// `advance(by:)` wakes the tasks already sleeping. A timer that `onActivate` is still starting
/// could miss the first advance and then wait a tick behind the test, more likely when the machine
/// is busy. So a test first waits for the timer's first sleep, then advances. Later advances need no
/// wait: a timer's deadlines are fixed when it starts, and a sleep until a deadline the clock has
/// already passed returns at once.
///
/// ```swift
/// await tester.assert(clock.hasSleeper(until: .seconds(1)))   // the timer is running
/// await clock.advance(by: .seconds(1))
/// ```
final class WatchedTestClock: Clock, Sendable {
    typealias Instant = TestClock.Instant

    private let base = TestClock()
    /// Called with each sleep's deadline, as an offset from the clock's start.
    private let sleeps = TestProbe("sleep")

    var now: Instant { base.now }

    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        sleeps.call(deadline.offset)
        try await base.sleep(until: deadline, tolerance: tolerance)
    }

    /// Moves time forward, waking the sleepers whose deadline is reached.
    func advance(by duration: Duration) async {
        await base.advance(by: duration)
    }

    /// Whether a task went to sleep until `offset` from the clock's start. Asserted, it waits for it
    /// (a sleep wakes waiting assertions, as a probe call does).
    func hasSleeper(until offset: Duration) -> Bool {
        sleeps.wasCalled(with: offset)
    }
}
