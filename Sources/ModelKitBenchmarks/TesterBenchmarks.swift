import Foundation
import ModelKit
import ModelKitTesting

// The Tester: an assert whose predicate already holds, an assert that waits for a task (it must
// return as soon as the predicate holds, not after a poll or the timeout), and an assert that never
// holds (it must fail after its timeout). Outside a test framework the failure is written to standard
// error and counted in `Tester.failuresOutsideTestFrameworks`: the benchmark checks the count and
// silences the messages, which are expected.

@MainActor
func testerScenarios() -> [Scenario] {
    [
        .timed("tester: assert on a value set synchronously") {
            [
                Variant("ModelKit: m.a = i; await tester.assert(m.a == i)", target: Target(.microseconds(20))) { n in
                    let (model, tester) = Pair().andTester()
                    let elapsed = await measure {
                        for i in 1...n {
                            model.a = i
                            await tester.assert(model.a == i)
                        }
                    }
                    await tester.finish()
                    return elapsed
                },
            ]
        },
        .timed("tester: settle() on a quiescent hierarchy") {
            [
                Variant("ModelKit: await tester.settle(), no task runnable", target: Target(.microseconds(20))) { n in
                    let (model, tester) = Pair().andTester()
                    model.a = 1
                    await tester.assert(model.a == 1)
                    let elapsed = await measure {
                        for _ in 1...n {
                            await tester.settle()
                        }
                    }
                    await tester.finish()
                    return elapsed
                },
            ]
        },
        .timed("tester: 1,000 TestClock ticks, each followed by an assert", iterations: .fixed(5)) {
            [
                Variant(
                    "ModelKit: await clock.advance(by: 1 s); await tester.assert(m.ticks == i), 1,000 times",
                    target: Target(.milliseconds(100))
                ) { n in
                    var total = Duration.zero
                    for _ in 0..<n {
                        let clock = TestClock()
                        let (ticker, tester) = TickingModel().andTester { $0.continuousClock = clock }
                        total += await measure {
                            for tick in 1...1_000 {
                                await clock.advance(by: .seconds(1))
                                await tester.assert(ticker.ticks == tick)
                            }
                        }
                        await tester.finish()
                    }
                    return total
                },
            ]
        },
        .timed("tester: assert waiting for a task's 5 ms of work", iterations: .fixed(10)) {
            let work = Duration.milliseconds(5)
            let baseline = "the work alone: await Task.detached { 5 ms }.value"
            return [
                Variant(
                    "ModelKit: task works, sets isDone; await tester.assert(m.isDone)", baseline: baseline,
                    target: Target(.baselineRatio(1.5), .milliseconds(100))
                ) { n in
                    var total = Duration.zero
                    for _ in 0..<n {
                        let (worker, tester) = Worker().andTester()
                        total += await measure {
                            worker.start(work: work)
                            await tester.assert(worker.isDone)
                        }
                        await tester.finish()
                    }
                    return total
                },
                Variant(baseline) { n in
                    await measure {
                        for _ in 0..<n {
                            await Task.detached { spin(for: work) }.value
                        }
                    }
                },
            ]
        },
        .timed("tester: failing assert with timeout: .milliseconds(100)", iterations: .fixed(1)) {
            [
                Variant(
                    "ModelKit: await tester.assert(m.a == 1, timeout: 100 ms), never true",
                    target: Target(.between(100e6, 150e6)),
                    note: "Each failure is counted in Tester.failuresOutsideTestFrameworks (its message, on standard error, is silenced here)."
                ) { n in
                    let (model, tester) = Pair().andTester()
                    let failuresBefore = Tester.failuresOutsideTestFrameworks
                    let elapsed = await withStandardErrorSilenced {
                        await measure {
                            for _ in 0..<n {
                                await tester.assert(model.a == 1, timeout: .milliseconds(100))
                            }
                        }
                    }
                    await tester.finish()
                    let failures = Tester.failuresOutsideTestFrameworks - failuresBefore
                    if failures != n {
                        FileHandle.standardError.write(Data("tester: \(n) failing asserts reported \(failures) failures\n".utf8))
                    }
                    return elapsed
                },
            ]
        },
    ]
}

/// Counts the ticks of a one-second timer on the model's clock, started in `onActivate`.
private struct TickingModel: Model {
    var node = ModelNode<Self>()
    @Tracked var ticks = 0

    func onActivate() {
        node.forEach(node.continuousClock.timer(interval: .seconds(1))) { _ in
            ticks += 1
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("ticks", \.$ticks)
    }
}

/// Runs `body` with standard error sent to /dev/null (the expected failure messages of a row).
@MainActor
private func withStandardErrorSilenced<R>(_ body: () async -> R) async -> R {
    let saved = dup(STDERR_FILENO)
    let null = open("/dev/null", O_WRONLY)
    guard saved >= 0, null >= 0 else { return await body() }
    dup2(null, STDERR_FILENO)
    close(null)
    defer {
        dup2(saved, STDERR_FILENO)
        close(saved)
    }
    return await body()
}
