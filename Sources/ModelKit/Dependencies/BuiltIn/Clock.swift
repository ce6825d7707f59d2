/// A clock whose sleeps return at once, moving its `now` to the deadline.
///
/// It is the test value of `node.continuousClock`: a model that waits a second before saving saves
/// right away under a Tester, deterministically. Use ModelKitTesting's `TestClock` to control time
/// step by step instead.
///
/// ```swift
/// let (model, tester) = RecordMeeting(standup: .mock).andTester {
///     $0.continuousClock = ImmediateClock()
/// }
/// ```
public struct ImmediateClock: Clock, Sendable {
    /// A point in an `ImmediateClock`'s time: an offset from its start.
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

    private let current: Protected<Instant>

    /// A clock starting at `now`.
    public init(now: Instant = Instant()) {
        current = Protected(now)
    }

    public var now: Instant { current.value }

    public var minimumResolution: Duration { .zero }

    /// Moves `now` to `deadline` (if later) and returns after yielding once.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = Swift.max($0, deadline) }
        await Task.yield()
        try Task.checkCancellation()
    }
}

enum ContinuousClockKey: DependencyKey {
    static let liveValue: any Clock<Duration> = ContinuousClock()
    static var testValue: any Clock<Duration> { ImmediateClock() }
}

extension DependencyValues {
    /// The clock models sleep on: a `ContinuousClock` in apps, an ``ImmediateClock`` under a Tester.
    ///
    /// ```swift
    /// node.forEach(node.continuousClock.timer(interval: .seconds(1))) { _ in
    ///     secondsElapsed += 1
    /// }
    /// ```
    public var continuousClock: any Clock<Duration> {
        get { self[ContinuousClockKey.self] }
        set { self[ContinuousClockKey.self] = newValue }
    }
}
