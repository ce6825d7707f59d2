import ModelKit
import ModelKitTesting
import Testing

@Suite struct TestClockTests {
    @Test func advanceWakesSleepersInOrder() async throws {
        let clock = TestClock()
        let order = Protected<[Int]>([])
        let first = Task {
            try await clock.sleep(for: .seconds(2))
            order.withLock { $0.append(2) }
        }
        let second = Task {
            try await clock.sleep(for: .seconds(1))
            order.withLock { $0.append(1) }
        }
        await clock.advance(by: .seconds(3))
        try await first.value
        try await second.value
        #expect(order.withLock { $0 } == [1, 2])
        #expect(clock.now.offset == .seconds(3))
    }

    @Test func sleepReturnsAtOnceWhenDeadlinePassed() async throws {
        let clock = TestClock()
        await clock.advance(by: .seconds(5))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
    }

    @Test func cancellingASleeperThrows() async {
        let clock = TestClock()
        let task = Task { try await clock.sleep(for: .seconds(1)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func timerTicksAsTheClockAdvances() async {
        let clock = TestClock()
        let (ticker, tester) = Ticker().andTester { $0.continuousClock = clock }
        for expected in 1...3 {
            await clock.advance(by: .seconds(1))
            await tester.assert(ticker.ticks == expected)
        }
    }

    @Test func runAdvancesUntilNoSleepers() async throws {
        let clock = TestClock()
        let task = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.run()
        try await task.value
        #expect(clock.now.offset == .seconds(10))
    }
}
