import Foundation
import ModelKit
import ModelKitTesting
import Synchronization
import Testing

@Suite struct ExhaustivityTests {
    @Test func unassertedStateFailsAfterAnAssert() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        model.name = "b"
        await withKnownIssue {
            await tester.assert(model.count == 1)
        } matching: { issue in
            text(issue) == """
            State changes were not asserted:

              Counter.name: "a" → "b"

            To fix, either:
              • Assert the new values in a `tester.assert { … }` after the action that changes them.
              • Or stop requiring state assertions: `tester.exhaustivity.remove(.state)`.
            """
        }
    }

    @Test func aChangeOfAModelRemovedSinceIsAssertedThroughAHandleKeptFromBefore() async {
        let (parent, tester) = Parent().andTester()
        parent.counters = [Counter()]
        await tester.assert(parent.counters.count == 1)
        let row = parent.counters[0]
        row.name = "b"
        parent.counters = []
        await tester.assert {
            parent.counters.isEmpty
            row.name == "b"
        }
        await tester.finish()
    }

    @Test func changedAndChangedBackPrintsTheWholeChain() async {
        let (model, tester) = Counter().andTester()
        model.name = "b"
        model.name = "a"
        model.incrementTapped()
        await withKnownIssue {
            await tester.assert(model.count == 1)
        } matching: { issue in
            text(issue).contains("  Counter.name: \"a\" → \"b\" → \"a\"\n")
        }
    }

    @Test func aLongChainShowsItsFirstAndLastValues() async {
        let (model, tester) = Counter().andTester()
        for _ in 0..<100 { model.incrementTapped() }
        model.name = "b"
        await withKnownIssue {
            await tester.assert(model.name == "b")
        } matching: { issue in
            text(issue).contains("  Counter.count: 0 → 1 → 2 → 3 → 4 → … 91 more values … → 96 → 97 → 98 → 99 → 100\n")
        }
    }

    @Test func childChangesShowTheirPath() async throws {
        let (parent, tester) = Parent().andTester()
        parent.addTapped()
        parent.addTapped()
        let second = try await tester.unwrap(parent.counters.count == 2 ? parent.counters[1] : nil)
        second.incrementTapped()
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue).contains("  Parent.counters[1].count: 0 → 1\n")
        }
    }

    @Test func endOfTestFailuresAreReportedAtAndTester() async {
        let line = #line + 1
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            issue.sourceLocation?.line == line
        }
    }

    @Test func releasingTheTesterChecksExhaustivity() {
        withKnownIssue {
            let (model, tester) = Counter().andTester()
            model.incrementTapped()
            _ = tester
        } matching: { issue in
            text(issue).hasPrefix("State changes were not asserted:")
        }
    }

    @Test func unassertedEventsFail() async {
        let (model, tester) = Counter().andTester()
        model.rename("b")
        await withKnownIssue {
            await tester.assert(model.name == "b")
        } matching: { issue in
            text(issue) == """
            Events were not asserted:

              Counter sent .renamed("b")

            To fix, either:
              • Assert each event with `model.didSend(…)` in a `tester.assert { … }`.
              • Or stop requiring event assertions: `tester.exhaustivity.remove(.events)`.
            """
        }
    }

    @Test func unassertedProbeCallsFail() async {
        let onValue = TestProbe("onValue")
        let onPing = TestProbe("onPing")
        let (caller, tester) = Caller(onValue: onValue.call, onPing: onPing.call).andTester()
        tester.install(onValue)
        tester.install(onPing)
        caller.send(2)
        caller.ping()
        await withKnownIssue {
            await tester.assert(onPing.wasCalled())
            await tester.finish()
        } matching: { issue in
            text(issue) == """
            Probe calls were not asserted:

              onValue(2, "#2")

            To fix, either:
              • Assert each call with `probe.wasCalled(with: …)` in a `tester.assert { … }`.
              • Or stop requiring probe assertions: `tester.exhaustivity.remove(.probes)`.
            """
        }
    }

    @Test func relaxedExhaustivitySkipsWhatItExcludes() async {
        let (model, tester) = Counter().andTester(exhaustivity: [.events])
        model.incrementTapped()
        model.name = "b"
        await tester.assert(model.count == 1)
        model.rename("c")
        await tester.assert(model.didSend(.renamed("c")))
        tester.exhaustivity = .off
        model.rename("d")
        await tester.finish()
    }

    @Test func offExhaustivityChecksOnlyWhatIsAsserted() async {
        let (model, tester) = Counter().andTester(exhaustivity: .off)
        tester.showSkippedAssertions = true
        model.incrementTapped()
        model.rename("x")
        await tester.assert(model.count == 1)
    }

    @Test func taskStillRunningIsReportedWhereItStarted() async {
        let (waiter, tester) = Waiter().andTester()
        tester.timeout = .milliseconds(20)
        waiter.startWaiting()
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue) == """
            A task of Waiter started here was still running when the test ended.

            To fix, either:
              • Wait for its work before the test ends, e.g. `await tester.assert { … }` on the state it changes.
              • Cancel it in the model (`node.cancelAll(for:)`), or start it from `onActivate`, whose work the tester cancels.
              • Or stop requiring finished tasks: `tester.exhaustivity.remove(.tasks)`.
            """ && issue.sourceLocation?.fileName == "TestModels.swift"
        }
    }

    @Test func aNamedTaskStillRunningIsReportedByItsName() async {
        let (waiter, tester) = Waiter().andTester()
        tester.timeout = .milliseconds(20)
        waiter.startWaiting(name: "Poll the server")
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue).hasPrefix("""
            The task "Poll the server" of Waiter started here was still running when the test ended.
            """)
        }
    }

    @Test func aCancelledTaskThatHasNotEndedIsReportedAsStillRunning() async {
        let release = Release()
        let (waiter, tester) = StubbornWaiter().andTester()
        tester.timeout = .milliseconds(20)
        waiter.startWaiting(for: release)
        await tester.assert(waiter.isWaiting)
        waiter.stopWaiting()
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue) == """
            A task of StubbornWaiter started here was still running when the test ended, although it was cancelled.

            To fix, either:
              • Let cancellation end it: `try await` what it waits for, or check `Task.isCancelled` in its loops.
              • Or stop requiring finished tasks: `tester.exhaustivity.remove(.tasks)`.
            """ && issue.sourceLocation?.fileName == "ExhaustivityTests.swift"
        }
        release.open()
    }

    /// Removing the child cancelled its task, which goes on regardless. Work started in activation
    /// (`withActivation`, like `onActivate`) is reported too: unlike the activation work the end
    /// of the test cancels, it had the whole rest of the test to end.
    @Test(arguments: [false, true])
    func aRemovedModelsTaskThatHasNotEndedIsReportedAsStillRunning(startedInActivation: Bool) async {
        let release = Release()
        let (parent, tester) = StubbornWaiter().andTester()
        tester.timeout = .milliseconds(20)
        if startedInActivation {
            parent.child = StubbornWaiter().withActivation { $0.startWaiting(for: release) }
        } else {
            parent.child = StubbornWaiter()
            parent.child?.startWaiting(for: release)
        }
        await tester.assert { parent.child?.isWaiting == true }
        parent.child = nil
        await tester.assert(parent.child == nil)
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue).hasPrefix("""
            A task of StubbornWaiter started here was still running when the test ended, although it was cancelled.
            """) && issue.sourceLocation?.fileName == "ExhaustivityTests.swift"
        }
        release.open()
    }

    @Test func aLiveModelsActivationWorkStillUnwindingAtTheEndIsNotReported() async {
        let release = Release()
        let (parent, tester) = StubbornWaiter().andTester()
        tester.timeout = .milliseconds(20)
        parent.child = StubbornWaiter().withActivation { $0.startWaiting(for: release) }
        await tester.assert { parent.child?.isWaiting == true }
        await tester.finish()
        release.open()
    }

    @Test func activationWorkIsCancelledAtTheEnd() async {
        let clock = TestClock()
        let (ticker, tester) = Ticker().andTester { $0.continuousClock = clock }
        await clock.advance(by: .seconds(1))
        await tester.assert(ticker.ticks == 1)
        await tester.finish()
    }

    @Test func tasksExcludedFromExhaustivityAreNotReported() async {
        let (waiter, tester) = Waiter().andTester(exhaustivity: [.state, .events, .probes])
        tester.timeout = .milliseconds(10)
        waiter.startWaiting()
        await tester.finish()
    }

    @Test func withExhaustivityRelaxesOnlyItsScope() async {
        let (model, tester) = Counter().andTester()
        await tester.withExhaustivity(.off) {
            model.incrementTapped()
            model.rename("b")
            await tester.assert(model.count == 1)
            model.incrementTapped()
        }
        #expect(tester.exhaustivity == .full)
        model.rename("c")
        await withKnownIssue {
            await tester.assert(model.name == "c")
        } matching: { issue in
            text(issue).hasPrefix("Events were not asserted:\n\n  Counter sent .renamed(\"c\")\n")
        }
        await tester.finish()
    }

    @Test func withExhaustivityChecksItsScopeAtItsEnd() async {
        let (model, tester) = Counter().andTester(exhaustivity: .off)
        let line = #line + 1
        await withKnownIssue {
            await tester.withExhaustivity(.state) {
                model.incrementTapped()
            }
        } matching: { issue in
            text(issue).hasPrefix("State changes were not asserted:\n\n  Counter.count: 0 → 1\n")
                && issue.sourceLocation?.line == line + 1
        }
        #expect(tester.exhaustivity == .off)
        await tester.finish()
    }

    @Test func withExhaustivityLeavesWhatHappenedBeforeItToTheTestsExhaustivity() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()  // under `.full`, never asserted
        await withKnownIssue {
            await tester.withExhaustivity(.off) {
                model.name = "skipped"
                await tester.assert(model.name == "skipped")
            }
            await tester.finish()
        } matching: { issue in
            text(issue).contains("  Counter.count: 0 → 1\n") && !text(issue).contains("name")
        }
    }

    @Test func aChangeMadeBeforeTheScopeIsLeftToTheNextAssertion() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()  // asserted after the scope, which asserts nothing
        await tester.withExhaustivity(.off) {
            model.name = "skipped"
        }
        await tester.assert(model.count == 1)
        await tester.finish()
    }

    @Test func withExhaustivityReturnsTheBodysResult() async {
        let (model, tester) = Counter().andTester()
        let count = await tester.withExhaustivity(.off) {
            model.incrementTapped()
            return model.count
        }
        #expect(count == 1)
    }

    @Test func fullIncludesEnvironmentAndPreferences() {
        #expect(Exhaustivity.full.contains([.state, .events, .tasks, .probes, .environment, .preferences]))
        #expect(Exhaustivity.off.isEmpty)
    }
}

/// A task that goes on after it is cancelled, until it is released.
private struct StubbornWaiter: Model {
    var node = ModelNode<Self>()
    @Tracked var isWaiting = false
    @Tracked var child: StubbornWaiter?
    enum WaitID {}

    func startWaiting(for release: Release) {
        node.task {
            isWaiting = true
            await release.wait()
        }
        .cancel(for: WaitID.self)
    }

    func stopWaiting() { node.cancelAll(for: WaitID.self) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$isWaiting)
        r.track(\.$child)
    }
}
