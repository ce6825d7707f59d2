import Observation

// MARK: - Lock discipline
//
// ModelKit has two locks, both `HierarchyLock`s from Internal/Protected.swift, plus the small
// self-contained `Protected` values of registries, streams and tools.
//
// 1. The hierarchy lock (`Hierarchy.lock`, one per anchored hierarchy) guards *all* mutable state of
//    that hierarchy: the value of every bound cell, and every field of every context and of the
//    hierarchy marked `// Safety: guarded by the hierarchy lock`. One lock per hierarchy makes a
//    transaction atomic across models and a frozen copy consistent, and leaves no lock order to get
//    wrong between models.
// 2. `unboundLock` (one per process) guards the cells and boxes of models that are not anchored yet.
//    Anchoring binds them while holding both; the order is always hierarchy lock → `unboundLock`,
//    never the reverse. No other lock is taken while holding either (a `Protected` value may be
//    locked briefly under them, never the other way round).
//
// Under the hierarchy lock we mutate state and *collect* what to do next into the section's pending
// work (observation notifications, stream deliveries, activations, teardowns, reports). The thread
// releases the lock and then performs that work. `onActivate`, task bodies, `onCancel` closures,
// observers, printers, continuation resumes and stream finishes always run unlocked.
//
// User code that does run under the hierarchy lock, because its result decides the write:
// `Equatable.==` of a tracked value, `ModelContainer.visit`, a custom `id` getter, the mutation of
// a compound update (`items.append(x)`), `withDependencies` closures at anchoring, and a
// `transaction` body. Such code holds the lock as a *section*: it may read and write the same
// hierarchy on the same thread (the access sees `isHeldByCurrentThread` and proceeds under the hold,
// its side effects joining the section's pending work), but it must not wait for another thread that
// uses the hierarchy. Locks are not recursive: anything else that re-enters is a bug.

/// The life stage of a context.
enum ContextState: UInt8 {
    /// Created and bound, `onActivate` not yet called.
    case anchored
    /// `onActivate` called.
    case active
    /// Removed from its hierarchy, or the hierarchy was released.
    case destructed
    /// The context of a frozen copy.
    case frozen
    /// Stands in for an instance replaced by a newer instance with the same id.
    case replaced

    var acceptsWrites: Bool { self == .anchored || self == .active }
    var isLive: Bool { acceptsWrites }

    var lifetime: ModelLifetime {
        switch self {
        case .anchored, .active: .anchored
        case .destructed, .replaced: .destructed
        case .frozen: .frozen
        }
    }
}

/// Where a context sits in its parent: which parent, which child slot.
struct Place {
    weak var parent: AnyContext?
    let slot: Int
}

/// The children of one child slot, in the slot's order, and by id for matching new instances.
struct SlotChildren {
    var list: [AnyContext] = []
    var byID: [AnyHashable: AnyContext] = [:]
}

/// The live side of one model: its place in the tree, dependencies, work and observers.
///
/// A context exists from anchoring on. Copies of the model reach it through their `NodeBox` and
/// their cells; the hierarchy owns it through its parents (or the anchor).
class AnyContext: @unchecked Sendable {
    let hierarchy: Hierarchy
    /// `hierarchy.lock`, one load closer to the access path.
    let lock: HierarchyLock
    let schema: AnySchema
    let registrar = ObservationRegistrar()
    let dependencies: DependencyValues
    let isRoot: Bool

    // Safety: every field below is guarded by the hierarchy lock.
    @exclusivity(unchecked) var state: ContextState
    @exclusivity(unchecked) var places: [Place] = []
    @exclusivity(unchecked) var slots: [Int: SlotChildren] = [:]
    @exclusivity(unchecked) var idKey: AnyHashable?
    @exclusivity(unchecked) var extras: ContextExtras?
    /// Bit `i` set: property `i` has observers in `extras` (bit 63 stands for 63 and above).
    @exclusivity(unchecked) var observedMask: UInt64 = 0
    /// Marks used by one reconciliation pass.
    @exclusivity(unchecked) var markStamp: UInt64 = 0
    @exclusivity(unchecked) var keptStamp: UInt64 = 0
    /// `withActivation` closures to run after `onActivate`.
    @exclusivity(unchecked) var activationHandlers: [@Sendable (Any) -> Void] = []

    init(hierarchy: Hierarchy, schema: AnySchema, dependencies: DependencyValues, state: ContextState, isRoot: Bool) {
        self.hierarchy = hierarchy
        self.lock = hierarchy.lock
        self.schema = schema
        self.dependencies = dependencies
        self.state = state
        self.isRoot = isRoot
    }

    var typeName: String { schema.typeName }

    // MARK: Access path

    @inline(__always)
    final func didRead(_ index: Int) {
        registrar.access(ObservationSubject.shared, keyPath: ObservationSubject.keyPath(index))
        if AccessRecording.isActive {
            AccessRecording.record(self, index)
        }
    }

    @inline(__always)
    final func notifyObservation(_ index: Int) {
        let keyPath = ObservationSubject.keyPath(index)
        registrar.willSet(ObservationSubject.shared, keyPath: keyPath)
        registrar.didSet(ObservationSubject.shared, keyPath: keyPath)
    }

