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

/// An id that hashes apart from the others below 1,000,000, and in groups of four from there on.
struct MixedID: Hashable, Sendable, CustomStringConvertible {
    let value: Int

    func hash(into hasher: inout Hasher) {
        hasher.combine(value >= 1_000_000 ? value / 4 : value)
    }

    var description: String { "#\(value)" }
}

/// A child identified by a `MixedID`.
struct MixedRow: Model {
    var node = ModelNode<Self>()
    let id: MixedID
    @Tracked var round: Int

    init(_ value: Int, round: Int) {
        id = MixedID(value: value)
        _round = Tracked(wrappedValue: round)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("round", \.$round)
    }
}

struct MixedList: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [MixedRow] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
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
                #expect(capture.messages.first?.contains("two different CollidingRow models with the id #2") == true)
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

        @Test func aLargeSlotStaysMatchableByIDThroughRandomEdits() async {
            // Appends, removals, reorders, refreshes from new instances and repeated ids, checked
            // against a reference after each edit: the index grows, shrinks, moves its last entry
            // into removed ones' places and keeps colliding ids apart.
            await IssueCapture.run(matching: "MixedList.rows") { capture in
                var random = SeededRandom(seed: 0x1D_1DE5)
                let list = MixedList().withAnchor()
                var live: [Int: MixedRow] = [:]
                var order: [Int] = []
                var nextID = 0
                var reported = 0
                func newID() -> Int {
                    nextID += 1
                    // One in four from the colliding range.
                    return random.chance(25) ? 1_000_000 + nextID : nextID
                }
                for step in 0..<walkSteps(600) {
                    switch random.below(6) {
                    case 0, 1:
                        let ids = (0..<(1 + random.below(40))).map { _ in newID() }
                        list.rows.append(contentsOf: ids.map { MixedRow($0, round: step) })
                        for (offset, id) in ids.enumerated() { live[id] = list.rows[order.count + offset] }
                        order += ids
                    case 2:
                        for _ in 0..<random.below(30) where !order.isEmpty {
                            let position = random.below(order.count)
                            live[order.remove(at: position)] = nil
                            list.rows.remove(at: position)
                        }
                    case 3:
                        order.shuffle(using: &random)
                        list.rows = order.map { live[$0]! }
                    case 4:
                        // A refresh from new instances, in another order: every child is continued.
                        order.shuffle(using: &random)
                        list.rows = order.map { MixedRow($0, round: step) }
                        #expect(order.allSatisfy { live[$0]!.round == step && live[$0]!.lifetime == .anchored })
                    default:
                        guard let id = order.randomElement(using: &random) else { continue }
                        // A second model with a live id: reported, left unanchored, then taken out.
                        let second = MixedRow(id, round: -1)
                        list.rows.append(second)
                        reported += 1
                        #expect(second.lifetime == .initial)
                        list.rows.removeLast()
                    }
                    #expect(list.rows.map(\.id.value) == order, "step \(step)")
                    #expect(capture.messages.count == reported, "step \(step)")
                    // Lets the tests queued behind this long synchronous walk run now and then.
                    if step % 16 == 15 { await Task.yield() }
                }
                #expect(live.values.allSatisfy { $0.lifetime == .anchored })
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
