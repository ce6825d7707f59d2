import Foundation
import ModelKit
@testable import ModelKitTesting
import Testing

/// Failure messages are API: each is pinned here in full.
@Suite struct FailureMessageTests {
    @Test func failedEqualityShowsItsSourceTheExpectedSideAndWhatItRead() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        await withKnownIssue {
            await tester.assert(model.count == 2, timeout: .milliseconds(20))
        } matching: { issue in
            text(issue) == """
            Assertion failed: the predicate was still false after 0.02 s.

              model.count == 2
                expected: 2
                read: Counter.count = 1

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
    }

    @Test func aValueReadOverSeveralLinesStaysUnderItsReadLine() async {
        let (parent, tester) = Parent().andTester()
        parent.counters = (0..<6).map { _ in Counter() }
        await withKnownIssue {
            await tester.assert(parent.counters.isEmpty, timeout: .milliseconds(20))
        } matching: { issue in
            let lines = text(issue).components(separatedBy: "\n")
            guard let read = lines.firstIndex(where: { $0.hasPrefix("    read: Parent.counters = [") }) else { return false }
            // Every line of the value until the advice is indented past `read:`.
            let value = lines[(read + 1)...].prefix { !$0.isEmpty }
            return value.count == 7 && value.allSatisfy { $0.hasPrefix("          ") }
        }
        await tester.assert(parent.counters.count == 6)
        await tester.finish()
    }

    @Test func aChangeOfAModelRemovedSinceSaysSo() async {
        let (parent, tester) = Parent().andTester()
        parent.counters = [Counter(), Counter()]
        await tester.assert(parent.counters.count == 2)
        parent.counters[0].name = "renamed"
        parent.counters.removeFirst()
        await withKnownIssue {
            await tester.assert(parent.counters.count == 1)
        } matching: { issue in
            text(issue) == """
            State changes were not asserted:

              Parent.counters[0].name (of a model removed since): "a" → "renamed"

            To fix, either:
              • A change of a model removed since is asserted before the removal: assert it between the two actions.
              • Assert the new values in a `tester.assert { … }` after the action that changes them.
              • Or stop requiring state assertions: `tester.exhaustivity.remove(.state)`.
            """
        }
        await tester.finish()
    }

    @Test func anEventOfAModelRemovedSinceSaysSo() async {
        let (parent, tester) = Parent().andTester()
        parent.counters = [Counter(), Counter()]
        await tester.assert(parent.counters.count == 2)
        parent.counters[0].node.send(Counter.Event.renamed("b"))
        parent.counters.removeFirst()
        await withKnownIssue {
            await tester.assert(parent.counters.count == 1)
        } matching: { issue in
            text(issue) == """
            Events were not asserted:

              Parent.counters[0] (a model removed since) sent .renamed("b")

            To fix, either:
              • Assert each event with `model.didSend(…)` in a `tester.assert { … }`.
              • Or stop requiring event assertions: `tester.exhaustivity.remove(.events)`.
            """
        }
        await tester.finish()
    }

    @Test func anAssertionAfterTheEndFailsAtOnceSayingSo() async {
        let (model, tester) = Counter().andTester()
        await tester.finish()
        let start = ContinuousClock.now
        await withKnownIssue {
            await tester.assert(model.count == 0)
        } matching: { issue in
            text(issue) == """
            `assert` was called after `tester.finish()`: the test has ended and its models are torn down, so nothing was checked.

            To fix: Move the assertion before `await tester.finish()`.
            """
        }
        #expect(ContinuousClock.now - start < tester.timeout)
    }

    @Test func aSecondAssertionOnALineShowsItsOwnSource() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        await withKnownIssue {
            await tester.assert(model.count == 1); await tester.assert(model.count == 9, timeout: .milliseconds(10))
        } matching: { issue in
            text(issue).contains("  model.count == 9\n    expected: 9\n")
        }
    }

    @Test func aTesterOfAnAnchoredModelFailsAndLeavesItsHierarchyAlone() async {
        let app = Counter().withAnchor()
        await withKnownIssue {
            let (model, tester) = app.andTester()
            model.incrementTapped()
            await tester.finish()
        } matching: { issue in
            text(issue) == """
            andTester() was called on a Counter that is already anchored; a tester anchors the model it drives. The model was left as it is, and the tester drives nothing.

            To fix: Call andTester() on a new instance: `let (model, tester) = Counter(…).andTester()`.
            """
        }
        #expect(app.lifetime == .anchored && app.count == 1)
    }

    @Test func aTesterOfAModelThatCannotBeAnchoredFailsWithoutCrashing() async {
        let live = Counter().withAnchor()
        var copy = live
        copy.node = ModelNode()
        await withKnownIssue {
            let (_, tester) = copy.andTester()
            await tester.finish()
        } matching: { issue in
            text(issue).hasPrefix("Counter.count shares its storage with another model instance")
        }
    }

    @Test func failedBuilderNamesEachFalsePredicateByItsSource() async {
        let (parent, tester) = Parent().andTester()
        parent.addTapped()
        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20)) {
                parent.counters.map(\.name) == ["Bread"]
                parent.counters.count == 1  // holds
                parent.selected != nil
            }
        } matching: { issue in
            text(issue) == """
            Assertion failed: predicates 1 and 3 of 3 were still false after 0.02 s.

              parent.counters.map(\\.name) == ["Bread"]
                expected: ["Bread"]
                read: Parent.counters = [[0]: Counter(count: 0, name: "a")]
                read: Parent.counters[0].name = "a"

              parent.selected != nil
                read: Parent.selected = nil

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
    }