    /// Records a change made inside a section; the section's end commits it.
    final func recordChangeInSection<Value>(_ index: Int, old: Value, new: Value) {
        hierarchy.version &+= 1
        hierarchy.pendingChanges.append(makePendingChange(index, old: old, new: new))
        if schema.isChildSlot(index) {
            reconcileSlot(index)
        }
    }

    /// A change whose values are already boxed (continuity of a replaced instance).
    final func recordBoxedChangeInSection(_ index: Int, old: Any, new: Any) {
        hierarchy.version &+= 1
        hierarchy.pendingChanges.append(PendingChange(context: self, index: index, old: old, new: new))
    }

    private final func makePendingChange<Value>(_ index: Int, old: Value, new: Value) -> PendingChange {
        if isObserved(index) || hierarchy.hasHooks {
            return PendingChange(context: self, index: index, old: old, new: new)
        }
        return PendingChange(context: self, index: index, old: nil, new: nil)
    }

    @inline(__always)
    final func isObserved(_ index: Int) -> Bool {
        observedMask & (1 << UInt64(min(index, 63))) != 0
    }

    /// Why a write is refused in the current state, or nil if it is accepted. Caller holds the lock.
    final func rejectedWrite(_ index: Int) -> ModelIssue? {
        let property = "\(typeName).\(schema.name(index))"
        switch state {
        case .anchored, .active:
            return nil
        case .destructed:
            return ModelIssue(
                "Wrote to \(property) of a destructed \(typeName); the write was ignored.",
                fixes: [
                    "Keep a reference to the model's current place instead of a removed copy.",
                    "Check `model.lifetime == .anchored` before writing from long-lived callbacks.",
                ]
            )
        case .frozen:
            return ModelIssue(
                "Wrote to \(property) of a frozen copy of \(typeName); the write was ignored.",
                fixes: ["Write to the live model instead of its `frozenCopy`."]
            )
        case .replaced:
            return ModelIssue(
                "Wrote to \(property) of a \(typeName) instance that was replaced by a newer instance with the same id; the write was ignored.",
                fixes: ["Read the model back from its parent and write to that instance."]
            )
        }
    }

    // MARK: Subclass hooks (caller holds the lock unless noted)

    /// The current instance's cells, in registration order.
    func currentCells() -> [AnyCell] { [] }

    /// The current model value, boxed.
    func currentModel() -> Any? { nil }

    /// Drops the model value (at destruct), returning it so that it is released outside the lock.
    func takeModel() -> Any? { nil }

    /// Calls `onActivate` and the `withActivation` handlers. Called without the lock.
    func performActivation(_ handlers: [@Sendable (Any) -> Void]) {}

    /// A context that stands in for this one's replaced instances (see `Context.adopt`).
    func makeReplacedStandIn() -> AnyContext { self }

    /// The cell of property `index` of the current instance.
    final func cell(_ index: Int) -> AnyCell? {
        let cells = currentCells()
        return cells.indices.contains(index) ? cells[index] : nil
    }
}

/// The context of a model of type `M`.
final class Context<M: Model>: AnyContext, @unchecked Sendable {
    let typedSchema: Schema<M>

    // Safety: guarded by the hierarchy lock. Nil once destructed.
    @exclusivity(unchecked) var model: M?
    // Safety: guarded by the hierarchy lock.
    @exclusivity(unchecked) private var standIn: Context<M>?
    /// A replaced-instance stand-in keeps the live context alive for cells still pointing at it.
    private let successor: AnyContext?

    init(hierarchy: Hierarchy, schema: Schema<M>, dependencies: DependencyValues, state: ContextState, isRoot: Bool, model: M?) {
        self.typedSchema = schema
        self.model = model
        self.successor = nil
        super.init(hierarchy: hierarchy, schema: schema, dependencies: dependencies, state: state, isRoot: isRoot)
    }

    private init(standingInFor live: Context<M>) {
        self.typedSchema = live.typedSchema
        self.model = nil
        self.successor = live
        super.init(hierarchy: live.hierarchy, schema: live.schema, dependencies: live.dependencies, state: .replaced, isRoot: false)
    }

    override func currentCells() -> [AnyCell] {
        guard let model else { return [] }
        return typedSchema.cells(of: model)
    }

    override func currentModel() -> Any? { model }

    override func takeModel() -> Any? {
        defer { model = nil }
        return model
    }

    override func makeReplacedStandIn() -> AnyContext {
        if let standIn { return standIn }
        let created = Context(standingInFor: self)
        standIn = created
        return created
    }

    override func performActivation(_ handlers: [@Sendable (Any) -> Void]) {
        let model = lock.withShortLock { self.model }
        guard let model else { return }
        ActivationScope.current.withValue(ActivationScope(context: self)) {
            model.onActivate()
        }
        for handler in handlers {
            ActivationScope.current.withValue(ActivationScope(context: self)) {
                handler(model)
            }
        }
    }
}

/// Marks the context whose `onActivate` is running on this thread, so that work it starts is
/// known as activation work (the Tester cancels it at the end of a test).
final class ActivationScope {
    let context: AnyContext

    init(context: AnyContext) {
        self.context = context
    }

    static let current = ThreadLocal<ActivationScope>()
}
