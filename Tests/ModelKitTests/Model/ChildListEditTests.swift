import Foundation
import ModelKit
import Testing

/// Two columns of counters, visited left then right.
private struct Columns: ModelContainer, Sendable {
    var left: [CounterModel] = []
    var right: [CounterModel] = []

    func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(left)
        visitor.visit(right)
    }
}

private struct Board: Model {
    var node = ModelNode<Self>()
    @Tracked var counters: [CounterModel] = []
    @Tracked var columns = Columns()
    @Tracked var items: [TreeModel] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("counters", \.$counters)
        r.track("columns", \.$columns)
        r.track("items", \.$items)
    }
}

/// The common edits of a child list (most keep the children at its start in place, which
/// reconciliation settles by identity alone) keep exactly the children still in the list.
@Suite struct ChildListEditTests {
    private func counters(_ count: Int) -> [CounterModel] {
        (0..<count).map { index in
            let counter = CounterModel()
            counter.count = index
            return counter
        }
    }

    @Test func appendingAndRemovingAtTheEndKeepsTheOtherChildren() {
        let board = Board().withAnchor()
        let first = counters(3)
        board.counters = first
        let added = CounterModel()

        board.counters.append(added)
        #expect(added.lifetime == .anchored)
        #expect(board.counters.map(\.count) == [0, 1, 2, 0])

        board.counters.removeLast()
        #expect(added.lifetime == .destructed)
        #expect(first.allSatisfy { $0.lifetime == .anchored })
        #expect(board.counters.map(\.id) == first.map(\.id))
    }

    @Test func insertingAtTheStartKeepsEveryChild() {
        let board = Board().withAnchor()
        let first = counters(3)
        board.counters = first
        let added = CounterModel()

        board.counters.insert(added, at: 0)

        #expect(added.lifetime == .anchored)
        #expect(first.allSatisfy { $0.lifetime == .anchored })
        #expect(board.counters.map(\.count) == [0, 0, 1, 2])
        first[2].count = 20
        #expect(board.counters[3].count == 20)
    }

    @Test func removingFromTheMiddleTearsDownOnlyThatChild() {
        let log = Log()
        let board = Board().withAnchor()
        board.items = ["a", "b", "c", "d"].map { TreeModel($0, log: log) }

        board.items.remove(at: 1)

        #expect(log.all.filter { $0.hasPrefix("cancel") } == ["cancel b"])
        #expect(board.items.map(\.id) == ["a", "c", "d"])
        #expect(board.items.allSatisfy { $0.lifetime == .anchored })
    }

    @Test func replacingTheLastChildWithANewInstanceOfItsIDContinuesIt() {
        let log = Log()
        let board = Board().withAnchor()
        board.items = ["a", "b"].map { TreeModel($0, log: log) }
        let old = board.items[1]
        old.value = 5

        board.items[1] = TreeModel("b", log: log, value: 7)

        #expect(log.all == ["activate a", "activate b"])
        #expect(old.lifetime == .anchored && old.value == 7)
        #expect(board.items[1].lifetime == .anchored && board.items[1].value == 7)
    }

    @Test func newChildrenAmongKeptOnesKeepTheWrittenOrder() {
        let log = Log()
        let board = Board().withAnchor()
        board.items = ["a", "b"].map { TreeModel($0, log: log) }
        let (a, b) = (board.items[0], board.items[1])

        board.items = [TreeModel("x", log: log), a, TreeModel("y", log: log), TreeModel("z", log: log), b, TreeModel("w", log: log)]

        #expect(board.items.map(\.id) == ["x", "a", "y", "z", "b", "w"])
        #expect(board.items.allSatisfy { $0.lifetime == .anchored })
        #expect(log.all == ["activate a", "activate b", "activate x", "activate y", "activate z", "activate w"])
        // The slot's list of children follows the written order: removing them all tears them
        // down in it.
        board.items = []
        #expect(log.entries(withPrefix: "cancel") == ["cancel x", "cancel a", "cancel y", "cancel z", "cancel b", "cancel w"])
    }

    @Test func swappingTwoChildrenKeepsBoth() {
        let board = Board().withAnchor()
        let first = counters(4)
        board.counters = first

        board.counters.swapAt(1, 3)

        #expect(first.allSatisfy { $0.lifetime == .anchored })
        #expect(board.counters.map(\.count) == [0, 3, 2, 1])
    }

    @Test func childMovedBetweenTheArraysOfACustomContainerIsKept() {
        let board = Board().withAnchor()
        let first = counters(3)
        board.columns = Columns(left: Array(first[0..<2]), right: [first[2]])

        // The visit order (left, then right) is unchanged: every child is still in place.
        board.columns = Columns(left: [first[0]], right: [first[1], first[2]])
        #expect(first.allSatisfy { $0.lifetime == .anchored })

        board.columns.right.removeFirst()
        #expect(first[1].lifetime == .destructed)
        #expect(first[0].lifetime == .anchored && first[2].lifetime == .anchored)
    }
}

extension ReportedIssueTests {
    @Suite struct ChildListRepeatTests {
        @Test func childRepeatedAfterTheChildrenInPlaceIsAnchoredOnceAndReported() async {
            await IssueCapture.run(matching: "Board.counters") { capture in
                let board = Board().withAnchor()
                let a = CounterModel()
                let b = CounterModel()
                board.counters = [a, b]

                board.counters.append(a)

                #expect(capture.messages == ["""
                    Board.counters holds the same CounterModel twice; it was anchored once.

                    To fix: Store each model once per collection.
                    """])
                board.counters = [b]
                #expect(a.lifetime == .destructed && b.lifetime == .anchored)
            }
        }
    }
}

/// `move(fromOffsets:toOffset:)` (SwiftUI's, provided where SwiftUI is not): one write that moves
/// children without tearing them down.
@Suite struct CollectionMoveTests {
    @Test func movesLikeSwiftUI() {
        func moved(_ source: IndexSet, _ destination: Int) -> [String] {
            var letters = ["a", "b", "c", "d"]
            letters.move(fromOffsets: source, toOffset: destination)
            return letters
        }
        #expect(moved([0], 2) == ["b", "a", "c", "d"])
        #expect(moved([3], 0) == ["d", "a", "b", "c"])
        #expect(moved([0, 2], 4) == ["b", "d", "a", "c"])
        #expect(moved([1, 2], 0) == ["b", "c", "a", "d"])
        #expect(moved([1], 1) == ["a", "b", "c", "d"])
        #expect(moved([1], 2) == ["a", "b", "c", "d"])
        #expect(moved([], 3) == ["a", "b", "c", "d"])
    }

    @Test func movingChildrenInOneWriteKeepsThemLive() {
        let log = Log()
        let board = Board().withAnchor()
        board.items = ["a", "b", "c"].map { TreeModel($0, log: log) }
        let first = board.items[0]
        board.items.move(fromOffsets: [0], toOffset: 3)
        #expect(board.items.map(\.id) == ["b", "c", "a"])
        #expect(first.lifetime == .anchored)
        #expect(board.items[2].lifetime == .anchored)
        #expect(!log.all.contains { $0.hasPrefix("cancel") })
    }
}
