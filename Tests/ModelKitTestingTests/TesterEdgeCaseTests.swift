import ModelKit
import ModelKitTesting
import Testing

/// Mistakes a user new to the Tester makes, each with the message that tells them what to change.
@Suite struct TesterEdgeCaseTests {
    // MARK: Predicates that write

    @Test func aPredicateThatWritesFailsAtOnceNamingWhatItWrote() async {
        let (model, tester) = Counter().andTester()
        let start = ContinuousClock.now
        let line = #line + 3
        await withKnownIssue {
            // Without the check, the write woke the assertion again until the count passed 100.
            await tester.assert({ model.count += 1; return model.count > 100 }())
        } matching: { issue in
            text(issue) == """
            The predicate of this `assert` wrote to Counter.count; a predicate runs again on every state the model passes through, so it must only read. Nothing was checked.

            To fix: Make the change before the `assert` (call the action that makes it), and keep the predicate to reading and comparing.
            """ && issue.sourceLocation?.line == line
        }
        #expect(model.count == 1)
        #expect(ContinuousClock.now - start < tester.timeout)
        await tester.assert(model.count == 1)
        await tester.finish()
    }

    @Test func aPredicateThatWritesAndHoldsStillFails() async {
        let (parent, tester) = Parent().andTester()
        await withKnownIssue {
            await tester.assert {
                parent.counters.isEmpty
                addsACounter(to: parent)
            }
        } matching: { issue in
            text(issue).hasPrefix("The predicate of this `assert` wrote to Parent.counters; ")
        }
        // What it read was not counted as asserted: the write is still to assert.
        await tester.assert(parent.counters.count == 1)
        await tester.finish()
    }

    @Test func anUnwrapWhosePredicateWritesFailsAndThrows() async {
        let (parent, tester) = Parent().andTester()
        await withKnownIssue {
            do {
                _ = try await tester.unwrap({ parent.selected = Counter(); return parent.selected }())
                Issue.record("unwrap returned")
            } catch {}
        } matching: { issue in
            text(issue).hasPrefix("The predicate of this `unwrap` wrote to Parent.selected; ")
        }
        await tester.assert(parent.selected?.count == 0)
        await tester.finish()
    }

    // MARK: Probes and events asserted the wrong way

