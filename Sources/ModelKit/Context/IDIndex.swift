/// A child slot's children by their own id (`let id: Int`, `UUID`…), to match new instances with
/// live children and to find two models with one id.
///
/// Keyed by the id's hash, not by the id: an entry is two words (16 bytes a bucket) where an
/// `IDKey` key made it six, and a slot of a million children kept 2²¹ buckets of them (100 MB; now
/// 33 MB). A lookup confirms the id of the child it finds by reading it from the child's model
/// (``Context/idKey``). Ids whose hashes are equal but which differ are rare, and kept apart in
/// `colliding`, by id. An entry is added and removed under its own hash; a child whose id changed
/// while it was live (a custom `id` computed from mutable state) stays under the old one until it
/// is removed, and a lookup of its old id no longer finds it.
///
/// Caller holds the hierarchy lock (a custom `id` getter runs under it).
struct IDIndex {
    private var byHash: [IDHash: Context] = [:]
    /// Children whose id hashes like the id of the child in `byHash` under that hash.
    private var colliding: [IDKey: Context] = [:]

    var isEmpty: Bool { byHash.isEmpty && colliding.isEmpty }

    mutating func reserveCapacity(_ count: Int) {
        byHash.reserveCapacity(count)
    }

    /// The child with the id `key`, if any; setting one replaces the child with that id, setting
    /// nil removes it.
    subscript(key: IDKey) -> Context? {
        get {
            let hash = IDHash(key)
            if let child = byHash[hash], child.hasID(key) { return child }
            return colliding.isEmpty ? nil : colliding[key]
        }
        set {
            let hash = IDHash(key)
            if let child = byHash[hash], child === newValue || child.hasID(key) {
                byHash[hash] = newValue
                if newValue == nil, !colliding.isEmpty { promoteColliding(hash: hash) }
            } else if byHash[hash] == nil, colliding[key] == nil {
                byHash[hash] = newValue
            } else {
                colliding[key] = newValue
            }
        }
    }

    /// Calls `body` with the entry under `key`'s hash (`hash`), made with `placeholder` if there
    /// is none: the visit of a new child looks its id up and indexes it with one hash. An entry
    /// other than the placeholder is a child with that id, or with a colliding one: the caller
    /// then decides at the end of the visit, through the subscript.
    @inline(__always)
    mutating func withEntry(hash: IDHash, placeholder: Context, _ body: (inout Context) -> Void) {
        body(&byHash[hash, default: placeholder])
    }

    /// Removes the entry under `hash` that ``withEntry(hash:placeholder:_:)`` made.
    mutating func removeEntry(hash: IDHash) {
        byHash.removeValue(forKey: hash)
    }

    /// Removes `child`'s entry. Its id is read now; an id that changed while the child was live is
    /// found by a scan.
    mutating func forget(_ child: Context) {
        guard let key = child.idKey else { return }
        let hash = IDHash(key)
        if byHash[hash] === child {
            byHash[hash] = nil
            if !colliding.isEmpty { promoteColliding(hash: hash) }
        } else if !colliding.isEmpty, colliding[key] === child {
            colliding[key] = nil
        } else if let entry = byHash.first(where: { $0.value === child }) {
            byHash[entry.key] = nil
        } else if let entry = colliding.first(where: { $0.value === child }) {
            colliding[entry.key] = nil
        }
    }

    /// Moves a colliding child with hash `hash` into `byHash`, whose entry for it was removed.
    private mutating func promoteColliding(hash: IDHash) {
        guard let entry = colliding.first(where: { IDHash($0.key) == hash }) else { return }
        colliding[entry.key] = nil
        byHash[hash] = entry.value
    }
}

/// The hash of an id (`IDKey.hashValue`), as a key of ``IDIndex``. That hash is the output of a
/// `Hasher` (or of a standard type's own one-shot hash), so it is used as it is: a dictionary keyed
/// by it only mixes in its own seed instead of hashing it again.
struct IDHash: Hashable {
    let value: Int

    init(_ key: IDKey) {
        value = key.hashValue
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }

    func _rawHashValue(seed: Int) -> Int {
        value ^ seed
    }
}
