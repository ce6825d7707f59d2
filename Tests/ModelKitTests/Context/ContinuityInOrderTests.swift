import ModelKit
import ModelKitTesting
import Observation
import Testing

/// A list child without child slots, identified by its own `id`: the refresh of such children in
/// the order they are in is continued as the visit meets them (`ReconcileSink.continueExpected`),
/// anything else falls back to matching by id.
struct RefreshedRow: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log
    let tracksUndo: Bool
    @Tracked var title: String
    @Tracked var count: Int

    init(id: Int, title: String = "", count: Int = 0, log: Log, tracksUndo: Bool = false) {
        self.id = id
        self.log = log
        self.tracksUndo = tracksUndo
        _title = Tracked(wrappedValue: title)
        _count = Tracked(wrappedValue: count)
    }

    func onActivate() {
        log.add("activate \(id)")
        if tracksUndo { node.trackUndo() }
        node.onCancel { [log, id] in log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("title", \.$title)
        r.track("count", \.$count)
    }
}

/// Holds refreshed rows in an array and in an optional, and tracks undo on both.
struct RefreshedList: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [RefreshedRow] = []
    @Tracked var pinned: RefreshedRow? = nil
    let tracksUndo: Bool

    init(tracksUndo: Bool = false) {
        self.tracksUndo = tracksUndo
    }

    func onActivate() {
        if tracksUndo { node.trackUndo(\.rows, \.pinned) }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
        r.track("pinned", \.$pinned)
    }
}

extension ReportedIssueTests {
    @Suite struct ContinuityInOrderTests {
        private func rows(_ ids: [Int], title: String, log: Log, tracksUndo: Bool = false) -> [RefreshedRow] {
            ids.map { RefreshedRow(id: $0, title: "\(title) \($0)", count: $0, log: log, tracksUndo: tracksUndo) }
        }

        /// An anchored list whose rows are first instances with `ids`, titled "draft".
        private func anchoredList(_ ids: [Int], log: Log) -> (RefreshedList, [RefreshedRow]) {
            let list = RefreshedList().withAnchor()
            let first = rows(ids, title: "draft", log: log)
            list.rows = first
            return (list, first)
        }

        /// Every earlier handle and every new instance reads the live child; nothing was
        /// activated again or torn down.
        private func expectContinued(_ earlier: [RefreshedRow], by later: [RefreshedRow], log: Log, _ note: String) {
            for (old, new) in zip(earlier, later) {
                #expect(old.lifetime == .anchored && new.lifetime == .anchored, "\(note): \(old.id)")
                #expect(old.title == new.title, "\(note): \(old.id)")
                #expect(log.count(of: "activate \(old.id)") == 1, "\(note): \(old.id)")
                #expect(log.count(of: "cancel \(old.id)") == 0, "\(note): \(old.id)")
            }
        }

        @Test func aRefreshInTheSameOrderContinuesEveryChild() async {
            await IssueCapture.run(matching: "RefreshedList") { capture in
                let log = Log()
                let (list, first) = anchoredList([1, 2, 3, 4], log: log)
                let second = rows([1, 2, 3, 4], title: "final", log: log)
                list.rows = second
                #expect(list.rows.map(\.title) == ["final 1", "final 2", "final 3", "final 4"])
                expectContinued(first, by: second, log: log, "in order")

                // Writes through either handle reach the one live child.
                first[2].count = 30
                #expect(second[2].count == 30 && list.rows[2].count == 30)
                second[0].title = "edited"
                #expect(first[0].title == "edited")
                first[1].count += 5
                #expect(list.rows[1].count == 7)

                // And again, from a third set of instances (a chain of forwards).
                let third = rows([1, 2, 3, 4], title: "third", log: log)
                list.rows = third
                #expect(first.map(\.title) == third.map(\.title))
                expectContinued(first, by: third, log: log, "twice")
                #expect(capture.messages.isEmpty, "\(capture.messages)")
            }
        }

        @Test func aSingleChildSlotContinuesItsChild() {
            let log = Log()
            let list = RefreshedList().withAnchor()
            let first = RefreshedRow(id: 5, title: "draft", log: log)
            list.pinned = first
            list.pinned = RefreshedRow(id: 5, title: "final", log: log)
            #expect(first.title == "final" && first.lifetime == .anchored)
            #expect(log.count(of: "activate 5") == 1 && log.count(of: "cancel 5") == 0)
            list.pinned = RefreshedRow(id: 6, log: log)
            #expect(first.lifetime == .destructed)
            #expect(log.all.suffix(2) == ["cancel 5", "activate 6"], "a different id replaces the child")
        }

