import ModelKit
import Testing

/// Counts the element reads of a `CountedRows`: each pass over its models reads every element.
private final class ReadCount: Sendable {
    let reads = Locked(0)
}

/// A collection slot of rows that counts how often its elements are read.
private struct CountedRows: MutableCollection, RandomAccessCollection, RangeReplaceableCollection, Sendable {
    var rows: [ScaledRow] = []
    var count: ReadCount?

    init() {}

    init(_ rows: [ScaledRow], count: ReadCount) {
        self.rows = rows
        self.count = count
    }

    var startIndex: Int { rows.startIndex }
    var endIndex: Int { rows.endIndex }

    subscript(position: Int) -> ScaledRow {
        get {
            count?.reads.withLock { $0 += 1 }
            return rows[position]
        }
        set { rows[position] = newValue }
    }

    mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with newElements: C) where C.Element == ScaledRow {
        rows.replaceSubrange(range, with: newElements)
    }
}

private struct ScaledRow: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var name = ""

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$name) }
}

private struct ScaledList: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: CountedRows

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$rows) }
}

/// At its limit, a stack drops its oldest entry with each push; when that entry removed children,
/// undo finds out which kept copies no remaining entry refers to. It used to visit every model of
/// every remaining entry's child-slot values for it, on every such push: deleting one paragraph of
/// a 5,000-paragraph document (sections of 100) at the default limit of 100 took 15 ms.
@Suite struct UndoScalingTests {
    /// The element reads of removing `removals` rows one by one from 200, with the stack at `limit`
    /// (already full of removals).
    private func readsPerRemoval(limit: Int, removals: Int) -> Int {
        let count = ReadCount()
        let list = ScaledList(rows: CountedRows((0..<200).map { ScaledRow(id: $0) }, count: count))
            .withAnchor { $0.undoStack = ModelUndoStack(limit: limit) }
        for _ in 0..<limit { list.rows.removeLast() }
        let before = count.reads.value
        for _ in 0..<removals { list.rows.removeLast() }
        #expect(list.rows.count == 200 - limit - removals)
        return (count.reads.value - before) / removals
    }

    @Test func aRemovalAtTheLimitDoesNotRevisitEveryEntrysChildren() {
        let small = readsPerRemoval(limit: 5, removals: 20)
        let large = readsPerRemoval(limit: 80, removals: 20)
        // Each removal reads the rows a few times (reconciling, comparing, noting its entry's
        // models), however many entries the stack holds.
        #expect(large < small * 2, "reads per removal: \(small) at limit 5, \(large) at limit 80")
    }
}
