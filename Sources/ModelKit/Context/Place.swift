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

/// A context that lost a place in the current section: its last one (it is torn down when the
/// section ends, unless it has a place again by then), or, shared, its first one. The place is kept
/// by its parent's identity only: it is compared, never followed.
struct Orphan {
    let context: Context
    let parent: ObjectIdentifier
    let slot: Int

    init(context: Context, parent: Context, slot: Int) {
        self.context = context
        self.parent = ObjectIdentifier(parent)
        self.slot = slot
    }
}

/// The places of a context: almost always one, stored inline; a shared model has more, in an array.
/// Ten bytes, so that the context's small fields fill the rest of its word.
struct PlaceList: RandomAccessCollection {
    private enum Storage {
        case none
        case one(Place)
        /// Two or more.
        case many([Place])
    }

    private var storage = Storage.none

    init() {}

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case .many(let places): places.count
        }
    }

    subscript(position: Int) -> Place {
        switch storage {
        case .one(let place) where position == 0: place
        case .many(let places): places[position]
        default: preconditionFailure("ModelKit internal error: place \(position) out of range")
        }
    }

    /// How many places, and the place when there is one: what a walk up a chain of single places
    /// reads, without copying an array of places.
    enum Shape {
        case none
        case one(Place)
        case several
    }

    var shape: Shape {
        switch storage {
        case .none: .none
        case .one(let place): .one(place)
        case .many: .several
        }
    }

    /// The parent of the only place, unretained; nil when the list holds none or several. For a
    /// walk up a chain of single places that retains nothing.
    var onlyParentIfSingle: Unmanaged<Context>? {
        if case .one(let place) = storage { return Unmanaged.passUnretained(place.parent) }
        return nil
    }

    /// The parent of the only place. The list holds exactly one.
    var onlyParent: Context {
        guard case .one(let place) = storage else {
            preconditionFailure("ModelKit internal error: a context in \(count) places has no only parent")
        }
        return place.parent
    }

    mutating func append(_ place: Place) {
        switch storage {
        case .none:
            storage = .one(place)
        case .one(let first):
            storage = .many([first, place])
        case .many(var places):
            // Emptied first, so that the array is uniquely referenced and grows in place.
            storage = .none
            places.append(place)
            storage = .many(places)
        }
    }

    /// Puts `place` before the others: a shared model put back in the first place it lost.
    mutating func insertFirst(_ place: Place) {
        switch storage {
        case .none:
            storage = .one(place)
        case .one(let first):
            storage = .many([place, first])
        case .many(var places):
            storage = .none
            places.insert(place, at: 0)
            storage = .many(places)
        }
    }

    mutating func remove(at position: Int) {
        switch storage {
        case .none:
            preconditionFailure("ModelKit internal error: removed a place from an empty list")
        case .one:
            precondition(position == 0, "ModelKit internal error: place \(position) out of range")
            storage = .none
        case .many(var places):
            storage = .none
            places.remove(at: position)
            storage = places.count == 1 ? .one(places[0]) : .many(places)
        }
    }

    mutating func removeAll() {
        storage = .none
    }
}

/// The children of one child slot, in the slot's order, and by id for matching new instances.
struct SlotChildren {
    var list: [Context] = []
    var byID = IDIndex()
}
