/// The cell each forwarding cell forwards to (see `AnyCell.forward(to:)`), which it keeps alive.
/// Continuity is rare, so the target lives here rather than in a field of every cell. Its own lock
/// (taken briefly, under `unboundLock` or none) lets a forwarding cell's deinit remove its entry
/// whatever locks its releasing thread holds; a target an update drops is released after it.
let forwardedCells = Protected(ForwardTable())

/// Forward targets in numbered slots: a forwarding cell's `forwardSlot` is its slot's number (from
/// 1), so that adding and removing an entry is an array access, without hashing.
struct ForwardTable {
    private var targets: [AnyCell?] = []
    private var freeSlots: [UInt32] = []

    /// Stores `target` in a free slot and returns the slot's number.
    mutating func add(_ target: AnyCell) -> UInt32 {
        if let free = freeSlots.popLast() {
            targets[Int(free) - 1] = target
            return free
        }
        precondition(targets.count < Int(UInt32.max), "ModelKit: too many forwarding cells")
        targets.append(target)
        return UInt32(targets.count)
    }

    /// The target in slot `slot`.
    subscript(slot: UInt32) -> AnyCell? { targets[Int(slot) - 1] }

    /// Puts `target` in slot `slot`, returning the previous target (for the caller to release
    /// after the lock: its deinit may take it).
    mutating func replace(_ slot: UInt32, with target: AnyCell) -> AnyCell? {
        let previous = targets[Int(slot) - 1]
        targets[Int(slot) - 1] = target
        return previous
    }

    /// Empties slot `slot`, returning its target (released by the caller after the lock).
    mutating func remove(_ slot: UInt32) -> AnyCell? {
        let previous = targets[Int(slot) - 1]
        targets[Int(slot) - 1] = nil
        freeSlots.append(slot)
        return previous
    }
}