    @Test func unreadableSourceFallsBackToPredicateNumbers() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20), filePath: "/nonexistent/Moved.swift") {
                model.count == 1
                model.name == "z"
            }
        } matching: { issue in
            text(issue) == """
            Assertion failed: predicate 2 of 2 was still false after 0.02 s.

              predicate 2 of 2
                read: Counter.name = "a"

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        await tester.assert(model.count == 1)
    }

    @Test func failedDidSendListsTheEventsSentAndNotAsserted() async {
        let (model, tester) = Counter().andTester()
        model.rename("b")
        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20)) {
                model.name == "b"
                model.didSend(.renamed("c"))
            }
        } matching: { issue in
            text(issue) == """
            Assertion failed: predicate 2 of 2 was still false after 0.02 s.

              model.didSend(.renamed("c"))
                events sent and not asserted:
                  Counter sent .renamed("b")

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
    }

    @Test func failedDidSendWithNothingSentSaysSo() async {
        let (model, tester) = Counter().andTester()
        await withKnownIssue {
            await tester.assert(model.didSend(.reachedTen), timeout: .milliseconds(20))
        } matching: { issue in
            text(issue).contains("""
              model.didSend(.reachedTen)
                no event was sent that is not asserted yet
            """)
        }
    }

    @Test func failedProbeCheckShowsTheProbesCalls() async {
        let onValue = TestProbe("onValue")
        let (caller, tester) = Caller(onValue: onValue.call, onPing: {}).andTester()
        tester.install(onValue)
        caller.send(1)
        await withKnownIssue {
            await tester.assert(onValue.wasCalled(with: 2, "#2"), timeout: .milliseconds(50))
        } matching: { issue in
            text(issue) == """
            Assertion failed: the predicate was still false after 0.05 s.

              onValue.wasCalled(with: 2, "#2")
                onValue was called: onValue(1, "#1")

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        await tester.finish()
    }

    @Test func failedCallCountShowsTheProbesCalls() async {
        let onValue = TestProbe("onValue")
        let (caller, tester) = Caller(onValue: onValue.call, onPing: {}).andTester()
        tester.install(onValue)
        caller.send(1)
        await tester.assert(onValue.wasCalled(with: 1, "#1"))
        caller.send(2)
        await tester.assert(onValue.wasCalled(with: 2, "#2"))
        caller.send(3)
        await tester.assert(onValue.wasCalled(with: 3, "#3"))
        await withKnownIssue {
            await tester.assert(onValue.callCount == 4, timeout: .milliseconds(50))
        } matching: { issue in
            text(issue) == """
            Assertion failed: the predicate was still false after 0.05 s.

              onValue.callCount == 4
                expected: 4
                onValue has no unasserted calls (3 calls in all)

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        await tester.finish()
    }

    @Test func failedUnwrapIsReportedOnceWithItsSource() async throws {
        let (parent, tester) = Parent().andTester()
        let reports = Protected(0)
        try await withKnownIssue { () async throws in
            _ = try await tester.unwrap(parent.selected, timeout: .milliseconds(20))
        } matching: { issue in
            reports.withLock { $0 += 1 }
            return text(issue) == """
            Unwrap failed: `parent.selected` was still nil after 0.02 s.

            It read:
              Parent.selected = nil

            To fix, either:
              • Trigger the action that sets the value before unwrapping it.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        #expect(reports.value == 1)
    }

    @Test func aChangeShownByAFailedAssertIsNotReportedAgainAtTheEnd() async {
        let (model, tester) = Counter().andTester()
        let reports = Protected<[String]>([])
        await withKnownIssue {
            model.incrementTapped()
            await tester.assert(model.count == 2, timeout: .milliseconds(20))
            await tester.finish()
        } matching: { issue in
            reports.withLock { $0.append(text(issue)) }
            return true
        }
        #expect(reports.value.count == 1)
        #expect(reports.value.first?.hasPrefix("Assertion failed: the predicate was still false") == true)
    }

    @Test func skippedAssertionsNameTheTest() async {
        let (model, tester) = Counter().andTester(exhaustivity: .off)
        let printed = Protected<[String]>([])
        tester.state.log.withLock { log in log.printSkipped = { text in printed.withLock { $0.append(text) } } }
        tester.showSkippedAssertions = true
        let line = #line - 4
        model.incrementTapped()
        model.rename("x")
        await tester.assert(model.count == 1)
        #expect(printed.value == [
            """
            Skipped assertions in skippedAssertionsNameTheTest(), tester at ModelKitTestingTests/FailureMessageTests.swift:\(line) (State changes, not required by exhaustivity):
              Counter.name: "a" → "x"
            """,
            """
            Skipped assertions in skippedAssertionsNameTheTest(), tester at ModelKitTestingTests/FailureMessageTests.swift:\(line) (Events, not required by exhaustivity):
              Counter sent .renamed("x")
            """,
        ])
    }

    @Test func aHierarchyQueryReadIsNamedAsOneNotAsAProperty() async {
        let (parent, tester) = Parent().andTester()
        parent.counters = [Counter()]
        let counter = parent.counters[0]
        await withKnownIssue {
            await tester.assert(counter.node.mapHierarchy(for: .parent) { $0 as? Counter }.count == 1, timeout: .milliseconds(20))
        } matching: { issue in
            text(issue) == """
            Assertion failed: the predicate was still false after 0.02 s.

              counter.node.mapHierarchy(for: .parent) { $0 as? Counter }.count == 1
                expected: 1
                read: Parent.counters[0]'s parents (a hierarchy query)

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        await tester.assert(parent.counters.count == 1)
    }

    @Test func aReadOfAModelRemovedSinceSaysSo() async {
        let (parent, tester) = Parent().andTester()
        parent.counters = [Counter()]
        let counter = parent.counters[0]
        parent.counters = []
        await tester.assert(parent.counters.isEmpty)
        await withKnownIssue {
            await tester.assert(counter.count == 1, timeout: .milliseconds(20))
        } matching: { issue in
            text(issue) == """
            Assertion failed: the predicate was still false after 0.02 s.

              counter.count == 1
                expected: 1
                read: Counter.count (of a model removed since)

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
    }
}
