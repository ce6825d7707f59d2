import ModelKit

/// A node of the random walk, identified by a number: a new instance with the same number continues
/// the live node in its slot. Its `onActivate` and teardown are counted in a ``WalkLedger``.
struct WalkNode: Model {
    var node = ModelNode<Self>()
    let id: Int
    let ledger: WalkLedger
    let token: LifetimeTracker.Token?
    @Tracked var value = 0
    @Tracked var child: WalkNode? = nil
    @Tracked var children: [WalkNode] = []

    init(
        _ id: Int, ledger: WalkLedger, token: LifetimeTracker.Token?, value: Int = 0, children: [WalkNode] = []
    ) {
        self.id = id
        self.ledger = ledger
        self.token = token
        _value = Tracked(wrappedValue: value)
        _children = Tracked(wrappedValue: children)
    }

    func onActivate() {
        ledger.activated(id)
        node.onCancel { [ledger, id] in ledger.tornDown(id) }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("value", \.$value)
        r.track("child", \.$child)
        r.track("children", \.$children)
    }
}

/// How often each walk node was activated and torn down.
final class WalkLedger: Sendable {
    private struct Counts {
        var activations: [Int: Int] = [:]
        var teardowns: [Int: Int] = [:]
        var totalActivations = 0
        var totalTeardowns = 0
    }

    private let counts = Protected(Counts())

    func activated(_ id: Int) {
        counts.withLock {
            $0.activations[id, default: 0] += 1
            $0.totalActivations += 1
        }
    }

    func tornDown(_ id: Int) {
        counts.withLock {
            $0.teardowns[id, default: 0] += 1
            $0.totalTeardowns += 1
        }
    }

    /// (activations, teardowns) of node `id`.
    func counts(of id: Int) -> (activations: Int, teardowns: Int) {
        counts.withLock { ($0.activations[id] ?? 0, $0.teardowns[id] ?? 0) }
    }

    var totals: (activations: Int, teardowns: Int) {
        counts.withLock { ($0.totalActivations, $0.totalTeardowns) }
    }
}

/// The simple model the walk is compared with: which nodes sit in which slot, in order, and so
/// which nodes are alive (in at least one place, or the root) and which were torn down.
///
/// Its rules are the documented semantics: a node removed from its last place is torn down and its
/// children lose their place under it (and are torn down in turn when that was their last); a node
/// continued by a new instance with its id keeps its places and takes the new instance's value and
/// children.
struct WalkReference {
    enum Kind: CaseIterable, CustomStringConvertible {
        case children, child

        var description: String { self == .children ? "children" : "child" }
    }

    struct Slot: Hashable, CustomStringConvertible {
        var parent: Int
        var kind: Kind

        var description: String { "\(parent).\(kind)" }
    }

    static let root = 0

    private(set) var content: [Slot: [Int]] = [:]
    private(set) var places: [Int: [Slot]] = [:]
    private(set) var live: Set<Int> = [root]
    private(set) var destructed: Set<Int> = []
    /// The torn-down nodes in teardown order (to pick from without sorting).
    private(set) var destructedInOrder: [Int] = []
    private(set) var values: [Int: Int] = [root: 0]
    /// Torn down since the last ``takeNewlyDestructed()``.
    private var newlyDestructed: [Int] = []

    func ids(in slot: Slot) -> [Int] {
        content[slot] ?? []
    }

    func contains(_ id: Int, in slot: Slot) -> Bool {
        content[slot]?.contains(id) == true
    }

    /// `id` and every node below it.
    func subtree(of id: Int) -> Set<Int> {
        var result: Set<Int> = []
        var stack = [id]
        while let next = stack.popLast() {
            guard result.insert(next).inserted else { continue }
            for kind in Kind.allCases { stack.append(contentsOf: ids(in: Slot(parent: next, kind: kind))) }
        }
        return result
    }

    /// Adds a new node, or a live node at one more place.
    mutating func add(_ id: Int, to slot: Slot, value: Int? = nil) {
        if let value {
            live.insert(id)
            values[id] = value
        }
        content[slot, default: []].append(id)
        places[id, default: []].append(slot)
    }

    /// Removes one place of `id`; its last place gone, it is torn down.
    mutating func remove(_ id: Int, from slot: Slot) {
        content[slot]?.removeAll { $0 == id }
        places[id]?.removeAll { $0 == slot }
        if places[id]?.isEmpty == true { destruct(id) }
    }

    mutating func setValue(_ value: Int, of id: Int) {
        values[id] = value
    }

    /// A new instance with the id of live node `id` continues it: its value becomes the node's, its
    /// `child` slot empties, and its `children` slot holds `children` in order. Each of those is a new
    /// node, or (a key of `continued`, with its new value) a new instance with the id of a live child
    /// of `id`, which continues that child in turn, with no children of its own.
    mutating func continueNode(_ id: Int, value: Int, children: [Int], continued: [Int: Int] = [:]) {
        values[id] = value
        let childSlot = Slot(parent: id, kind: .child)
        for old in ids(in: childSlot) { remove(old, from: childSlot) }
        let slot = Slot(parent: id, kind: .children)
        let previous = ids(in: slot)
        content[slot] = nil
        for old in previous where continued[old] == nil {
            places[old]?.removeAll { $0 == slot }
            if places[old]?.isEmpty == true { destruct(old) }
        }
        for child in children {
            if let childValue = continued[child] {
                content[slot, default: []].append(child)
                continueNode(child, value: childValue, children: [])
            } else {
                add(child, to: slot, value: 0)
            }
        }
    }

    /// Tears everything down, as releasing the anchor does.
    mutating func releaseRoot() {
        destruct(Self.root)
    }

    mutating func takeNewlyDestructed() -> [Int] {
        defer { newlyDestructed = [] }
        return newlyDestructed
    }

    private mutating func destruct(_ id: Int) {
        live.remove(id)
        destructed.insert(id)
        destructedInOrder.append(id)
        newlyDestructed.append(id)
        places[id] = nil
        dropChildren(of: id)
    }

    private mutating func dropChildren(of id: Int) {
        for kind in Kind.allCases {
            let slot = Slot(parent: id, kind: kind)
            let children = ids(in: slot)
            content[slot] = nil
            for child in children {
                places[child]?.removeAll { $0 == slot }
                if places[child]?.isEmpty == true { destruct(child) }
            }
        }
    }
}
