import ModelKit
import Testing

/// An id whose hash is the same for every value: a slot's index of its children by id must still
/// tell them apart by the ids themselves (it compares hashes first, then ids).
struct CollidingID: Hashable, Sendable, CustomStringConvertible {
    let value: Int

    func hash(into hasher: inout Hasher) {
        hasher.combine(0)
    }

    var description: String { "#\(value)" }
}

/// A child identified by a `CollidingID`.
struct CollidingRow: Model {
    var node = ModelNode<Self>()
    let id: CollidingID
    @Tracked var title: String

    init(_ value: Int, title: String = "") {
        id = CollidingID(value: value)
        _title = Tracked(wrappedValue: title)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("title", \.$title)
    }
}

/// A list of `CollidingRow`s.
struct CollidingList: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [CollidingRow] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
    }
}

extension ReportedIssueTests {
    /// A slot's index of its children by their own ids (`IDKey`), with ids whose hashes collide.
    @Suite struct IDIndexTests {
        @Test func childrenWhoseIDsHashAlikeAreStillDistinct() async {
            await IssueCapture.run(matching: "CollidingList.rows") { capture in
                let list = CollidingList().withAnchor()
                let first = (0..<5).map { CollidingRow($0, title: "v1") }
                list.rows = first
                #expect(first.allSatisfy { $0.lifetime == .anchored })
                // Reversed: every child is matched by id through the index, not by its place.
                let second = (0..<5).reversed().map { CollidingRow($0, title: "v2 \($0)") }
                list.rows = second
                #expect(list.rows.map(\.id.value) == [4, 3, 2, 1, 0])
                #expect(first.map(\.title) == (0..<5).map { "v2 \($0)" }, "each earlier instance continued by its own id")
                #expect(first.allSatisfy { $0.lifetime == .anchored })
                #expect(capture.messages.isEmpty)
            }
        }

        @Test func aRepeatedIDAmongCollidingOnesIsReported() async {
            await IssueCapture.run(matching: "CollidingList.rows") { capture in
                let list = CollidingList().withAnchor()
                list.rows = [CollidingRow(1), CollidingRow(2)]
                let extra = CollidingRow(2, title: "again")
                list.rows.append(extra)
                #expect(extra.lifetime == .initial)
                #expect(list.rows.filter { $0.lifetime == .anchored }.count == 2)
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.contains("two different models with the id #2") == true)
            }
        }

        @Test func removingTheFirstOfCollidingChildrenLeavesTheOthersMatchable() async {
            await IssueCapture.run(matching: "CollidingList.rows") { capture in
                let list = CollidingList().withAnchor()
                let first = (0..<4).map { CollidingRow($0) }
                list.rows = first
                // The first child holds the hash's own entry; the others collide with it.
                list.rows.removeFirst()
                #expect(first[0].lifetime == .destructed)
                let zero = CollidingRow(0, title: "new zero")
                list.rows = [CollidingRow(3, title: "three"), CollidingRow(2, title: "two"), CollidingRow(1, title: "one"), zero]
                #expect(first[1].title == "one" && first[2].title == "two" && first[3].title == "three")
                #expect(first[1...].allSatisfy { $0.lifetime == .anchored })
                #expect(zero.lifetime == .anchored)
                #expect(list.rows.map(\.id.value) == [3, 2, 1, 0])
                #expect(capture.messages.isEmpty)
            }
        }

        @Test func removingAChildLeavesTheOthersMatchable() async {
            await IssueCapture.run(matching: "CollidingList.rows") { capture in
                let list = CollidingList().withAnchor()
                let first = (0..<4).map { CollidingRow($0) }
                list.rows = first
                list.rows.remove(at: 1)
                #expect(first[1].lifetime == .destructed)
                list.rows = [CollidingRow(3, title: "three"), CollidingRow(0, title: "zero"), CollidingRow(2, title: "two")]
                #expect(first[0].title == "zero" && first[2].title == "two" && first[3].title == "three")
                #expect([first[0], first[2], first[3]].allSatisfy { $0.lifetime == .anchored })
                #expect(capture.messages.isEmpty)
            }
        }
    }
}
