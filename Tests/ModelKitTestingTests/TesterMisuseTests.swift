import ModelKit
import ModelKitTesting
import Testing

/// A tester asserts its own hierarchy and owns the probes installed in it: an assertion that reads
/// only another hierarchy's models, and a probe installed in two testers, are reported.
@Suite struct TesterMisuseTests {
    @Test func anAssertionReadingOnlyAnotherTestersModelsFailsNamingThem() async {
        let (_, myTester) = Counter().andTester()
        let (other, otherTester) = Counter().andTester()
        other.incrementTapped()
        await withKnownIssue {
            await myTester.assert(other.count == 1)
        } matching: { issue in
            text(issue) == """
            The assertion read only models of another hierarchy (Counter.count), not of the one this tester drives, so it asserted nothing.

            To fix, either:
              • Assert them with the tester that drives their hierarchy (`otherTester.assert { … }`); a model anchored with `withAnchor()` has none: anchor it with `andTester()`.
              • Or assert the state of this tester's models.
            """
        }
        await otherTester.assert(other.count == 1)
        await myTester.finish()
        await otherTester.finish()
    }

    @Test func anAssertionReadingOnlyAModelWithoutTesterFails() async {
        let (_, tester) = Counter().andTester()
        let plain = Parent(counters: [Counter()]).withAnchor()
        await withKnownIssue {
            await tester.assert {
                plain.counters.count == 1
                plain.counters[0].name == "a"
            }
        } matching: { issue in
            text(issue).hasPrefix(
                "The assertion read only models of another hierarchy (Parent.counters, Parent.counters[0].name), not of the one"
            )
        }
        await tester.finish()
    }

    @Test func anAssertionReadingItsOwnAndAnotherHierarchyPasses() async {
        let (mine, myTester) = Counter().andTester()
        let (other, otherTester) = Counter().andTester()
        otherTester.exhaustivity = .off
        mine.incrementTapped()
        other.incrementTapped()
        await myTester.assert {
            mine.count == 1
            other.count == 1
        }
        await myTester.finish()
        await otherTester.finish()
    }

    @Test func anAssertionReadingOnlyAFrozenCopyPasses() async {
        let (counter, tester) = Counter().andTester()
        let snapshot = counter.frozenCopy
        counter.incrementTapped()
        await tester.assert(counter.count == 1)
        await tester.assert(snapshot.count == 0)
        await tester.finish()
    }

    @Test func aProbeInstalledInASecondTesterFailsThereAndStaysWithTheFirst() async {
        let onValue = TestProbe("onValue")
        let (first, firstTester) = Caller(onValue: onValue.call, onPing: {}).andTester()
        let (_, secondTester) = Counter().andTester()
        firstTester.install(onValue)
        withKnownIssue {
            secondTester.install(onValue)
        } matching: { issue in
            text(issue) == """
            The probe "onValue" is already installed in the tester created at ModelKitTestingTests/TesterMisuseTests.swift:69; a probe's calls are asserted by one tester, so it was not installed in this one.

            To fix: Give each tester its own probe (`TestProbe("onValue")`), and pass each hierarchy its own probe's `call`.
            """
        }
        first.send(1)
        // The call is the first tester's: asserting it there leaves nothing for the second.
        await firstTester.assert(onValue.wasCalled(with: 1, "#1"))
        await firstTester.finish()
        await secondTester.finish()
    }

    @Test func aProbeCanBeInstalledAgainOnceItsTesterFinished() async {
        let onPing = TestProbe("onPing")
        let (first, firstTester) = Caller(onValue: { _, _ in }, onPing: onPing.call).andTester()
        firstTester.install(onPing)
        first.ping()
        await firstTester.assert(onPing.wasCalled())
        await firstTester.finish()

        let (second, secondTester) = Caller(onValue: { _, _ in }, onPing: onPing.call).andTester()
        secondTester.install(onPing)
        second.ping()
        await withKnownIssue {
            await secondTester.finish()
        } matching: { issue in
            text(issue).hasPrefix("Probe calls were not asserted:\n\n  onPing()")
        }
    }
}
