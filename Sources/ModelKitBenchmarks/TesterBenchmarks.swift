import ModelKit
import ModelKitTesting

// The Tester: an assert whose predicate already holds, an assert that waits for a task (it must
// return as soon as the predicate holds, not after a poll or the timeout), and an assert that never
// holds (it must fail after its timeout). Outside a test framework the failure is written to standard
// error and counted in `Tester.failuresOutsideTestFrameworks`.

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
                    note: "Outside a test framework the failure is written to standard error and counted."
                ) { n in
                    let (model, tester) = Pair().andTester()
                    let elapsed = await measure {
                        for _ in 0..<n {
                            await tester.assert(model.a == 1, timeout: .milliseconds(100))
                        }
                    }
                    await tester.finish()
                    return elapsed
                },
            ]
        },
    ]
}
