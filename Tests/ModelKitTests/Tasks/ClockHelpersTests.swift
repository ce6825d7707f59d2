import ModelKit
import Testing

private struct TickerModel: Model {
    var node = ModelNode<Self>()
    @Tracked var ticks: [Duration] = []

    func onActivate() {
        node.forEach(node.continuousClock.timer(interval: .seconds(1)).prefix(3)) { elapsed in
            ticks.append(elapsed)
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("ticks", \.$ticks)
    }
}

@Suite struct ClockHelpersTests {
    @Test func timerOnAnExistentialImmediateClockYieldsElapsedDurations() async throws {
        let immediate = ImmediateClock()
        let clock: any Clock<Duration> = immediate
        var elapsed: [Duration] = []
        for try await tick in clock.timer(interval: .milliseconds(250)) {
            elapsed.append(tick)
            if elapsed.count == 4 { break }
        }
        #expect(elapsed == [.milliseconds(250), .milliseconds(500), .milliseconds(750), .seconds(1)])
        #expect(immediate.now.offset == .seconds(1))
    }

    @Test func timerDrivenByAModelsClockDependency() async {
        let model = TickerModel().withAnchor { $0.continuousClock = ImmediateClock() }
        #expect(await eventually { model.ticks.count == 3 })
        #expect(model.ticks == [.seconds(1), .seconds(2), .seconds(3)])
    }

    @Test func timerTicksFallAtStartPlusMultiplesOfTheInterval() async {
        let manual = ManualClock()
        let clock: any Clock<Duration> = manual
        manual.advance(by: .seconds(10))
        let ticks = Collector(clock.timer(interval: .seconds(1)))
        #expect(await eventually { manual.sleeperCount == 1 })
        manual.advance(by: .milliseconds(1_500))
        #expect(await ticks.waitForCount(1))
        #expect(await eventually { manual.sleeperCount == 1 })
        // A drifting timer would sleep until 11.5 s + 1 s; this one wakes at 12 s.
        manual.advance(by: .milliseconds(500))
        #expect(await ticks.waitForCount(2))
        #expect(ticks.elements == [.seconds(1), .seconds(2)])
        ticks.cancel()
        #expect(await ticks.waitForFinish())
        #expect(manual.sleeperCount == 0)
    }

    @Test func timerEndsWhenTheConsumingTaskIsCancelled() async {
        let manual = ManualClock()
        let ticks = Collector(manual.timer(interval: .seconds(1)))
        #expect(await eventually { manual.sleeperCount == 1 })
        ticks.cancel()
        #expect(await ticks.waitForFinish())
        #expect(ticks.elements.isEmpty)
    }

    @Test func debounceEmitsTheLastElementAfterAQuietInterval() async {
        let manual = ManualClock()
        let clock: any Clock<Duration> = manual
        let (base, input) = AsyncStream<Int>.makeStream()
        let output = Collector(base.debounce(for: .seconds(1), clock: clock))
        input.yield(1)
        #expect(await eventually { manual.sleeperCount == 1 })
        manual.advance(by: .milliseconds(500))
        input.yield(2)
        #expect(await eventually { manual.sleepCount == 2 && manual.sleeperCount == 1 })
        manual.advance(by: .milliseconds(500))
        // Only a sleeper woken by this advance could emit; `advance` wakes sleepers before it
        // returns, and the one sleeper (due at 1.5 s) still sleeps.
        #expect(manual.sleeperCount == 1)
        #expect(output.elements.isEmpty)
        manual.advance(by: .milliseconds(500))
        #expect(await output.waitForCount(1))
        #expect(output.elements == [2])
        output.cancel()
    }

    @Test func debounceEmitsThePendingElementWhenTheBaseEnds() async {
        let manual = ManualClock()
        let (base, input) = AsyncStream<Int>.makeStream()
        let output = Collector(base.debounce(for: .seconds(1), clock: manual))
        input.yield(1)
        #expect(await eventually { manual.sleeperCount == 1 })
        manual.advance(by: .seconds(1))
        #expect(await output.waitForCount(1))
        input.yield(2)
        #expect(await eventually { manual.sleepCount == 2 })
        input.finish()
        #expect(await output.waitForFinish())
        #expect(output.elements == [1, 2])
    }

    @Test func debounceOnAnImmediateClockEmitsTheLastElement() async {
        let (base, input) = AsyncStream<Int>.makeStream()
        let output = Collector(base.debounce(for: .seconds(5), clock: ImmediateClock()))
        input.yield(7)
        input.finish()
        #expect(await output.waitForFinish())
        #expect(output.elements.last == 7)
    }

    @Test func debounceForwardsTheBasesError() async {
        struct Failure: Error {}
        let (base, input) = AsyncThrowingStream<Int, any Error>.makeStream()
        let debounced = base.debounce(for: .seconds(1), clock: ManualClock())
        input.finish(throwing: Failure())
        await #expect(throws: Failure.self) {
            for try await _ in debounced {}
        }
    }
}
