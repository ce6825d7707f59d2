/// A child slot's children by their own id (`let id: Int`, `UUID`…), to match new instances with
/// live children and to find two models with one id.
///
/// Keyed by the id's hash, not by the id, and laid out like a compact hash table: the entries (a
/// child and its id's hash, 16 bytes) in the order they were added, and an open-addressed table of
/// 4-byte positions into them, at most half full. A slot of 100,000 children keeps a 1 MB table
/// where a dictionary keyed by the hash kept 4 MB and one keyed by the boxed id 12 MB, and the
/// entries are written in order, so anchoring many children touches memory mostly in sequence.
///
/// A lookup confirms the id of the child it finds by reading it from the child's model
/// (``Context/hasID(_:)``). Ids whose hashes are equal but which differ are rare, and kept apart in
/// `colliding`, by id. An entry is added and removed under its own hash; a child whose id changed
/// while it was live (a custom `id` computed from mutable state) stays under the old one until it
/// is removed, and a lookup of its old id no longer finds it.
///
/// Caller holds the hierarchy lock (a custom `id` getter runs under it).
struct IDIndex {
    /// The children, each with its id's hash: in the order they were added, but for removals,
    /// which move the last entry into the gap.
    private var entries: [Entry] = []
    /// Open addressing over `entries`, probed linearly from `hash & (count - 1)`: `empty`, or an
    /// entry's position + 1. Its count is zero or a power of two at least twice the entries'.
    private var table: [UInt32] = []
    /// Children whose id hashes like the id of the child already indexed under that hash.
    private var colliding: [IDKey: Context] = [:]

    private struct Entry {
        let hash: Int
        var child: Context
    }

    private static let empty: UInt32 = 0

    var isEmpty: Bool { entries.isEmpty && colliding.isEmpty }

    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        if Self.tableSize(for: count) > table.count { rebuild(size: Self.tableSize(for: count)) }
    }

    /// The child with the id `key`, if any; setting one replaces the child with that id, setting
    /// nil removes it.
    subscript(key: IDKey) -> Context? {
        get {
            if let position = position(of: IDHash(key).value), entries[position].child.hasID(key) {
                return entries[position].child
            }
            return colliding.isEmpty ? nil : colliding[key]
        }
        set {
            let hash = IDHash(key).value
            if let position = position(of: hash) {
                let child = entries[position].child
                if child === newValue || child.hasID(key) {
                    if let newValue {
                        entries[position].child = newValue
                    } else {
                        remove(at: position)
                        if !colliding.isEmpty { promoteColliding(hash: hash) }
                    }
                } else {
                    colliding[key] = newValue
                }
            } else if colliding.isEmpty || colliding[key] == nil {
                if let newValue { append(newValue, hash: hash) }
            } else {
                colliding[key] = newValue
            }
        }
    }

    /// Calls `body` with the child under `hash`, made `placeholder` if there is none: the visit of a
    /// new child looks its id up and indexes it with one hash. A child other than the placeholder
    /// has that id, or a colliding one: the caller then decides at the end of the visit, through
    /// the subscript.
    @inline(__always)
    mutating func withEntry(hash: IDHash, placeholder: Context, _ body: (inout Context) -> Void) {
        let position = position(of: hash.value) ?? append(placeholder, hash: hash.value)
        body(&entries[position].child)
    }

    /// Removes the entry under `hash` that ``withEntry(hash:placeholder:_:)`` made.
    mutating func removeEntry(hash: IDHash) {
        if let position = position(of: hash.value) { remove(at: position) }
    }

    /// Removes `child`'s entry. Its id is read now; an id that changed while the child was live is
    /// found by a scan.
    mutating func forget(_ child: Context) {
        guard let key = child.idKey else { return }
        let hash = IDHash(key).value
        if let position = position(of: hash), entries[position].child === child {
            remove(at: position)
            if !colliding.isEmpty { promoteColliding(hash: hash) }
        } else if !colliding.isEmpty, colliding[key] === child {
            colliding[key] = nil
        } else if let position = entries.firstIndex(where: { $0.child === child }) {
            remove(at: position)
        } else if let entry = colliding.first(where: { $0.value === child }) {
            colliding[entry.key] = nil
        }
    }

    // MARK: The table

    /// The position of the entry with `hash` (at most one has it).
    @inline(__always)
    private func position(of hash: Int) -> Int? {
        if table.isEmpty { return nil }
        let mask = table.count - 1
        var slot = hash & mask
        while true {
            let value = table[slot]
            if value == Self.empty { return nil }
            if entries[Int(value) - 1].hash == hash { return Int(value) - 1 }
            slot = (slot + 1) & mask
        }
    }

    /// The slot holding position `position`, whose entry's hash is `hash`.
    private func slot(of position: Int, hash: Int) -> Int {
        let mask = table.count - 1
        var slot = hash & mask
        while table[slot] != UInt32(position + 1) {
            slot = (slot + 1) & mask
        }
        return slot
    }

    /// Adds an entry for `hash`, which has none; returns its position.
    @discardableResult
    private mutating func append(_ child: Context, hash: Int) -> Int {
        if Self.tableSize(for: entries.count + 1) > table.count {
            rebuild(size: Self.tableSize(for: entries.count + 1))
        }
        entries.append(Entry(hash: hash, child: child))
        let mask = table.count - 1
        var slot = hash & mask
        while table[slot] != Self.empty {
            slot = (slot + 1) & mask
        }
        table[slot] = UInt32(entries.count)
        return entries.count - 1
    }

    /// Removes the entry at `position`: its slot is emptied and the slots after it in its run moved
    /// back where their probes would look first (no tombstones), and the last entry moves into its
    /// place.
    private mutating func remove(at position: Int) {
        let mask = table.count - 1
        var hole = slot(of: position, hash: entries[position].hash)
        var next = (hole + 1) & mask
        while table[next] != Self.empty {
            let home = entries[Int(table[next]) - 1].hash & mask
            // The entry at `next` may fill the hole unless its home lies after the hole, up to
            // `next` (cyclically).
            let homeIsBetween = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !homeIsBetween {
                table[hole] = table[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        table[hole] = Self.empty
        let last = entries.count - 1
        if position != last {
            table[slot(of: last, hash: entries[last].hash)] = UInt32(position + 1)
            entries.swapAt(position, last)
        }
        entries.removeLast()
    }

    /// Rebuilds the table with `size` slots.
    private mutating func rebuild(size: Int) {
        table = Array(repeating: Self.empty, count: size)
        let mask = size - 1
        for (position, entry) in entries.enumerated() {
            var slot = entry.hash & mask
            while table[slot] != Self.empty {
                slot = (slot + 1) & mask
            }
            table[slot] = UInt32(position + 1)
        }
    }

    /// A power of two at least twice `count` (at least 8): the table stays at most half full.
    private static func tableSize(for count: Int) -> Int {
        var size = 8
        while size < count * 2 { size *= 2 }
        return size
    }

    /// Moves a colliding child with hash `hash` into the table, whose entry for it was removed.
    private mutating func promoteColliding(hash: Int) {
        guard let entry = colliding.first(where: { IDHash($0.key).value == hash }) else { return }
        colliding[entry.key] = nil
        append(entry.value, hash: hash)
    }
}

/// The hash of an id (`IDKey.hashValue`), as ``IDIndex`` probes with it. That hash is the output
/// of a `Hasher` (or of a standard type's own one-shot hash), so it is used as it is.
struct IDHash {
    let value: Int

    init(_ key: IDKey) {
        value = key.hashValue
    }
}