    @Test func aProbeAssertedWithTooFewArgumentsShowsTheCallItGot() async {
        let onValue = TestProbe("onValue")
        let (caller, tester) = Caller(onValue: onValue.call, onPing: {}).andTester()
        tester.install(onValue)
        caller.send(1)
        await withKnownIssue {
            await tester.assert(onValue.wasCalled(with: 1), timeout: .milliseconds(20))
        } matching: { issue in
            text(issue) == """
            Assertion failed: the predicate was still false after 0.02 s.

              onValue.wasCalled(with: 1)
                onValue was called: onValue(1, "#1")

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        await tester.finish()
    }

    @Test func aProbeNeverInstalledStillShowsItsCallsWhenAnAssertionFails() async {
        let onValue = TestProbe("onValue")
        let (caller, tester) = Caller(onValue: onValue.call, onPing: {}).andTester()
        caller.send(1)
        await withKnownIssue {
            await tester.assert(onValue.wasCalled(with: 1.0, "#1"), timeout: .milliseconds(20))
        } matching: { issue in
            text(issue).contains("  onValue.wasCalled(with: 1.0, \"#1\")\n    onValue was called: onValue(1, \"#1\")\n")
        }
        await tester.finish()
    }

    @Test func aChildsEventAssertedOnItsParentListsTheChildAsSender() async {
        let (parent, tester) = Parent().andTester()
        parent.counters = [Counter()]
        await tester.assert(parent.counters.count == 1)
        parent.counters[0].rename("b")
        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20)) {
                parent.counters[0].name == "b"
                parent.didSend(Counter.Event.renamed("b"))
            }
        } matching: { issue in
            text(issue).contains("""
              parent.didSend(Counter.Event.renamed("b"))
                events sent and not asserted:
                  Parent.counters[0] sent .renamed("b")
            """)
        }
        await tester.finish()
    }

    @Test func anEventAssertedTwiceFailsOnTheSecondMatch() async {
        let (model, tester) = Counter().andTester()
        model.rename("b")
        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20)) {
                model.name == "b"
                model.didSend(.renamed("b"))
                model.didSend(.renamed("b"))
            }
        } matching: { issue in
            text(issue).hasPrefix("""
            Assertion failed: predicate 3 of 3 was still false after 0.02 s.

              model.didSend(.renamed("b"))
                no event was sent that is not asserted yet
            """)
        }
        await tester.finish()
    }

    // MARK: After the end

    @Test func withExhaustivityAfterTheEndFailsAndStillRunsItsBody() async {
        let (model, tester) = Counter().andTester()
        await tester.finish()
        var count = -1
        let line = #line + 2
        await withKnownIssue {
            count = await tester.withExhaustivity(.off) { model.count }
        } matching: { issue in
            text(issue) == """
            `withExhaustivity` was called after `tester.finish()`: the test has ended and its models are torn down, so nothing was checked.

            To fix: Move the assertion before `await tester.finish()`.
            """ && issue.sourceLocation?.line == line
        }
        #expect(count == 0)
    }

    @Test func installingAProbeAfterTheEndFailsAndLeavesItFree() async {
        let onPing = TestProbe("onPing")
        let (_, tester) = Counter().andTester()
        await tester.finish()
        withKnownIssue {
            tester.install(onPing)
        } matching: { issue in
            text(issue) == """
            `install` was called after `tester.finish()`: the test has ended and its models are torn down, so the probe's calls will not be checked.

            To fix: Install the probe before `await tester.finish()`, when its calls can still be asserted.
            """
        }
        // Not taken by the finished tester: another one installs it without a complaint.
        let (caller, other) = Caller(onValue: { _, _ in }, onPing: onPing.call).andTester()
        other.install(onPing)
        caller.ping()
        await other.assert(onPing.wasCalled())
        await other.finish()
    }

    // MARK: Handles and exhaustivity

    @Test func aWriteThroughTheHandleOfARemovedRowFailsAtTheTestersLine() async {
        // A tracked property's setter has no call site to report: the tester's line stands for it.
        let line = #line + 1
        let (parent, tester) = Parent().andTester()
        parent.counters = [Counter()]
        let row = parent.counters[0]
        await tester.assert(parent.counters.count == 1)
        parent.counters = []
        await tester.assert(parent.counters.isEmpty)
        withKnownIssue {
            row.incrementTapped()
        } matching: { issue in
            text(issue).hasPrefix("Wrote to Counter.count of a destructed Counter; the write was ignored.")
                && issue.sourceLocation?.line == line
        }
        await tester.finish()
    }

    @Test func exhaustivityTurnedOnMidTestRequiresWhatFollowsOnly() async {
        let (model, tester) = Counter().andTester(exhaustivity: .off)
        model.incrementTapped()
        tester.exhaustivity.insert(.state)
        model.rename("c")
        await withKnownIssue {
            await tester.assert(model.count == 1)
        } matching: { issue in
            text(issue).hasPrefix("State changes were not asserted:\n\n  Counter.name: \"a\" → \"c\"\n")
        }
        await tester.finish()
    }

    @Test func anEmptyAssertionChecksExhaustivityAtItsLine() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        let line = #line + 2
        await withKnownIssue {
            await tester.assert {}
        } matching: { issue in
            text(issue).hasPrefix("State changes were not asserted:\n\n  Counter.count: 0 → 1\n")
                && issue.sourceLocation?.line == line
        }
        await tester.finish()
    }
}

/// A predicate with a side effect: it adds a counter, then checks there is one.
private func addsACounter(to parent: Parent) -> Bool {
    parent.addTapped()
    return parent.counters.count == 1
}
