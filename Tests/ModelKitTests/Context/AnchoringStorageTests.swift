import ModelKit
import Testing

/// Anchoring reads a model's cells in place, out of the value being anchored, without retaining
/// them (`Schema.bindCells`), and a context reads a custom id from its model when a reconciliation
/// needs it instead of keeping a copy. These tests anchor values that nothing else holds (so that
/// Address Sanitizer would see a read of freed cells) and remove children whose id changed while
/// they were live.
@Suite struct AnchoringStorageTests {
    @Test func modelsAnchoredFromTemporariesKeepTheirState() {
        for round in 0..<50 {
            let root = KeyedList(rows: (0..<20).map { KeyedRow(key: $0, count: round) }).withAnchor()
            for row in root.rows {
                #expect(row.lifetime == .anchored)
                #expect(row.count == round)
                row.count += 1
            }
            #expect(root.rows.map(\.count) == Array(repeating: round + 1, count: 20))
        }
    }

    @Test func childrenAppendedFromTemporariesAreBoundToTheirOwnContexts() {
        let root = KeyedList(rows: []).withAnchor()
        for key in 0..<100 {
            root.rows.append(KeyedRow(key: key, count: key))
        }
        root.rows.removeFirst(50)
        #expect(root.rows.map(\.count) == Array(50..<100))
        for row in root.rows { row.count = -row.count }
        #expect(root.rows.map(\.count) == (50..<100).map { -$0 })
    }

    @Test func modelsOfTypesAnchoredInTurnUseTheirOwnSchemas() {
        // Anchoring keeps the last schema it found; each type must still get its own.
        for key in 0..<20 {
            let row = KeyedRow(key: key, count: key).withAnchor()
            let list = KeyedList(rows: [KeyedRow(key: key)]).withAnchor()
            #expect(row.count == key)
            #expect(list.rows.first?.lifetime == .anchored)
        }
    }

    @Test func modifiersSetBeforeAnchoringAreTakenOnlyByTheirOwnModel() {
        let activated = Locked<[Int]>([])
        let plain = KeyedRow(key: 1)
        let modified = KeyedRow(key: 2).withActivation { model in
            let key = model.key
            activated.withLock { $0.append(key) }
        }
        let list = KeyedList(rows: [plain, modified, KeyedRow(key: 3)]).withAnchor()
        #expect(list.rows.allSatisfy { $0.lifetime == .anchored })
        #expect(activated.value == [2])
    }

    @Test func childWhoseIdChangedWhileLiveLeavesNoStaleEntry() async {
        await IssueCapture.run(matching: "KeyedList.rows") { capture in
            let root = KeyedList(rows: [KeyedRow(key: 1), KeyedRow(key: 2)]).withAnchor()
            let first = root.rows[0]
            // The id is computed from tracked state: it changes while the row is live.
            first.key = 10
            root.rows.removeFirst()
            #expect(first.lifetime == .destructed)
            // Its first id is free again: a new row with it is anchored, not reported as a duplicate.
            let again = KeyedRow(key: 1)
            root.rows.append(again)
            #expect(again.lifetime == .anchored)
            #expect(capture.messages.isEmpty)
        }
    }
}

extension ReportedIssueTests {
    @Suite struct ChangedIDTests {
        @Test func aChildWhoseIdChangedIsNotTakenForANewInstanceWithItsOldId() async {
            await IssueCapture.run(matching: "KeyedList.rows") { capture in
                let root = KeyedList(rows: [KeyedRow(key: 1), KeyedRow(key: 2)]).withAnchor()
                let first = root.rows[0]
                first.key = 10
                // Out of order, so that the new instance is looked up by id: the live row that had
                // its id has another now, and is neither continued by it nor reported beside it.
                let newOne = KeyedRow(key: 1, count: 5)
                root.rows = [root.rows[1], first, newOne]
                #expect(newOne.lifetime == .anchored)
                #expect(first.lifetime == .anchored)
                #expect(first.count == 0)
                #expect(root.rows.map(\.key) == [2, 10, 1])
                #expect(capture.messages.isEmpty)
            }
        }
    }
}

/// A row whose custom id is computed from a tracked property.
private struct KeyedRow: Model {
    var node = ModelNode<Self>()
    @Tracked var key: Int
    @Tracked var count: Int

    var id: Int { key }

    init(key: Int, count: Int = 0) {
        _key = Tracked(wrappedValue: key)
        _count = Tracked(wrappedValue: count)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("key", \.$key)
        r.track("count", \.$count)
    }
}

private struct KeyedList: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [KeyedRow]

    init(rows: [KeyedRow]) {
        _rows = Tracked(wrappedValue: rows)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
    }
}