        @Test func reorderedIDsFallBackToMatchingByID() {
            let log = Log()
            let (list, first) = anchoredList([1, 2, 3, 4], log: log)
            // The first stays in place (continued in order); the rest are matched by id.
            let second = rows([1, 4, 2, 3], title: "final", log: log)
            list.rows = second
            #expect(list.rows.map(\.id) == [1, 4, 2, 3])
            #expect(list.rows.map(\.title) == ["final 1", "final 4", "final 2", "final 3"])
            let byID = Dictionary(uniqueKeysWithValues: second.map { ($0.id, $0) })
            expectContinued(first, by: first.map { byID[$0.id]! }, log: log, "reordered")
        }

        @Test func aMissingIDRemovesThatChildAndTheOthersContinue() {
            let log = Log()
            let (list, first) = anchoredList([1, 2, 3], log: log)
            let second = rows([1, 3], title: "final", log: log)
            list.rows = second
            #expect(list.rows.map(\.id) == [1, 3])
            #expect(first[1].lifetime == .destructed && log.count(of: "cancel 2") == 1)
            expectContinued([first[0], first[2]], by: second, log: log, "missing")
        }

        @Test func aNewIDAmongThemIsAnchoredAndTheOthersContinue() {
            let log = Log()
            let (list, first) = anchoredList([1, 2, 3], log: log)
            let second = rows([1, 9, 2, 3], title: "final", log: log)
            list.rows = second
            #expect(list.rows.map(\.id) == [1, 9, 2, 3])
            #expect(second[1].lifetime == .anchored && log.count(of: "activate 9") == 1)
            expectContinued(first, by: [second[0], second[2], second[3]], log: log, "added")
        }

        @Test func aDuplicateIDAfterTheContinuedOnesIsReported() async {
            await IssueCapture.run(matching: "RefreshedList.rows") { capture in
                let log = Log()
                let (list, first) = anchoredList([1, 2], log: log)
                let again = RefreshedRow(id: 1, title: "again", log: log)
                let twice = RefreshedRow(id: 1, title: "twice", log: log)
                list.rows = [again, twice]
                #expect(first[0].title == "again" && first[0].lifetime == .anchored)
                #expect(twice.lifetime == .initial, "the second instance with id 1 is not anchored")
                #expect(first[1].lifetime == .destructed)
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.contains("two different RefreshedRow models with the id 1") == true)
            }
        }

