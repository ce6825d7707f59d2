import ModelKit
import ModelKitTesting
import Observation
import Testing

/// What observers, printed changes and the Tester see of a child continued by a new instance with
/// its id: the new instance's values as changes, and every later write through any of its handles.
extension ReportedIssueTests {
    @Suite struct ContinuityObservationTests {
        @Test func observationThroughOneHandleSeesWritesThroughAnother() {
            let list = TickerList().withAnchor()
            let first = Ticker(id: 1, title: "draft", log: Log())
            list.maybe = first
            let again = Ticker(id: 1, title: "final", log: Log())
            list.maybe = again

            let fired = Locked(0)
            withObservationTracking { _ = again.title } onChange: { fired.withLock { $0 += 1 } }
            first.title = "through the first"
            #expect(fired.value == 1)

            withObservationTracking { _ = first.ticks } onChange: { fired.withLock { $0 += 1 } }
            again.ticks = 3
            #expect(fired.value == 2)
        }

        @Test func observationRegisteredBeforeTheAssignmentSeesTheAppliedValue() {
            let list = TickerList().withAnchor()
            let first = Ticker(id: 1, title: "draft", log: Log())
            list.maybe = first
            let fired = Locked(0)
            withObservationTracking { _ = first.title } onChange: { fired.withLock { $0 += 1 } }
            list.maybe = Ticker(id: 1, title: "final", log: Log())
            #expect(fired.value == 1)
        }

        @Test func onChangeAndStreamsSeeTheAppliedValuesAndLaterWrites() async {
            let list = TickerList().withAnchor()
            let first = Ticker(id: 1, title: "draft", log: Log())
            list.items = [first]
            let log = Log()
            first.node.onChange(of: \.title) { old, new in log.add("\(old) → \(new)") }
            let titles = Collector(first.change(of: \.title))
            #expect(await titles.waitForCount(1))

            let again = Ticker(id: 1, title: "final", log: Log())
            list.items = [again]
            again.title = "edited"
            first.title = "edited twice"
            #expect(await log.waitForCount(3))
            #expect(log.all == ["draft → final", "final → edited", "edited → edited twice"])
            #expect(await titles.waitForCount(4))
            #expect(titles.elements == ["draft", "final", "edited", "edited twice"])
            titles.cancel()
        }

        @Test func unchangedValuesAreNoChanges() {
            let list = TickerList().withAnchor()
            list.maybe = Ticker(id: 1, title: "same", log: Log())
            let printed = Locked<[String]>([])
            let printing = list._printChanges { line in printed.withLock { $0.append(line) } }
            list.maybe = Ticker(id: 1, title: "same", log: Log())
            #expect(printed.value.filter { $0.contains("title") }.isEmpty, "\(printed.value)")
            printing.cancel()
        }

        @Test func printedChangesShowTheAppliedValuesAndWritesThroughEarlierHandles() {
            let list = TickerList().withAnchor()
            let first = Ticker(id: 1, title: "draft", log: Log())
            list.items = [first]
            let printed = Locked<[String]>([])
            let printing = list._printChanges { line in printed.withLock { $0.append(line) } }
            list.items = [Ticker(id: 1, title: "final", log: Log())]
            first.ticks = 4
            #expect(printed.value.contains(#"TickerList.items[0].title: "draft" → "final""#), "\(printed.value)")
            #expect(printed.value.contains("TickerList.items[0].ticks: 0 → 4"), "\(printed.value)")
            printing.cancel()
        }

        @Test func testerRecordsTheAppliedValuesAndWritesThroughEveryHandle() async {
            let (list, tester) = TickerList().andTester()
            let first = Ticker(id: 1, title: "draft", log: Log())
            list.items = [first]
            await tester.assert {
                list.items.count == 1
                list.items.first?.title == "draft"
            }
            let again = Ticker(id: 1, title: "final", log: Log())
            list.items = [again]
            await tester.assert(list.items.first?.title == "final")
            first.ticks += 1
            again.ticks += 1
            await tester.assert(list.items.first?.ticks == 2)
            await tester.finish()
        }

        @Test func aSlotLeftHoldingTheSameChildrenIsNoChange() async {
            let (list, tester) = TickerList().andTester()
            let first = Ticker(id: 1, title: "draft", log: Log())
            list.items = [first]
            list.maybe = Ticker(id: 2, title: "a", log: Log())
            list.byKey = ["k": Ticker(id: 3, title: "b", log: Log())]
            await tester.assert {
                list.items.map(\.title) == ["draft"]
                list.maybe?.title == "a"
                list.byKey["k"]?.title == "b"
            }
            // Asserting through the continued child's handle is enough: the slots did not change.
            list.items = [Ticker(id: 1, title: "final", log: Log())]
            list.maybe = Ticker(id: 2, title: "a", log: Log())
            list.byKey = ["k": Ticker(id: 3, title: "b", log: Log())]
            list.items = list.items
            await tester.assert(first.title == "final")
            await tester.finish()
        }

        @Test func aSlotLeftHoldingTheSameChildrenNotifiesNoObserverOfIt() {
            let list = TickerList().withAnchor()
            list.items = [Ticker(id: 1, title: "draft", log: Log())]
            list.byKey = ["k": Ticker(id: 3, title: "b", log: Log())]
            let fired = Locked(0)
            withObservationTracking { _ = list.items; _ = list.byKey } onChange: { fired.withLock { $0 += 1 } }
            list.items = list.items
            list.items = [Ticker(id: 1, title: "draft", log: Log())]
            list.byKey = ["k": Ticker(id: 3, title: "b", log: Log())]
            #expect(fired.value == 0)
            // Another key for the same child is a change of the slot.
            list.byKey = ["j": list.byKey["k"]!]
            #expect(fired.value == 1)
        }
    }
}
