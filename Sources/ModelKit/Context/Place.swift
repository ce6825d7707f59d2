/// Where a context sits in its parent: which parent, which child slot.
///
/// The parent is not retained (the parent retains its children) and not weak (see "No weak
/// references to contexts" in Internals.md): a place is removed from its child, under the lock,
/// when the child leaves the parent's slot or when the parent is destructed, which every live
/// context is before it is freed. So a place's parent is always alive.
struct Place {
    // Safety: valid while the place is in its child's `places` (see above); read under the lock.
    unowned(unsafe) let parent: Context
    /// Two bytes, so that the context's small fields fit in the tail of its `PlaceList`.
    private let slotIndex: UInt16

    init(parent: Context, slot: Int) {
        precondition(slot >= 0 && slot <= Int(UInt16.max), "ModelKit supports up to 65,536 tracked properties per model")
        self.parent = parent
        self.slotIndex = UInt16(truncatingIfNeeded: slot)
    }

    var slot: Int { Int(slotIndex) }
}

/// The places of a context: almost always one, stored inline; a shared model has more.
struct PlaceList: RandomAccessCollection {
    // `first` last: its 6 bytes of tail padding hold the context's small fields.
    private var others: [Place] = []
    private var first: Place?

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { first == nil ? 0 : 1 + others.count }

    subscript(position: Int) -> Place {
        position == 0 ? first! : others[position - 1]
    }

    mutating func append(_ place: Place) {
        if first == nil { first = place } else { others.append(place) }
    }

    mutating func remove(at position: Int) {
        if position == 0 {
            first = others.isEmpty ? nil : others.removeFirst()
        } else {
            others.remove(at: position - 1)
        }
    }

    mutating func removeAll() {
        first = nil
        others = []
    }
}

/// The children of one child slot, in the slot's order, and by id for matching new instances.
struct SlotChildren {
    var list: [Context] = []
    var byID: [AnyHashable: Context] = [:]
}