        @Test func theSameNewInstanceTwiceIsReported() async {
            await IssueCapture.run(matching: "RefreshedList.rows") { capture in
                let log = Log()
                let (list, first) = anchoredList([1, 2], log: log)
                let again = RefreshedRow(id: 1, title: "again", log: log)
                list.rows = [again, again]
                #expect(first[0].title == "again" && again.lifetime == .anchored)
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.contains("holds the same RefreshedRow twice") == true)
            }
        }

        @Test func onlyDifferingValuesAreChangesInOrder() {
            let log = Log()
            let list = RefreshedList().withAnchor()
            list.rows = rows([1, 2], title: "same", log: log)
            let printed = Locked<[String]>([])
            let printing = list._printChanges { line in printed.withLock { $0.append(line) } }
            list.rows = [
                RefreshedRow(id: 1, title: "same 1", count: 10, log: log),
                RefreshedRow(id: 2, title: "new 2", count: 2, log: log),
            ]
            let children = printed.value.filter { $0.contains("rows[") }
            #expect(children == [
                "RefreshedList.rows[0].count: 1 → 10",
                #"RefreshedList.rows[1].title: "same 2" → "new 2""#,
            ], "\(printed.value)")
            printing.cancel()
        }

        @Test func observersOfEarlierHandlesSeeTheAppliedValues() async {
            let log = Log()
            let (list, first) = anchoredList([1, 2], log: log)
            let fired = Locked(0)
            withObservationTracking { _ = first[1].title } onChange: { fired.withLock { $0 += 1 } }
            let seen = Log()
            first[0].node.onChange(of: \.count) { old, new in seen.add("\(old) → \(new)") }
            list.rows = [RefreshedRow(id: 1, count: 7, log: log), RefreshedRow(id: 2, title: "final", log: log)]
            #expect(fired.value == 1)
            #expect(await seen.waitForCount(1))
            #expect(seen.all == ["1 → 7"])
        }

        @Test func aRefreshWrittenTwiceInOneTransactionIsOneChangePerProperty() {
            let log = Log()
            let (list, first) = anchoredList([1, 2], log: log)
            let printed = Locked<[String]>([])
            let printing = list._printChanges { line in printed.withLock { $0.append(line) } }
            list.node.transaction {
                list.rows = rows([1, 2], title: "middle", log: log)
                first[0].count = 100
                list.rows = rows([1, 2], title: "final", log: log)
            }
            let children = printed.value.filter { $0.contains("rows[") }
            #expect(children == [
                #"RefreshedList.rows[0].title: "draft 1" → "final 1""#,
                #"RefreshedList.rows[1].title: "draft 2" → "final 2""#,
            ], "\(printed.value)")
            #expect(first.map(\.title) == ["final 1", "final 2"] && first[0].count == 1)
            printing.cancel()
        }

        @Test func testerRecordsEachAppliedValue() async {
            let log = Log()
            let (list, tester) = RefreshedList().andTester()
            list.rows = rows([1, 2], title: "draft", log: log)
            await tester.assert {
                list.rows.map(\.title) == ["draft 1", "draft 2"]
            }
            list.rows = rows([1, 2], title: "final", log: log)
            await tester.assert {
                list.rows.map(\.title) == ["final 1", "final 2"]
            }
            await tester.finish()
        }

        @Test func undoingARefreshPutsBackTheEarlierValues() {
            let log = Log()
            let list = RefreshedList(tracksUndo: true).withAnchor()
            let first = rows([1, 2], title: "draft", log: log, tracksUndo: true)
            list.rows = first
            list.rows = rows([1, 2], title: "final", log: log, tracksUndo: true)
            #expect(first.map(\.title) == ["final 1", "final 2"])
            list.node.undoStack.undo()
            #expect(list.rows.map(\.title) == ["draft 1", "draft 2"])
            #expect(first.allSatisfy { $0.lifetime == .anchored })
            #expect(log.count(of: "activate 1") == 1 && log.count(of: "cancel 1") == 0)
            list.node.undoStack.redo()
            #expect(first.map(\.title) == ["final 1", "final 2"])
        }

        /// The live cells of a child continued in order hold the context through the reference
        /// the earlier cells handed over (`AnyCell.handOver`), and the earlier cells hold the live
        /// ones through the forward table. Only cells are kept here, after everything else let go:
        /// under Address Sanitizer a reference handed over twice, or not at all, is a use after free.
        @Test func handedOverBindingsKeepTheirContextAndTargetsAlive() async {
            await IssueCapture.run(matching: "RefreshedRow") { capture in
                var titles: [Tracked<String>] = []
                var counts: [Tracked<Int>] = []
                do {
                    let log = Log()
                    let list = RefreshedList().withAnchor()
                    for round in 0..<4 {
                        let instances = rows([1, 2], title: "v\(round)", log: log)
                        list.rows = instances
                        titles += instances.map(\.$title)
                        counts += instances.map(\.$count)
                    }
                    // Through the oldest (forwarding along the chain) and the newest (live) cells.
                    titles[0].wrappedValue = "through the oldest"
                    #expect(list.rows[0].title == "through the oldest")
                    counts[7].wrappedValue = 70
                    #expect(counts[1].wrappedValue == 70)
                }
                // The hierarchy and every model value are gone; only cells remain.
                #expect(titles[0].wrappedValue == "through the oldest" && titles[6].wrappedValue == "through the oldest")
                #expect(counts[3].wrappedValue == 70)
                // Released from the middle of the chains, then the newest, then the rest.
                titles.removeSubrange(2..<4)
                counts.removeSubrange(2..<4)
                #expect(titles[0].wrappedValue == "through the oldest" && counts[1].wrappedValue == 70)
                titles.removeLast(2)
                counts.removeLast(2)
                #expect(titles.map(\.wrappedValue).allSatisfy { $0.hasPrefix("through") || $0 == "v3 2" })
                titles = []
                counts = []
                #expect(capture.messages.isEmpty, "\(capture.messages)")
            }
        }

        @Test func defaultModelIDsAreNeverContinued() {
            let list = TickerList().withAnchor()
            let first = CounterModel()
            list.anonymous = first
            list.anonymous = CounterModel()
            #expect(first.lifetime == .destructed)
        }
    }
}
