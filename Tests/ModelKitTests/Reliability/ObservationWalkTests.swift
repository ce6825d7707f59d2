import ModelKit
import Observation
import Testing

/// A seeded random walk of writes, touches, transactions, child edits, same-id refreshes, environment
/// values, preference contributions and undo/redo over a live tree of ``Part``s, compared after every
/// step with ``ReferenceTree``: the tree, each part's values and environment and preference reads, the
/// undo stack's `canUndo`/`canRedo`, and what each part's observers heard.
///
/// A failure names the seed, the step, its operation and the operations before it, and ends the walk.
@Suite struct ObservationWalkTests {
    @Test(arguments: [1, 2, 3, 0xC0FFEE] as [UInt64])
    func observersEnvironmentFoldsAndUndoFollowTheReference(seed: UInt64) async {
        var walk = ObservationWalk(seed: seed)
        var history: [String] = []
        for step in 0..<walkSteps(1_000) {
            let operation = walk.step()
            if let mismatch = walk.mismatch() {
                let before = history.suffix(6).joined(separator: " | ")
                Issue.record("seed \(seed), step \(step), after \(operation): \(mismatch)\nbefore it: \(before)")
                return
            }
            history.append(operation)
            // The walk never suspends: without a yield now and then its seeds would hold both of the
            // cooperative pool's threads (on two cores) and starve the tests waiting beside them.
            if step % 64 == 63 { await Task.yield() }
        }
    }
}

// MARK: - The live tree

/// An environment value set on parts, read by them and the parts below them.
private struct ShadeKey: ModelEnvironmentKey { static let defaultValue = "plain" }

/// The sum of the contributions in a part's subtree: a fold whose order does not matter.
private struct WeightKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

/// The contributions in a part's subtree in order: the part first, then depth-first in child order.
private struct TrailKey: ModelPreferenceKey {
    static let defaultValue: [String] = []
    static func reduce(value: inout [String], nextValue: [String]) { value += nextValue }
}

extension ModelEnvironmentValues {
    fileprivate var shade: String { get { self[ShadeKey.self] } set { self[ShadeKey.self] = newValue } }
}

extension ModelPreferenceValues {
    fileprivate var weight: Int { get { self[WeightKey.self] } set { self[WeightKey.self] = newValue } }
    fileprivate var trail: [String] { get { self[TrailKey.self] } set { self[TrailKey.self] = newValue } }
}

/// A part of the walk's tree: a value that undo covers, a tag that it leaves out, and children in an
/// array and in an optional slot. Its observers count what they deliver in a ``Tally``.
private struct Part: Model {
    var node = ModelNode<Self>()
    let id: Int
    let tally: Tally
    @Tracked var value: Int
    @Tracked var tag: Int
    @Tracked var kids: [Part]
    @Tracked var side: Part?

    /// Twice the value, memoized.
    var doubled: Int { node.memoize { value * 2 } }

    func onActivate() {
        node.trackUndo(\.value, \.kids, \.side)
        let (id, tally) = (self.id, self.tally)
        node.onChange(of: \.value) { _, _ in tally.add(.value, of: id) }
        node.onChange(of: node.environment.shade) { _, _ in tally.add(.shade, of: id) }
        node.onChange(of: node.preference.weight) { _, _ in tally.add(.weight, of: id) }
        node.onChange(of: node.preference.trail) { _, _ in tally.add(.trail, of: id) }
        // Reads the value, then the memoized value only while the tag is set: so it can come to
        // depend on `value` before the memoized value does, and must still never see a new value
        // beside the memoized value from before the commit (Observation.md, "Memoized values").
        node.onChange(of: Sighting(value: value, doubled: tag == 0 ? nil : doubled)) { _, new in
            if let doubled = new.doubled, doubled != new.value * 2 { tally.add(.staleMemo, of: id) }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$value)
        r.track(\.$tag)
        r.track(\.$kids)
        r.track(\.$side)
    }
}

/// A value and its memoized double, as an observer saw them together.
private struct Sighting: Equatable, Sendable {
    var value: Int
    var doubled: Int?
}

/// How many times each part's `onChange` observers delivered since the last check.
private final class Tally: Sendable {
    enum Kind: String, Sendable { case value, shade, weight, trail, staleMemo }

    struct Key: Hashable, Sendable {
        var id: Int
        var kind: Kind
    }

