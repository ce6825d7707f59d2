/// Undo entries and the ring that keeps the undo side of a history.

/// One changed property in an undo entry: its model, and its values before and after the commit.
///
/// Made by the inlined write path (`Context.recordChangeAndEndSection`), so that boxing the values
/// into `Any` is specialized for their type.
@usableFromInline
struct UndoChange {
    /// Kept alive by the entry: a destructed context is a small husk, and identifies the model.
    @usableFromInline let context: Context
    @usableFromInline let index: Int
    @usableFromInline let old: Any
    @usableFromInline let new: Any

    @inlinable
    init(context: Context, index: Int, old: Any, new: Any) {
        self.context = context
        self.index = index
        self.old = old
        self.new = new
    }
}

/// One undo entry: the changes of one commit. Most commits change one property: `first` holds it,
/// and an entry of one plain change allocates nothing beyond its slot.
@usableFromInline
struct UndoEntry: @unchecked Sendable {
    // Safety: guarded by the hierarchy lock while in a history; a dropped entry is only released
    // (after the lock). Its values are tracked values, which are `Sendable`.
    let first: UndoChange
    /// The commit's other changes, and whether a child slot is among its changes.
    let more: UndoEntryMore?

    init(_ change: consuming UndoChange) {
        first = consume change
        more = nil
    }

    /// An entry of `changes` (not empty); `hasChildSlot`: one of them changes a child slot.
    init(_ changes: [UndoChange], hasChildSlot: Bool) {
        first = changes[0]
        more = changes.count > 1 || hasChildSlot
            ? UndoEntryMore(changes: Array(changes.dropFirst()), hasChildSlot: hasChildSlot) : nil
    }

    var list: [UndoChange] {
        guard let more else { return [first] }
        return [first] + more.changes
    }

    /// Whether dropping the entry may leave kept copies of removed models unreferenced: it changes
    /// a child slot, or a model removed since.
    var mayReferToRevivals: Bool {
        more != nil || !first.context.state.isLive
    }

    /// The contexts of the models in the entry's child-slot values (see
    /// `UndoEntryMore.slotModelContexts`); empty for an entry that changes no child slot. Caller
    /// holds the lock.
    func slotModelContexts() -> [ObjectIdentifier] {
        guard let more, more.hasChildSlot else { return [] }
        if let noted = more.slotModelContexts { return noted }
        var seen = Set<ObjectIdentifier>()
        var contexts: [ObjectIdentifier] = []
        for change in list where change.context.schema.isChildSlot(change.index) {
            for value in [change.old, change.new] {
                _ = mappingModels(in: value) { model in
                    if let context = nodeBox(of: model).context, seen.insert(ObjectIdentifier(context)).inserted {
                        contexts.append(ObjectIdentifier(context))
                    }
                    return model
                }
            }
        }
        more.slotModelContexts = contexts
        return contexts
    }
}

/// The rest of an entry of several changes (or of a child slot's change).
final class UndoEntryMore {
    let changes: [UndoChange]
    let hasChildSlot: Bool
    /// The contexts of the models in the entry's child-slot values, old and new, noted the first
    /// time `HierarchyUndo.releaseUnreferencedRevivals` walks the entry, so that later walks look
    /// them up instead of visiting every model of every value again. The values never change, and
    /// their models' boxes keep those contexts alive. Guarded by the hierarchy lock.
    @exclusivity(unchecked) var slotModelContexts: [ObjectIdentifier]?

    init(changes: [UndoChange], hasChildSlot: Bool) {
        self.changes = changes
        self.hasChildSlot = hasChildSlot
    }
}

/// The undo side of a history: a ring of at most `limit` entries. At the limit, appending moves
/// the oldest entry out of the slot the new one takes (no shifting, no copy); below it the ring
/// grows by doubling.
struct UndoRing: ~Copyable {
    private var slots: UnsafeMutablePointer<UndoEntry>
    private var capacity = 0
    private var head = 0
    private(set) var count = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
        slots = UnsafeMutablePointer<UndoEntry>.allocate(capacity: 0)
    }

    deinit {
        for offset in 0..<count { (slots + position(offset)).deinitialize(count: 1) }
        slots.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func position(_ offset: Int) -> Int {
        let position = head + offset
        return position >= capacity ? position - capacity : position
    }

    /// Appends `entry`, returning the oldest entry if the ring was at its limit (or `entry` itself
    /// when the limit is 0).
    @inline(__always)
    mutating func append(_ entry: consuming UndoEntry) -> UndoEntry? {
        if count == capacity {
            if capacity == limit {
                guard capacity > 0 else { return entry }
                let dropped = (slots + head).move()
                (slots + head).initialize(to: entry)
                head = head + 1 == capacity ? 0 : head + 1
                return dropped
            }
            grow()
        }
        (slots + position(count)).initialize(to: entry)
        count += 1
        return nil
    }

    /// Whether `appendReleasingOldest` may be used: below the limit, or at it with an oldest
    /// entry that is a plain property's change of a live model. Releasing such an entry under the
    /// lock runs no model code: its values hold no models (they would be a child slot's), and the
    /// context it retains is owned by the hierarchy.
    @inline(__always)
    var canReleaseOldestInPlace: Bool {
        count < limit || (slots[head].more == nil && slots[head].first.context.state.isLive)
    }

    /// Appends `entry`, releasing the oldest entry in place at the limit (see
    /// `canReleaseOldestInPlace`; the limit is above 0). No entry is copied or wrapped in an
    /// optional: entries hold `Any` values, so either goes through their types' witnesses.
    @inline(__always)
    mutating func appendReleasingOldest(_ entry: consuming UndoEntry) {
        if count == capacity {
            if capacity == limit {
                (slots + head).deinitialize(count: 1)
                (slots + head).initialize(to: consume entry)
                head = head + 1 == capacity ? 0 : head + 1
                return
            }
            grow()
        }
        (slots + position(count)).initialize(to: consume entry)
        count += 1
    }

    private mutating func grow() {
        let newCapacity = min(limit, max(8, capacity * 2))
        let newSlots = UnsafeMutablePointer<UndoEntry>.allocate(capacity: newCapacity)
        let firstPart = min(count, capacity - head)
        (newSlots).moveInitialize(from: slots + head, count: firstPart)
        (newSlots + firstPart).moveInitialize(from: slots, count: count - firstPart)
        slots.deallocate()
        slots = newSlots
        capacity = newCapacity
        head = 0
    }

    mutating func popLast() -> UndoEntry? {
        guard count > 0 else { return nil }
        count -= 1
        return (slots + position(count)).move()
    }

    /// Moves every entry out, oldest first.
    mutating func removeAll(into entries: inout [UndoEntry]) {
        for offset in 0..<count { entries.append((slots + position(offset)).move()) }
        count = 0
        head = 0
    }

    /// Calls `body` with each entry, oldest first.
    func forEach(_ body: (borrowing UndoEntry) -> Void) {
        for offset in 0..<count { body(slots[position(offset)]) }
    }
}
