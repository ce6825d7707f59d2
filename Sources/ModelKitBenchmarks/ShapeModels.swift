import Foundation
import ModelKit

// The three shapes every row with children is measured in (issue 16): children with the default id
// (`Pair`, identified by instance), with an explicit `Int` id (`IdentifiedRow`) and with a `UUID` id
// (`UUIDRow`), each under a parent holding an array of them.

/// A `Pair` identified by a `UUID`, as apps identify stored rows.
struct UUIDRow: Model {
    var node = ModelNode<Self>()
    let id: UUID
    @Tracked var a = 0
    @Tracked var b = 0

    init(id: UUID) {
        self.id = id
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("a", \.$a)
        r.track("b", \.$b)
    }
}

/// A parent of any number of `UUIDRow`s.
struct UUIDRowList: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [UUIDRow] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
    }
}

/// A parent model whose children have one of the three shapes.
protocol ShapedParent: Model {
    /// "default id", "Int id", "UUID id": how rows name the shape.
    static var shape: String { get }
    /// A parent holding `count` new children.
    static func make(children count: Int) -> Self
    /// Writes `a` of child `index` (the contention scenario).
    func write(child index: Int, _ value: Int)
    /// Appends one new child, then removes it.
    func appendAndRemoveOne()
    /// Replaces the children with `count` new ones.
    func setChildren(_ count: Int)
}

extension Parent: ShapedParent {
    static var shape: String { "default id" }
    static func make(children count: Int) -> Parent {
        Parent(children: (0..<count).map { _ in Pair() })
    }
    func write(child index: Int, _ value: Int) {
        let child = children[index]
        child.a = value
    }
    func appendAndRemoveOne() {
        children.append(Pair())
        children.removeLast()
    }
    func setChildren(_ count: Int) { children = (0..<count).map { _ in Pair() } }
}

extension RowList: ShapedParent {
    static var shape: String { "Int id" }
    static func make(children count: Int) -> RowList {
        RowList(rows: (0..<count).map { IdentifiedRow(id: $0) })
    }
    func write(child index: Int, _ value: Int) {
        let row = rows[index]
        row.a = value
    }
    func appendAndRemoveOne() {
        rows.append(IdentifiedRow(id: -1))
        rows.removeLast()
    }
    func setChildren(_ count: Int) { rows = (0..<count).map { IdentifiedRow(id: $0) } }
}

extension UUIDRowList: ShapedParent {
    static var shape: String { "UUID id" }
    static func make(children count: Int) -> UUIDRowList {
        UUIDRowList(rows: (0..<count).map { _ in UUIDRow(id: UUID()) })
    }
    func write(child index: Int, _ value: Int) {
        let row = rows[index]
        row.a = value
    }
    func appendAndRemoveOne() {
        // An id made beforehand, as the `Int` shape appends `-1`: `UUID()` itself takes ~2.2 µs
        // here (random bytes from the kernel), more than the append and removal it would time.
        rows.append(UUIDRow(id: Self.spareID))
        rows.removeLast()
    }
    private static let spareID = UUID()
    func setChildren(_ count: Int) { rows = (0..<count).map { _ in UUIDRow(id: UUID()) } }
}

/// The three shapes, in the order rows list them.
let allShapes: [any ShapedParent.Type] = [Parent.self, RowList.self, UUIDRowList.self]
