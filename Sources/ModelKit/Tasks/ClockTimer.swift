extension Clock where Duration == Swift.Duration {
    /// Ticks every `interval`: the n-th tick falls at start + n·interval, start being the clock's `now`
    /// when `timer` is called, so late ticks do not drift.
    ///
    /// Works on any clock, including `node.continuousClock` (an `any Clock<Duration>`):
    ///
    /// ```swift
    /// node.forEach(node.continuousClock.timer(interval: .seconds(1))) { _ in
    ///     secondsElapsed += 1
    /// }
    /// ```
    ///
    /// - Returns: A sequence of the time elapsed at each tick (`interval`, `2 * interval`, …). It ends
    ///   by throwing `CancellationError` when the consuming task is cancelled.
    public func timer(interval: Swift.Duration) -> ClockTimer {
        let start = now
        return ClockTimer(interval: interval) { tick in
            try await self.sleep(until: start.advanced(by: interval * tick), tolerance: nil)
        }
    }
}

/// The ticks of ``Clock/timer(interval:)``.
public struct ClockTimer: AsyncSequence, Sendable {
    public typealias Element = Duration

    let interval: Duration
    let sleepUntilTick: @Sendable (Int) async throws -> Void

    init(interval: Duration, sleepUntilTick: @escaping @Sendable (Int) async throws -> Void) {
        self.interval = interval
        self.sleepUntilTick = sleepUntilTick
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(timer: self)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let timer: ClockTimer
        var tick = 0

        public mutating func next() async throws -> Duration? {
            tick += 1
            try await timer.sleepUntilTick(tick)
            return timer.interval * tick
        }
    }
}
