// A context's custom model id (`let id: Int`, `UUID`…), read from the model value it holds: for a
// slot's index of its children by id (`IDKey`, Place.swift) and for the in-order match of same-id
// continuity (`ContainerVisitor.visit(_:)`). Models whose id is their `ModelID` have none.

/// A custom model id as a dictionary key: the id in an existential, and the model type it is an id
/// of. Ids are scoped by model type: an `Item` and an `ItemEditor` with the id 1 are two models,
/// which may sit side by side in a slot, and one replaces the other (an enum destination switching
/// case) rather than continuing it.
///
/// Not an `AnyHashable`: creating one looks up a conformance at run time (about 650 instructions
/// for a `UUID`), and comparing two goes through runtime casts (about 1,000). Here the id is boxed
/// with the witness its generic context already has, and two keys compare their model types, their
/// id types, then their values with the type's own `==` (a few instructions for an `Int` or a
/// `UUID`, so the hash is not kept to compare first). Ids of different types never match.
struct IDKey: Hashable {
    let id: any Hashable
    /// The model type whose id this is.
    let modelType: ObjectIdentifier

    init<M: Model>(_ id: M.ID, of type: M.Type) {
        self.id = id
        self.modelType = ObjectIdentifier(type)
    }

    static func == (lhs: IDKey, rhs: IDKey) -> Bool {
        lhs.modelType == rhs.modelType && Self.equal(lhs.id, rhs.id)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(modelType)
        id.hash(into: &hasher)
    }

    /// The id's own raw hash, seeded by the model type: for an `Int` a one-shot hash of one word,
    /// where the default would feed the boxed id to a `Hasher` (2% of anchoring a child with an
    /// `Int` id). Equal keys have one model type and equal ids of one type, so they hash alike.
    func _rawHashValue(seed: Int) -> Int {
        id._rawHashValue(seed: seed ^ Int(bitPattern: UInt(bitPattern: modelType)))
    }

    /// Whether `id`, an id of a model of type `M`, is this key's id: of its model type, its id
    /// type, and equal.
    func isKey<M: Model>(of id: M.ID, in type: M.Type) -> Bool {
        modelType == ObjectIdentifier(type) && Self.equal(id, self.id)
    }

    /// Whether two ids are of one type and equal (each existential opened in turn).
    private static func equal<L: Hashable>(_ lhs: L, _ rhs: any Hashable) -> Bool {
        func compare<R: Hashable>(_ rhs: R) -> Bool {
            // The same type: the cast only renames it.
            R.self == L.self && lhs == unsafeBitCast(rhs, to: L.self)
        }
        return compare(rhs)
    }
}

extension Context {
    /// The model's id, for matching new instances; nil for `ModelID`s (unique per instance). Read
    /// from the current model rather than kept: most models never need it, and a custom id kept
    /// here would be a boxed `AnyHashable` per model. Caller holds the lock (a custom `id` getter
    /// runs under it).
    final var idKey: IDKey? {
        guard !schema.usesInstanceIdentity, hasModel else { return nil }
        return withModelStorage { schema.idKey(in: $0) }
    }

    /// Whether the model's id is `key` (read without making a key of it). Caller holds the lock.
    final func hasID(_ key: IDKey) -> Bool {
        guard !schema.usesInstanceIdentity, hasModel else { return false }
        return withModelStorage { schema.modelHasID(in: $0, key) }
    }

    /// Whether the model, of type `M` (the caller checked the schema), has the id `id`: the in-order
    /// match of same-id continuity, specialized for `M` where the visit is. Caller holds the lock.
    @inlinable
    final func modelHasID<M: Model>(_ id: M.ID, as type: M.Type) -> Bool {
        guard hasModel else { return false }
        return withModel(as: M.self) { $0.id == id }
    }
}
