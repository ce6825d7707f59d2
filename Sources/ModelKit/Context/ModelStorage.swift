/// Room for the model value a context holds: five words inside the context itself.
///
/// A model of up to five words (its node, an id and a few tracked properties: a `UUID` id and two
/// properties take exactly five) is held in place. A larger one, or one aligned more strictly than
/// a word, is held as an `any Model`, which takes the same five words and boxes the value on the
/// heap. Holding every model as an `any Model` kept only three words in place, so a model with an
/// id of its own paid a heap box of 48–64 bytes per context.
///
/// The storage does not know its type: the context's schema does (``AnySchema/holdsModelInPlace``
/// and the model operations of `Schema<M>`), and the context's flags say whether a value is held.
/// Safety: guarded by the hierarchy lock, like the rest of the context's state; a held value is
/// destroyed exactly once, by ``release(at:as:)`` or ``destroy(at:as:)``.
@usableFromInline
struct ModelStorage {
    @usableFromInline var words: (UInt, UInt, UInt, UInt, UInt) = (0, 0, 0, 0, 0)

    @inlinable
    init() {}

    /// Whether an `M` is held in the storage itself rather than as an `any Model`.
    @inlinable @inline(__always)
    static func holdsInPlace<M>(_: M.Type) -> Bool {
        MemoryLayout<M>.size <= MemoryLayout<ModelStorage>.size
            && MemoryLayout<M>.alignment <= MemoryLayout<ModelStorage>.alignment
    }

    /// Starts holding `model` in the empty storage at `storage`.
    @inline(__always)
    static func initialize<M: Model>(at storage: UnsafeMutableRawPointer, with model: M) {
        if holdsInPlace(M.self) {
            storage.bindMemory(to: M.self, capacity: 1).initialize(to: model)
        } else {
            storage.bindMemory(to: (any Model).self, capacity: 1).initialize(to: model)
        }
    }

    /// Calls `body` with the `M` held by the storage at `storage`, in place (an `any Model` is
    /// opened, so that its box is written in place rather than replaced).
    @inlinable @inline(__always)
    static func withValue<M: Model, R>(at storage: UnsafeMutableRawPointer, as _: M.Type, _ body: (inout M) -> R) -> R {
        if holdsInPlace(M.self) { return body(&storage.assumingMemoryBound(to: M.self).pointee) }
        func open<T: Model>(_ value: inout T) -> R {
            // `T` is `M`: the rebinding only renames it.
            withUnsafeMutablePointer(to: &value) {
                body(&UnsafeMutableRawPointer($0).assumingMemoryBound(to: M.self).pointee)
            }
        }
        return open(&storage.assumingMemoryBound(to: (any Model).self).pointee)
    }

    /// Calls `body` with the address of the `M` held by the storage at `storage`, for reading.
    @inline(__always)
    static func withAddress<M: Model>(at storage: UnsafeMutableRawPointer, as _: M.Type, _ body: (UnsafeRawPointer) -> Void) {
        if holdsInPlace(M.self) { return body(UnsafeRawPointer(storage)) }
        func open<T: Model>(_ value: T) {
            withUnsafePointer(to: value) { body(UnsafeRawPointer($0)) }
        }
        open(storage.assumingMemoryBound(to: (any Model).self).pointee)
    }

    /// Moves the held `M` out, then releases it, leaving the storage empty: the storage is not
    /// touched once the release may have freed its owner.
    @inline(__always)
    static func release<M: Model>(at storage: UnsafeMutableRawPointer, as _: M.Type) {
        if holdsInPlace(M.self) {
            _ = storage.assumingMemoryBound(to: M.self).move()
        } else {
            _ = storage.assumingMemoryBound(to: (any Model).self).move()
        }
    }

    /// Destroys the held `M`, leaving the storage empty.
    @inline(__always)
    static func destroy<M: Model>(at storage: UnsafeMutableRawPointer, as _: M.Type) {
        if holdsInPlace(M.self) {
            storage.assumingMemoryBound(to: M.self).deinitialize(count: 1)
        } else {
            storage.assumingMemoryBound(to: (any Model).self).deinitialize(count: 1)
        }
    }
}
