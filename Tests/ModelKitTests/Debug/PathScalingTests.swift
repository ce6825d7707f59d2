import ModelKit
import ModelKitTesting
import Testing

/// Counts the visits of a container: each one is a pass over all of its models.
private final class VisitCount: Sendable {
    let visits = Locked(0)
}

/// A custom container of rows (printed as `Board.rows.rows[2]`) that counts how often ModelKit visits it.
private struct CountedRows: ModelContainer, Sendable {
    var rows: [CounterModel]
    let count: VisitCount

    func visit(_ visitor: inout ContainerVisitor) {
        count.visits.withLock { $0 += 1 }
        visitor.visit(elementsOf: rows)
    }
}

private struct Board: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: CountedRows

    init(rows: Int, count: VisitCount) {
        _rows = Tracked(wrappedValue: CountedRows(rows: (0..<rows).map { _ in CounterModel() }, count: count))
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$rows)
    }
}

/// A printed path names a model by its place among its siblings, found by visiting their slot:
/// naming many siblings visits the slot once, not once per sibling (which made printing, testing
/// and `modifications` quadratic in the number of children).
@Suite struct PathScalingTests {
    @Test func printingAChangeOfEachSiblingVisitsTheirSlotOnce() {
        let count = VisitCount()
        let board = Board(rows: 200, count: count).withAnchor()
        let lines = Locked<[String]>([])
        let printing = board._printChanges { line in lines.withLock { $0.append(line) } }
        let rows = board.rows.rows
        let visitsBefore = count.visits.value
        for row in rows { row.count = 1 }
        #expect(count.visits.value - visitsBefore == 1)
        #expect(lines.value.count == 200)
        #expect(lines.value.first == "Board.rows.rows[0].count: 0 → 1")
        #expect(lines.value.last == "Board.rows.rows[199].count: 0 → 1")
        printing.cancel()
    }

    @Test func aModificationsListenerNamingEachChangedSiblingVisitsTheirSlotOnce() async {
        let count = VisitCount()
        let board = Board(rows: 200, count: count).withAnchor()
        let modifications = Collector(board.node.modifications())
        let rows = board.rows.rows
        let visitsBefore = count.visits.value
        board.node.transaction {
            for row in rows { row.count = 1 }
        }
        #expect(count.visits.value - visitsBefore == 1)
        #expect(await modifications.waitForCount(1))
        let paths = modifications.elements.first?.paths ?? []
        #expect(paths.count == 200)
        #expect(paths.first == "Board.rows.rows[0].count")
        #expect(paths.last == "Board.rows.rows[199].count")
        modifications.cancel()
    }

    @Test func siblingPathsFollowAChangeOfTheirPlaces() {
        let count = VisitCount()
        let board = Board(rows: 3, count: count).withAnchor()
        let lines = Locked<[String]>([])
        let printing = board._printChanges { line in lines.withLock { $0.append(line) } }
        let last = board.rows.rows[2]
        last.count = 1
        board.rows.rows.remove(at: 0)
        last.count = 2
        board.rows.rows.insert(CounterModel(), at: 0)
        board.rows.rows.insert(CounterModel(), at: 0)
        last.count = 3
        #expect(lines.value.filter { $0.hasPrefix("Board.rows.rows") } == [
            "Board.rows.rows[2].count: 0 → 1",
            "Board.rows.rows[1].count: 1 → 2",
            "Board.rows.rows[3].count: 2 → 3",
        ])
        printing.cancel()
    }

    @Test func aTesterRecordingAChangeOfEachSiblingVisitsTheirSlotOnce() async {
        let count = VisitCount()
        let (board, tester) = Board(rows: 100, count: count).andTester()
        let rows = board.rows.rows
        let visitsBefore = count.visits.value
        for (position, row) in rows.enumerated() {
            row.count = position + 1
            await tester.assert(row.count == position + 1)
        }
        #expect(count.visits.value - visitsBefore == 1)
        await tester.finish()
    }
}
