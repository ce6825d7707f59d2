import Synchronization

/// The identity of one model instance, shared by all its copies: its id, the modifiers set before
/// anchoring, and (once anchored) its context.
@usableFromInline
final class NodeBox: @unchecked Sendable {
    let id: ModelID

    /// The bound context (`Unmanaged` bits), 0 before anchoring.
    @usableFromInline let contextBits = Atomic<UInt>(0)

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
        guard bits != 0 else { return nil }
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
            return true
        }
    }

    /// The modifiers, emptied. The caller holds `unboundLock`.
    func takeModifiers() -> Modifiers {
        guard case .modified(let list) = storage else { return Modifiers() }
        storage = .unmodified
        return list.modifiers
    }

    /// The modifiers of an initial model, allocated only when it has some.
    final class ModifierList {
        var modifiers = Modifiers()
    }

    /// What `withDependencies`, `withActivation` and `_withPrintChanges` ask of an initial model.
    struct Modifiers {
        var dependencies: [@Sendable (inout DependencyValues) -> Void] = []
        var activations: [@Sendable (Any) -> Void] = []
        var printers: [@Sendable (String) -> Void] = []
    }
}