    private let counts = Locked<[Key: Int]>([:])

    func add(_ kind: Kind, of id: Int) {
        counts.withLock { $0[Key(id: id, kind: kind), default: 0] += 1 }
    }

    /// The counts since the last call.
    func take() -> [Key: Int] {
        defer { counts.value = [:] }
        return counts.value
    }
}

/// Tells whether `withObservationTracking` notified a change of what `read` reads; once it has told
/// of one, it tracks the reads again. Observation notifies on the writing thread: the walk's.
private final class ObservationProbe: Sendable {
    private let read: @Sendable () -> Void
    private let notified = Locked(false)

    init(_ read: @escaping @Sendable () -> Void) {
        self.read = read
        track()
    }

    /// Whether a change was notified since the last call.
    func take() -> Bool {
        guard notified.value else { return false }
        notified.value = false
        track()
        return true
    }

    private func track() {
        withObservationTracking(read) { [notified] in notified.value = true }
    }
}

// MARK: - The reference

/// The plain-struct model of the walk: what every part ever created holds and sets, the live tree
/// from part 0, and the undo history. A removed part keeps its record: undo brings it back with its
/// state, its environment values and contributions included (Undo.md).
private struct ReferenceTree {
    struct Record {
        var value = 0
        var tag = 0
        var kids: [Int] = []
        var side: Int?
        var shade: String?
        var weight: Int?
        var trail: String?

        /// Whether the properties undo covers are the same in `other`.
        func undoesLike(_ other: Record) -> Bool { (value, kids, side) == (other.value, other.kids, other.side) }
    }

    /// One entry: the records of the parts a commit changed, before and after it.
    struct Edit {
        var before: [Int: Record] = [:]
        var after: [Int: Record] = [:]
    }

    /// What a live part reads.
    struct Reading: Equatable {
        var value: Int
        var tag: Int
        var shade: String
        var weight: Int
        var trail: [String]
    }

    /// The undo stack's limit: a push beyond it drops the oldest entry.
    static let limit = 40

    var records: [Int: Record] = [0: Record()]
    private var undoStack: [Edit] = []
    private var redoStack: [Edit] = []

    var canUndo: Bool { !undoStack.isEmpty }
    var canRedo: Bool { !redoStack.isEmpty }

    /// The kids, then the side child.
    func children(of id: Int) -> [Int] {
        let record = records[id]!
        return record.kids + (record.side.map { [$0] } ?? [])
    }

    /// The subtree of `id` (the whole live tree by default), depth-first in child order.
    func preorder(from id: Int = 0) -> [Int] {
        [id] + children(of: id).flatMap { preorder(from: $0) }
    }

    /// The parent of each live part but the root.
    func parents() -> [Int: Int] {
        var parents: [Int: Int] = [:]
        for id in preorder() {
            for child in children(of: id) { parents[child] = id }
        }
        return parents
    }

    /// What each live part reads: the nearest shade set at or above it, and its subtree's folds.
    func readings() -> [Int: Reading] {
        var readings: [Int: Reading] = [:]
        func visit(_ id: Int, inherited: String) -> (weight: Int, trail: [String]) {
            let record = records[id]!
            let shade = record.shade ?? inherited
            var folds = (weight: record.weight ?? 0, trail: record.trail.map { [$0] } ?? [])
            for child in children(of: id) {
                let below = visit(child, inherited: shade)
                folds.weight += below.weight
                folds.trail += below.trail
            }
            readings[id] = Reading(
                value: record.value, tag: record.tag, shade: shade, weight: folds.weight, trail: folds.trail
            )
            return folds
        }
        _ = visit(0, inherited: ShadeKey.defaultValue)
        return readings
    }

    /// Pushes the entry of a commit that started from `earlier` with `live` parts, as the stack does:
    /// none if every covered property ended where it began (Undo.md, "What an entry is").
    mutating func recordCommit(from earlier: [Int: Record], live: [Int]) {
        var edit = Edit()
        for id in Set(live).union(preorder()) {
            guard let before = earlier[id], let after = records[id], !before.undoesLike(after) else { continue }
            (edit.before[id], edit.after[id]) = (before, after)
        }
        guard !edit.before.isEmpty else { return }
        undoStack.append(edit)
        if undoStack.count > Self.limit { undoStack.removeFirst() }
        redoStack = []
    }

