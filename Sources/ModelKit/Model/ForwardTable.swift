/// The cell each forwarding cell forwards to (see `AnyCell.forward(to:)`), which it keeps alive.
/// Continuity is rare, so the target lives here rather than in a field of every cell. Its own lock
/// (taken briefly, under `unboundLock` or none) lets a forwarding cell's deinit remove its entry
/// whatever locks its releasing thread holds; a target an update drops is released after it.
let forwardedCells = Protected(ForwardTable())

/// Forward targets in numbered slots: a forwarding cell's `forwardSlot` is its slot's number (from
/// 1), so that adding and removing an entry is an array access, without hashing.
struct ForwardTable {
    /// A slot: the target, and the forwarding cell itself. The forwarding cell is not retained (it
    /// is used only unretained, under the table's lock): its deinit empties the slot under that
    /// lock, so a cell found here while the lock is held is still there to use (its deinit, if it
    /// began, waits for the lock).
    private struct Entry {
        var target: AnyCell?
        var source: Unmanaged<AnyCell>?
    }

    private var entries: [Entry] = []
    private var freeSlots: [UInt32] = []

    /// Stores `target`, the cell `source` forwards to, in a free slot and returns the slot's number.
    mutating func add(_ target: AnyCell, from source: AnyCell) -> UInt32 {
        if let free = freeSlots.popLast() {
            entries[Int(free) - 1] = Entry(target: target, source: Unmanaged.passUnretained(source))
            return free
        }
        precondition(entries.count < Int(UInt32.max), "ModelKit: too many forwarding cells")
        entries.append(Entry(target: target, source: Unmanaged.passUnretained(source)))
        return UInt32(entries.count)
    }

    /// The target in slot `slot`.
    subscript(slot: UInt32) -> AnyCell? { entries[Int(slot) - 1].target }

    /// Puts `target` in slot `slot`, returning the previous target (for the caller to release
    /// after the lock: its deinit may take it).
    mutating func replace(_ slot: UInt32, with target: AnyCell) -> AnyCell? {
        let previous = entries[Int(slot) - 1].target
        entries[Int(slot) - 1].target = target
        return previous
    }

    /// Empties slot `slot`, returning its target (released by the caller after the lock).
    mutating func remove(_ slot: UInt32) -> AnyCell? {
        let previous = entries[Int(slot) - 1].target
        entries[Int(slot) - 1] = Entry()
        freeSlots.append(slot)
        return previous
    }

    /// Retires each forwarding cell whose chain of forwards ends at one of `cells` (the cells of a
    /// model being torn down), as the teardown retires the live cells: a forwarding cell keeps the
    /// value its model had when a newer instance continued it, which may capture that older
    /// instance and so keep it alive for ever. Returns the values taken out, for the caller to
    /// release after the locks. The caller holds the hierarchy lock (for a section) and
    /// `unboundLock`, under which the forwarding cells' values are read; this runs under the
    /// table's lock.
    func retireSources(forwardingTo cells: Set<ObjectIdentifier>) -> [Any] {
        var retired: [Any] = []
        // The usual refresh drops the earlier instances at once, and their slots with them.
        guard freeSlots.count < entries.count else { return retired }
        for entry in entries {
            guard let source = entry.source, var target = entry.target else { continue }
            var hops = 0
            while target.forwardSlot != 0, let next = self[target.forwardSlot], hops < entries.count {
                target = next
                hops += 1
            }
            guard cells.contains(ObjectIdentifier(target)) else { continue }
            if let value = source._withUnsafeGuaranteedRef({ $0.retire() }) { retired.append(value) }
        }
        return retired
    }
}
