import Synchronization

/// The identity of one model instance, shared by all its copies: its id, the modifiers set before
/// anchoring, and (once anchored) its context.
final class NodeBox: @unchecked Sendable {
    let id: ModelID

    /// The bound context (`Unmanaged` bits), 0 before anchoring.
    private let contextBits = Atomic<UInt>(0)

    // Safety: written under `unboundLock`; only `contextBits` is read concurrently.
    @exclusivity(unchecked) private var retainedContext: AnyContext?

    // Safety: guarded by `unboundLock`; taken (emptied) when the model is anchored.
    @exclusivity(unchecked) private var modifiers = Modifiers()

    init(id: ModelID = .next()) {
        self.id = id
    }

    var context: AnyContext? {
        let bits = contextBits.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Unmanaged<AnyContext>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            .takeUnretainedValue()
    }

    /// Binds the box to its context. The caller holds `unboundLock`.
    func bind(_ context: AnyContext) {
        retainedContext = context
        contextBits.store(UInt(bitPattern: Unmanaged.passUnretained(context).toOpaque()), ordering: .releasing)
    }

    /// Adds a modifier before anchoring; false if the model is already anchored.
    func addModifier(_ body: (inout Modifiers) -> Void) -> Bool {
        unboundLock.withShortLock {
            guard contextBits.load(ordering: .relaxed) == 0 else { return false }
            body(&modifiers)
            return true
        }
    }

    /// The modifiers, emptied. The caller holds `unboundLock`.
    func takeModifiers() -> Modifiers {
        defer { modifiers = Modifiers() }
        return modifiers
    }

    /// What `withDependencies`, `withActivation` and `_withPrintChanges` ask of an initial model.
    struct Modifiers {
        var dependencies: [@Sendable (inout DependencyValues) -> Void] = []
        var activations: [@Sendable (Any) -> Void] = []
        var printers: [@Sendable (String) -> Void] = []
    }
}
