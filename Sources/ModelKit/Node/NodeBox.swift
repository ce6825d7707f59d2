import Synchronization

/// The identity of one model instance, shared by all its copies: its id, the modifiers set before
/// anchoring, and (once anchored) its context.
@usableFromInline
final class NodeBox: @unchecked Sendable {
    let id: ModelID

    /// The bound context (`Unmanaged` bits) once anchored; before, 0, or 1 while modifiers are set
    /// (so that anchoring a model without any takes no lock to find none). Never a context's bits
    /// before `bind`, so identity checks against a context need no masking.
    @usableFromInline let contextBits = Atomic<UInt>(0)

    /// `contextBits` of an unbound box with modifiers.
    private static let modifiedBits: UInt = 1

    /// Before anchoring: the modifiers set so far; after: the context, kept alive for `contextBits`.
    private enum Storage {
        case unmodified
        case modified(ModifierList)
        case bound(Context)
    }

    // Safety: guarded by `unboundLock`; only `contextBits` is read concurrently.
    @exclusivity(unchecked) private var storage = Storage.unmodified

    init(id: ModelID = .next()) {
        self.id = id
    }

    var context: Context? {
        let bits = contextBits.load(ordering: .acquiring)
        guard bits > Self.modifiedBits else { return nil }
        return Unmanaged<Context>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            .takeUnretainedValue()
    }

    /// Whether the box is bound to `context` (an identity check, without retaining anything).
    @inlinable @inline(__always)
    func isBound(to context: Context) -> Bool {
        contextBits.load(ordering: .relaxed) == UInt(bitPattern: Unmanaged.passUnretained(context).toOpaque())
    }

    /// Whether the box at `identity` (see ``ModelContainer/_modelIdentity()``) is bound to `context`.
    @inlinable @inline(__always)
    static func isBound(_ identity: _ModelIdentity, to context: Context) -> Bool {
        identity.box._withUnsafeGuaranteedRef { $0.isBound(to: context) }
    }

    /// Whether both boxes are bound to one context: copies of the instances of one model joined by
    /// same-id continuity (a box stays bound to its context, which it retains, so the bits cannot
    /// name another context while both boxes live).
    func sharesContext(with other: NodeBox) -> Bool {
        let bits = contextBits.load(ordering: .relaxed)
        return bits > Self.modifiedBits && bits == other.contextBits.load(ordering: .relaxed)
    }

    /// Binds the box to its context. The caller holds `unboundLock`.
    func bind(_ context: Context) {
        storage = .bound(context)
        contextBits.store(UInt(bitPattern: Unmanaged.passUnretained(context).toOpaque()), ordering: .releasing)
    }

    /// Adds a modifier before anchoring; false if the model is already anchored.
    func addModifier(_ body: (inout Modifiers) -> Void) -> Bool {
        unboundLock.withShortLock {
            let list: ModifierList
            switch storage {
            case .bound: return false
            case .unmodified: list = ModifierList()
            case .modified(let existing): list = existing
            }
            body(&list.modifiers)
            storage = .modified(list)
            contextBits.store(Self.modifiedBits, ordering: .relaxed)
            return true
        }
    }

    /// Whether modifiers may have been set: false means none were (as of this load), so anchoring
    /// skips ``takeModifiers()`` and its lock. A modifier set by another thread while this model is
    /// being anchored is a race either way (it is lost once the box is bound).
    var mayHaveModifiers: Bool {
        contextBits.load(ordering: .relaxed) == Self.modifiedBits
    }

    /// A copy of the modifiers set so far, if any (for a detached copy of an unanchored model).
    func copyOfModifiers() -> Modifiers? {
        guard mayHaveModifiers else { return nil }
        return unboundLock.withShortLock {
            guard case .modified(let list) = storage else { return nil }
            return list.modifiers
        }
    }

    /// The modifiers and the kept values, emptied. The caller holds `unboundLock`.
    func takeModifiers() -> (Modifiers, KeptValues?) {
        guard case .modified(let list) = storage else { return (Modifiers(), nil) }
        storage = .unmodified
        if contextBits.load(ordering: .relaxed) == Self.modifiedBits {
            contextBits.store(0, ordering: .relaxed)
        }
        return (list.modifiers, list.keptValues)
    }

    /// Sets the values undo's detached copy restores (see ``KeptValues``); false if the model is
    /// already anchored.
    func keep(_ values: KeptValues) -> Bool {
        addModifier { _ in } && unboundLock.withShortLock {
            guard case .modified(let list) = storage else { return false }
            list.keptValues = values
            return true
        }
    }

    /// The kept values, if any (for a detached copy of an unanchored detached copy).
    func copyOfKeptValues() -> KeptValues? {
        guard mayHaveModifiers else { return nil }
        return unboundLock.withShortLock {
            guard case .modified(let list) = storage else { return nil }
            return list.keptValues
        }
    }

    /// The modifiers of an initial model, allocated only when it has some.
    final class ModifierList {
        var modifiers = Modifiers()
        var keptValues: KeptValues?
    }

    /// The environment values and preference contributions a removed model had set, which undo's
    /// detached copy of it restores into the context that brings it back (see
    /// `Model.detachedCopy()`). Applied when the context is made, under the lock. Apart from the
    /// modifiers, so that anchoring a model without them pays nothing for them.
    final class KeptValues: Sendable {
        let restorers: [@Sendable (Context) -> Void]

        init(_ restorers: [@Sendable (Context) -> Void]) {
            self.restorers = restorers
        }

        /// Sets the values on `context`, which nothing has read yet: no change is recorded.
        func restore(into context: Context) {
            for restore in restorers { restore(context) }
        }
    }

    /// What `withDependencies`, `withActivation` and `_withPrintChanges` ask of an initial model.
    struct Modifiers {
        var dependencies: [@Sendable (inout DependencyValues) -> Void] = []
        var activations: [@Sendable (Any) -> Void] = []
        var printers: [@Sendable (String) -> Void] = []

        var isEmpty: Bool { dependencies.isEmpty && activations.isEmpty && printers.isEmpty }
    }
}
