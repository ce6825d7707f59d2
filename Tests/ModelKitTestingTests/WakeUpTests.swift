import Foundation
import ModelKit
@testable import ModelKitTesting
import Testing

/// Wake-ups are keyed: a waiting assertion is woken by its own hierarchy, the hierarchies its
/// predicate read and the probes it consulted, and by nothing else.
@Suite struct WakeUpTests {
    @Test func anotherTestersWritesDoNotWakeAnAssertion() async {
        let (mine, myTester) = Counter().andTester()
        let (other, otherTester) = Counter().andTester()
        let evaluations = Protected(0)
        let waiting = Task {
            await myTester.assert(timeout: .seconds(30)) {
                evaluations.withLock { $0 += 1; return $0 } > 0 && mine.count == 1
            }
        }
        await waitUntil { myTester.state.activity.waiterCount == 1 }
        let before = evaluations.value
        for _ in 0..<100 { other.incrementTapped() }
        // The other hierarchy's writes woke nobody: the assertion is still parked, not re-evaluated.
        #expect(myTester.state.activity.waiterCount == 1)
        #expect(evaluations.value == before)
        mine.incrementTapped()
        await waiting.value
        await otherTester.assert(other.count == 100)
        await myTester.finish()
        await otherTester.finish()
    }

    @Test func aPredicateReadingAnotherHierarchyWaitsOnItToo() async {
        let (mine, myTester) = Counter().andTester()
        let (other, otherTester) = Counter().andTester()
        otherTester.exhaustivity = .off
        let waiting = Task {
            await myTester.assert(timeout: .seconds(30)) {
                mine.count == 0
                other.count == 1
            }
        }
        await waitUntil { otherTester.state.activity.waiterCount == 1 && myTester.state.activity.waiterCount == 1 }
        other.incrementTapped()
        await waiting.value
        await myTester.finish()
        await otherTester.finish()
    }

    @Test func aProbeCallWakesOnlyTheAssertionsThatConsultedIt() async {
        let consulted = TestProbe("consulted")
        let unrelated = TestProbe("unrelated")
        let (_, tester) = Counter().andTester()
        let waiting = Task {
            await tester.assert(consulted.wasCalled(with: 7), timeout: .seconds(30))
        }
        await waitUntil { consulted.activity.waiterCount == 1 }
        #expect(unrelated.activity.waiterCount == 0)
        unrelated.call(7)
        #expect(consulted.activity.waiterCount == 1)
        consulted.call(7)
        await waiting.value
        #expect(consulted.activity.waiterCount == 0)
        await tester.finish()
    }

    @Test func aWaitEndsAtItsDeadlineAndLeavesNoWaiterBehind() async {
        let activity = Activity()
        await Activity.wait(for: [activity.mark], until: .now + .milliseconds(10))
        #expect(activity.waiterCount == 0)
        let stale = activity.mark
        activity.signal()
        // A signal after the mark: the wait returns at once.
        await Activity.wait(for: [stale], until: .now + .seconds(30))
        #expect(activity.waiterCount == 0)
    }
}

/// Releasing a tester without `finish()` does not wait for suspended tasks.
@Suite struct ReleaseTests {
    @Test func releaseReportsATaskWaitingOutsideWithoutWaitingForIt() async {
        var start = ContinuousClock.now
        await withKnownIssue {
            let (waiter, tester) = Waiter().andTester()
            tester.timeout = .seconds(30)
            waiter.startWaiting()
            await tester.settle()
            start = .now
        } matching: { issue in
            text(issue).hasPrefix("""
            A task of Waiter started here was still running when the test ended.

            The tester was released without `await tester.finish()`, so it did not wait for the task: \
            a released tester only runs the hierarchy's ready jobs, it does not wait for work outside it.

            To fix, either:
              • End the test with `await tester.finish()`, which waits for running tasks up to the timeout.
            """)
        }
        // Far below the 30 s timeout the old blocking release waited.
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func releaseRunsTheJobsTheLastActionQueued() async {
        // The task needs 20 more jobs when the tester goes: the release runs them (or waits out the
        // one the executor's thread is running), so nothing is reported still running.
        let (sleeper, tester) = Sleeper().andTester(exhaustivity: .tasks)
        sleeper.work("queued", steps: 20)
        withExtendedLifetime(tester) {}
    }

    @Test func releaseDoesNotReportCancelledActivationWork() async {
        let clock = TestClock()
        do {
            let (ticker, tester) = Ticker().andTester { $0.continuousClock = clock }
            await clock.advance(by: .seconds(1))
            await tester.assert(ticker.ticks == 1)
        }
    }
}

/// Yields until `condition` holds (a condition, not a sleep).
func waitUntil(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}