    /// Restores the newest entry's earlier values; false when there is none.
    mutating func undo() -> Bool {
        guard let edit = undoStack.popLast() else { return false }
        apply(edit.before)
        redoStack.append(edit)
        return true
    }

    /// Writes the newest undone entry's values again; false when there is none.
    mutating func redo() -> Bool {
        guard let edit = redoStack.popLast() else { return false }
        apply(edit.after)
        undoStack.append(edit)
        return true
    }

    /// Writes back the properties undo covers; the others stay as they are.
    private mutating func apply(_ values: [Int: Record]) {
        for (id, record) in values {
            (records[id]!.value, records[id]!.kids, records[id]!.side) = (record.value, record.kids, record.side)
        }
    }
}

// MARK: - The walk

/// Performs random operations on the live tree and the same on a ``ReferenceTree``, and compares them.
private struct ObservationWalk {
    /// The state a step started from, and what it did that the records don't show.
    private struct Step {
        var live: [Int] = [0]
        var readings: [Int: ReferenceTree.Reading] = [:]
        var touched: Set<Int> = []
        var isTransaction = false
    }

    private var random: SeededRandom
    private let tally = Tally()
    private let root: Part
    private var reference = ReferenceTree()
    private var nextID = 1
    private var last = Step()
    /// The live parts, read from the tree before each step and after each operation of a transaction.
    private var handles: [Int: Part] = [:]
    private var probes: [Int: (values: ObservationProbe, folds: ObservationProbe)] = [:]
    /// Inside a transaction: the parts it added, and the parts it removed (writable until it ends).
    private var added: Set<Int> = []
    private var removed: [Int: Part]?

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
        root = Part(id: 0, tally: tally, value: 0, tag: 0, kids: [], side: nil).withAnchor {
            $0.undoStack = ModelUndoStack(limit: ReferenceTree.limit)
        }
        probes[0] = Self.probes(of: root)
    }

    /// Performs one random operation; returns what it did.
    mutating func step() -> String {
        handles = Dictionary(uniqueKeysWithValues: subtree(of: root))
        let live = reference.preorder()
        last = Step(live: live, readings: reference.readings())
        switch live.count < 4 ? 40 : random.below(100) {
        case ..<10: return commit { $0.write(around: nil) }
        case ..<14: return commit { $0.writeTag(around: nil) }
        case ..<30: return commit { $0.transaction() }
        case ..<37: return commit { $0.refresh() }
        case ..<45: return commit { live.count > 25 ? $0.remove(around: nil) : $0.add(around: nil) }
        case ..<52: return commit { $0.remove(around: nil) }
        case ..<58: return commit { $0.move() }
        case ..<64: return commit { $0.setShade(around: nil) }
        case ..<72: return commit { $0.contribute(around: nil) }
        case ..<76: return commit { $0.touch() }
        case ..<89: return restore(undo: true)
        default: return restore(undo: false)
        }
    }

    // MARK: Operations

    /// Undoes or redoes, on the stack and on the reference.
    private mutating func restore(undo: Bool) -> String {
        let stack = root.node.undoStack
        if undo {
            stack.undo()
            return reference.undo() ? "undo" : "undo (nothing to undo)"
        }
        stack.redo()
        return reference.redo() ? "redo" : "redo (nothing to redo)"
    }

    /// Performs a commit's operation, and pushes its entry on the reference's undo stack.
    private mutating func commit(_ operation: (inout Self) -> String) -> String {
        let (earlier, live) = (reference.records, last.live)
        let description = operation(&self)
        reference.recordCommit(from: earlier, live: live)
        return description
    }

    /// A live part: in a transaction, often its focus, else one below it; outside, any.
    private mutating func pick(around focus: Int?) -> Int {
        guard let focus else { return reference.preorder().randomElement(using: &random)! }
        return random.chance(40) ? focus : reference.preorder(from: focus).randomElement(using: &random)!
    }

    private mutating func write(around focus: Int?) -> String {
        let value = random.below(6)
        // A part the transaction removed can still be written; undo brings it back from before.
        if let removed, !removed.isEmpty, random.chance(50) {
            let id = removed.keys.sorted().randomElement(using: &random)!
            removed[id]!.value = value
            reference.records[id]!.value = value
            return "write \(id).value = \(value) after its removal"
        }
        let id = pick(around: focus)
        guard let part = part(id) else { return "write: \(id) not found" }
        part.value = value
        reference.records[id]!.value = value
        return "write \(id).value = \(value)"
    }

    /// A write of the tag, which undo leaves out; half of them inside `withUntrackedModelReads`.
    private mutating func writeTag(around focus: Int?) -> String {
        let id = pick(around: focus)
        let tag = random.below(3)
        guard let part = part(id) else { return "tag: \(id) not found" }
        let untracked = random.chance(50)
        if untracked { withUntrackedModelReads { part.tag = tag } } else { part.tag = tag }
        reference.records[id]!.tag = tag
        return "write \(id).tag = \(tag)\(untracked ? " in withUntrackedModelReads" : "")"
    }

    private mutating func touch() -> String {
        let id = pick(around: nil)
        part(id)?.node.touch(\.value)
        last.touched.insert(id)
        return "touch \(id).value"
    }

    private mutating func setShade(around focus: Int?) -> String {
        let id = pick(around: focus)
        guard let part = part(id) else { return "shade: \(id) not found" }
        let shade = random.chance(30) ? nil : ["plain", "dark", "blue"].randomElement(using: &random)!
        if let shade { part.node.environment.shade = shade } else { part.node.removeEnvironment(\.shade) }
        reference.records[id]!.shade = shade
        return "\(id)'s shade \(shade ?? "removed")"
    }

    /// Sets or removes a contribution to one of the folds. In a transaction, it sometimes sets one and
    /// then back: a contribution that ends as it began, while the fold may change below it.
    private mutating func contribute(around focus: Int?) -> String {
        let id = pick(around: focus)
        guard let part = part(id) else { return "contribute: \(id) not found" }
        let record = reference.records[id]!
        let bounces = removed != nil && random.chance(30)
        let and = bounces ? " and back" : ""
        if random.chance(50) {
            let weight = random.chance(30) ? nil : random.below(3)
            for weight in bounces ? [weight, record.weight] : [weight] {
                if let weight { part.node.preference.weight = weight } else {
                    part.node.removePreference(\.weight)
                }
            }
            reference.records[id]!.weight = bounces ? record.weight : weight
            return "\(id)'s weight \(weight.map(String.init) ?? "removed")\(and)"
        }
        let trail = random.chance(30) ? nil : "\(id)\(["a", "b"].randomElement(using: &random)!)"
        for trail in bounces ? [trail, record.trail] : [trail] {
            if let trail { part.node.preference.trail = [trail] } else { part.node.removePreference(\.trail) }
        }
        reference.records[id]!.trail = bounces ? record.trail : trail
        return "\(id)'s trail \(trail ?? "removed")\(and)"
    }

    private mutating func add(around focus: Int?) -> String {
        let parent = pick(around: focus)
        guard let parentPart = part(parent) else { return "add: \(parent) not found" }
        let id = nextID
        var record = ReferenceTree.Record(value: random.below(6))
        for kid in id + 1 ..< id + 1 + random.below(3) {
            reference.records[kid] = ReferenceTree.Record(value: random.below(6))
            record.kids.append(kid)
        }
        reference.records[id] = record
        nextID = id + 1 + record.kids.count
        added.formUnion([id] + record.kids)
        return "add \(id) with \(record.kids) to \(attach(instance(of: id), to: parent, parentPart))"
    }

    /// Removes a part, never the root nor one its transaction added: a child added and removed again
    /// in one transaction, with writes in between, has no documented undo entry.
    private mutating func remove(around focus: Int?) -> String {
        let candidates = reference.preorder(from: focus ?? 0).filter { $0 != 0 && !added.contains($0) }
        guard let id = candidates.randomElement(using: &random) else { return "remove: nothing to remove" }
        let parent = reference.parents()[id]!
        guard let parentPart = part(parent), let child = part(id) else { return "remove: \(id) not found" }
        if removed != nil {
            for (id, part) in subtree(of: child) { removed![id] = part }
        }
        return "remove \(id) from \(detach(id, from: parent, parentPart))"
    }

    /// Moves a part to another parent in one transaction: it stays live, and reads what it inherits there.
    private mutating func move() -> String {
        let live = reference.preorder()
        let id = live.dropFirst().randomElement(using: &random)!
        let from = reference.parents()[id]!
        let below = Set(reference.preorder(from: id))
        guard let to = live.filter({ !below.contains($0) && $0 != from }).randomElement(using: &random)
        else { return "move \(id): no other place" }
        guard let moved = part(id), let source = part(from), let target = part(to) else {
            return "move: not found"
        }
        var slots = ("", "")
        let node = root.node
        node.transaction {
            slots = (detach(id, from: from, source), attach(moved, to: to, target))
        }
        return "move \(id) from \(slots.0) to \(slots.1)"
    }

    /// Puts a new instance of a part's subtree, with the same ids and some values changed, in its
    /// place: it continues the live parts (Hierarchy.md, "Same-id continuity").
    private mutating func refresh() -> String {
        let id = reference.preorder().dropFirst().randomElement(using: &random)!
        let parent = reference.parents()[id]!
        guard let parentPart = part(parent) else { return "refresh: \(parent) not found" }
        let members = reference.preorder(from: id)
        for member in members where random.chance(40) {
            reference.records[member]!.value = random.below(6)
            if random.chance(30) { reference.records[member]!.tag = random.below(3) }
        }
        let fresh = instance(of: id)
        if reference.records[parent]!.side == id {
            parentPart.side = fresh
        } else {
            parentPart.kids = parentPart.kids.map { $0.id == id ? fresh : $0 }
        }
        return "refresh \(id) with \(members.count) parts"
    }

    /// Several operations in one transaction around a random part, often on the same parts: a value or
    /// contribution set back while something below it changed, a part edited then removed, or
    /// removed then edited.
    private mutating func transaction() -> String {
        let focus = pick(around: nil)
        var done: [String] = []
        (added, removed) = ([], [:])
        let node = root.node
        node.transaction {
            for _ in 0..<(2 + random.below(4)) {
                let scope = reference.preorder().contains(focus) ? focus : 0
                switch random.below(6) {
                case 0: done.append(write(around: scope))
                case 1: done.append(writeTag(around: scope))
                case 2: done.append(setShade(around: scope))
                case 3: done.append(contribute(around: scope))
                case 4: done.append(add(around: scope))
                default: done.append(remove(around: scope))
                }
                handles = Dictionary(uniqueKeysWithValues: subtree(of: root))
            }
        }
        (added, removed) = ([], nil)
        last.isTransaction = true
        return "transaction around \(focus) [\(done.joined(separator: "; "))]"
    }

    // MARK: The live tree

    /// Puts `child` in the side slot of `parent` when it is empty, a time in four, else at the end of
    /// its kids; returns the slot.
    private mutating func attach(_ child: Part, to parent: Int, _ parentPart: Part) -> String {
        if reference.records[parent]!.side == nil && random.chance(25) {
            parentPart.side = child
            reference.records[parent]!.side = child.id
            return "\(parent).side"
        }
        parentPart.kids.append(child)
        reference.records[parent]!.kids.append(child.id)
        return "\(parent).kids"
    }

    /// Takes `id` out of the slot of `parent` that holds it; returns the slot.
    private mutating func detach(_ id: Int, from parent: Int, _ parentPart: Part) -> String {
        if reference.records[parent]!.side == id {
            parentPart.side = nil
            reference.records[parent]!.side = nil
            return "\(parent).side"
        }
        parentPart.kids.removeAll { $0.id == id }
        reference.records[parent]!.kids.removeAll { $0 == id }
        return "\(parent).kids"
    }

    /// A new instance of a part's subtree, from its records.
    private func instance(of id: Int) -> Part {
        let record = reference.records[id]!
        return Part(
            id: id, tally: tally, value: record.value, tag: record.tag,
            kids: record.kids.map(instance), side: record.side.map(instance)
        )
    }

    /// The live part with `id`, or a part the running transaction removed.
    private func part(_ id: Int) -> Part? {
        removed?[id] ?? handles[id]
    }

    /// A part and the parts below it, depth-first in child order.
    private func subtree(of part: Part) -> [(id: Int, part: Part)] {
        var parts: [(id: Int, part: Part)] = []
        func visit(_ part: Part) {
            parts.append((part.id, part))
            part.kids.forEach(visit)
            part.side.map(visit)
        }
        withUntrackedModelReads { visit(part) }
        return parts
    }

    private static func probes(of part: Part) -> (values: ObservationProbe, folds: ObservationProbe) {
        (
            ObservationProbe { _ = (part.value, part.node.environment.shade) },
            ObservationProbe { _ = (part.node.preference.weight, part.node.preference.trail) }
        )
    }

    // MARK: Checks

    /// How the live tree and its observers differ from the reference, or nil when they match.
    mutating func mismatch() -> String? {
        let live = subtree(of: root)
        let order = live.map(\.id)
        if order != reference.preorder() { return "the tree is \(order), expected \(reference.preorder())" }
        let readings = reference.readings()
        for (id, part) in live {
            let actual = ReferenceTree.Reading(
                value: part.value, tag: part.tag, shade: part.node.environment.shade,
                weight: part.node.preference.weight, trail: part.node.preference.trail
            )
            if actual != readings[id] { return "\(id) reads \(actual), expected \(readings[id]!)" }
            if part.doubled != part.value * 2 { return "\(id).doubled is \(part.doubled), value \(part.value)" }
            if part.lifetime != .anchored { return "\(id) is \(part.lifetime)" }
        }
        let stack = root.node.undoStack
        if (stack.canUndo, stack.canRedo) != (reference.canUndo, reference.canRedo) {
            let expected = "\(reference.canUndo), \(reference.canRedo)"
            return "canUndo, canRedo are \(stack.canUndo), \(stack.canRedo); expected \(expected)"
        }
        let stable = Set(last.live).intersection(order)
        if let mismatch = observerMismatch(stable, readings) ?? probeMismatch(stable, readings) {
            return mismatch
        }
        for id in probes.keys where !stable.contains(id) { probes[id] = nil }
        for (id, part) in live where !stable.contains(id) { probes[id] = Self.probes(of: part) }
        return nil
    }

    /// Each part live before and after the step heard once of each of its reads that changed (and of a
    /// touch of its value), and of nothing else; no observer saw a stale memoized value.
    private func observerMismatch(_ stable: Set<Int>, _ readings: [Int: ReferenceTree.Reading]) -> String? {
        let delivered = tally.take()
        if let stale = delivered.keys.filter({ $0.kind == .staleMemo }).map(\.id).min() {
            return "an observer of \(stale) saw the new value beside the memoized value from before"
        }
        var expected: [Tally.Key: Int] = [:]
        for id in stable {
            let (old, new) = (last.readings[id]!, readings[id]!)
            let changes: [(Tally.Kind, Bool)] = [
                (.value, old.value != new.value || last.touched.contains(id)), (.shade, old.shade != new.shade),
                (.weight, old.weight != new.weight), (.trail, old.trail != new.trail),
            ]
            for (kind, changed) in changes where changed { expected[Tally.Key(id: id, kind: kind)] = 1 }
        }
        let heard = delivered.filter { stable.contains($0.key.id) }
        guard heard != expected else { return nil }
        let keys = Set(heard.keys).union(expected.keys).sorted {
            ($0.id, $0.kind.rawValue) < ($1.id, $1.kind.rawValue)
        }
        let differences = keys.filter { heard[$0] != expected[$0] }.map {
            "\($0.id).\($0.kind) heard \(heard[$0] ?? 0)×, expected \(expected[$0] ?? 0)×"
        }
        return "onChange: " + differences.joined(separator: ", ")
    }

    /// Observation notified each change of a part's value, touch or shade, and nothing else (a
    /// transaction may notify a property it set back: Observation.md); it missed no change of a fold
    /// (a contribution changed below notifies without comparing: Environment.md).
    private func probeMismatch(_ stable: Set<Int>, _ readings: [Int: ReferenceTree.Reading]) -> String? {
        for id in stable.sorted() {
            guard let probe = probes[id] else { continue }
            let (old, new) = (last.readings[id]!, readings[id]!)
            let changed = old.value != new.value || old.shade != new.shade || last.touched.contains(id)
            let notified = probe.values.take()
            if notified != changed && !(last.isTransaction && notified) {
                return "Observation of \(id).value and its shade \(notified ? "notified" : "missed") a change"
            }
            let foldsChanged = old.weight != new.weight || old.trail != new.trail
            if !probe.folds.take() && foldsChanged { return "Observation of \(id)'s folds missed their change" }
        }
        return nil
    }
}
