import Foundation
import ModelKit
import ModelKitTesting
import Testing

@Suite struct AssertTests {
    @Test func assertPassesOnSynchronousWrite() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        await tester.assert(model.count == 1)
    }

    @Test func assertWaitsForATaskWrite() async {
        let (model, tester) = Counter().andTester()
        model.incrementLater()
        await tester.assert(model.count == 1)
        await tester.finish()
    }

    @Test func builderChecksEveryCondition() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        model.rename("b")
        await tester.assert {
            model.count == 1
            model.name == "b"
            model.didSend(.renamed("b"))
        }
    }

    @Test func unwrapReturnsTheValueOnceSet() async throws {
        let (parent, tester) = Parent().andTester()
        parent.addTapped()
        let counter = try await tester.unwrap(parent.counters.first)
        counter.incrementTapped()
        await tester.assert(counter.count == 1)
    }

    @Test func unwrapThrowsAndFailsWhenNil() async {
        let (parent, tester) = Parent().andTester()
        await withKnownIssue {
            do {
                _ = try await tester.unwrap(parent.selected, timeout: .milliseconds(20))
            } catch {}
        } matching: { issue in
            text(issue) == """
            Unwrap failed: `parent.selected` was still nil after 0.02 s.

            It read:
              Parent.selected = nil

            To fix, either:
              • Trigger the action that sets the value before unwrapping it.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
    }

    @Test func failedAssertNamesTheFalseConditionAndItsReads() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20)) {
                model.count == 1
                model.name == "z"
            }
        } matching: { issue in
            text(issue) == """
            Assertion failed: predicate 2 of 2 was still false after 0.02 s.

              model.name == "z"
                expected: "z"
                read: Counter.name = "a"

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        await tester.assert(model.count == 1)
    }

    @Test func failureIsReportedAtTheAssertCall() async {
        let (model, tester) = Counter().andTester()
        let line = #line + 2
        await withKnownIssue {
            await tester.assert(model.count == 5, timeout: .milliseconds(10))
        } matching: { issue in
            issue.sourceLocation?.line == line && issue.sourceLocation?.fileName == "AssertTests.swift"
        }
    }

    @Test func testerTimeoutIsConfigurable() async {
        let (model, tester) = Counter().andTester()
        #expect(tester.timeout == .seconds(1))
        tester.timeout = .milliseconds(10)
        await withKnownIssue {
            await tester.assert(model.count == 5)
        } matching: { issue in
            text(issue).hasPrefix("Assertion failed: the predicate was still false after 0.01 s.")
        }
    }

    @Test func assertWakesOnEvents() async {
        let (model, tester) = Counter().andTester()
        Task { model.rename("later") }
        await tester.assert {
            model.didSend(.renamed("later"))
            model.name == "later"
        }
    }

    @Test func assertedEventIsConsumed() async {
        let (model, tester) = Counter().andTester()
        model.rename("b")
        await tester.assert { model.didSend(.renamed("b")); model.name == "b" }
        #expect(!model.didSend(.renamed("b")))
    }
}
