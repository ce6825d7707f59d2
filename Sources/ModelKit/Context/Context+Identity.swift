// A context's custom model id (`let id: Int`, `UUID`…), read from the model value it holds: for a
// slot's index of its children by id (`IDKey`, Place.swift) and for the in-order match of same-id
// continuity (`ContainerVisitor.visit(_:)`). Models whose id is their `ModelID` have none.

/// A custom model id as a dictionary key: the `AnyHashable` with its hash taken once. Probing a
/// dictionary compares the key with each occupied bucket it meets; comparing two `AnyHashable`s
/// goes through runtime casts (about 1,000 instructions for a `UUID`, several hundred for an
/// `Int`), comparing two hashes first skips nearly all of them.
struct IDKey: Hashable {
    let id: AnyHashable
    let hash: Int

    init(_ id: AnyHashable) {
        self.id = id
        hash = id.hashValue
    }

    static func == (lhs: IDKey, rhs: IDKey) -> Bool {
        lhs.hash == rhs.hash && lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}

extension Context {
    /// The model's id, for matching new instances; nil for `ModelID`s (unique per instance). Read
    /// from the current model rather than kept: most models never need it, and a custom id kept
    /// here would be a boxed `AnyHashable` per model. Caller holds the lock (a custom `id` getter
    /// runs under it).
    final var idKey: IDKey? {
        guard !schema.usesInstanceIdentity, let model else { return nil }
        return IDKey(anyHashableID(of: model))
    }

    /// Whether the model, of type `M` (the caller checked the schema), has the id `id`: the in-order
    /// match of same-id continuity, specialized for `M` where the visit is. Caller holds the lock.
    @inlinable
    final func modelHasID<M: Model>(_ id: M.ID, as type: M.Type) -> Bool {
        guard let model, let liveID = Self.id(of: model, as: M.ID.self) else { return false }
        return liveID == id
    }

    /// The id of `live` (the model opened from its existential) as an `ID`, nil when its id is of
    /// another type. Only the id's getter runs unspecialized; the caller compares.
    @inlinable
    static func id<Live: Model, ID>(of live: Live, as type: ID.Type) -> ID? {
        guard Live.ID.self == ID.self else { return nil }
        // The same type: the cast only renames it.
        return unsafeBitCast(live.id, to: ID.self)
    }
}

/// The id of `model` as a dictionary key (the existential is opened, so `id` is read through
/// the model's own conformance).
private func anyHashableID<M: Model>(of model: M) -> AnyHashable {
    AnyHashable(model.id)
}
