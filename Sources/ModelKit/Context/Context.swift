import Observation
import Synchronization

// MARK: - Lock discipline
//
// ModelKit's locks are `RankedLock`s (Internal/Protected.swift) of three ranks, plus the small
// self-contained `Protected` values of registries and tools. A thread only takes a lock of a higher
// rank than every lock it holds (checked in debug builds).
//
// 1. Rank `hierarchy`: the hierarchy lock (`Hierarchy.lock`, one per anchored hierarchy) guards
//    *all* mutable state of that hierarchy: the value of every bound cell, and every field of every
//    context and of the hierarchy marked `// Safety: guarded by the hierarchy lock`. One lock per
//    hierarchy makes a transaction atomic across models and a frozen copy consistent, and leaves no
//    lock order to get wrong between models. A stream's buffer has a `RankedLock` of its own,
//    taken only for *leaf* sections (`lockLeaf`) that take no other lock, outside the lock order.
// 2. Rank `unbound`: `unboundLock` (one per process) guards the cells and boxes of models that are
//    not anchored yet, and the forwarding of an earlier instance's cells to the live ones (same-id
//    continuity). Anchoring binds them while holding both; the order is always hierarchy lock →
//    `unboundLock`, never the reverse. A compound update of an unbound cell holds no lock over its
//    mutation: it claims the cell (`UnboundUpdates`) and works on a copy.
// 3. Rank `frozen`: the lock of frozen copies' cells, taken last.
//
// No other lock is taken while holding one of these (a `Protected` value may be locked briefly
// under them, never the other way round).
//
// Under the hierarchy lock we mutate state and *collect* what to do next into the section's pending
// work (observation notifications, stream deliveries, activations, teardowns, reports). The thread
// releases the lock and then performs that work. `onActivate`, task bodies, `onCancel` closures,
// observers, printers, continuation resumes and stream finishes always run unlocked, and so does
// the release of what a destructed model gives up (its model value and its tracked values, which
// may run code in their deinit: `TeardownBatch`).
//
// User code that does run under the hierarchy lock, because its result decides the write:
// `Equatable.==` of a tracked value, `ModelContainer.visit`, a custom `id` getter, the mutation of
// a compound update (`items.append(x)`), `withDependencies` closures at anchoring, `observe`
// expressions and `change(of:)`/`onChange(of:)` key paths (evaluated for the commit they observe),
// and a `transaction` body. Such code holds the lock as a *section*: it may read and write the same
// hierarchy on the same thread (the access sees `isHeldByCurrentThread` and proceeds under the hold,
// its side effects joining the section's pending work), but it must not wait for another thread that
// uses the hierarchy. Locks are not recursive: anything else that re-enters is a bug.

/// The live side of one model: its place in the tree, dependencies, work and observers.
///
/// A context exists from anchoring on. Copies of the model reach it through their `NodeBox` and
/// their cells; the hierarchy owns it through its parents (or the anchor). It is not generic:
/// what depends on the model's type lives in its ``AnySchema`` (one per type), so creating and
/// destroying contexts needs no generic metadata. Rarely used state lives in ``ContextExtras``.
@usableFromInline
final class Context: @unchecked Sendable {
    @usableFromInline let hierarchy: Hierarchy
    /// `hierarchy.lock`: the hierarchy itself, so no load more than the hierarchy.
    @inlinable
    final var lock: RankedLock {
        @inline(__always) get { hierarchy }
    }
    let schema: AnySchema
    /// The overrides this model's dependencies resolve against (see ``dependencies``).
    let dependencyStorage: DependencyValues.Storage
    /// The Observation registrar, created on the first tracked read. A model never read has nobody
    /// observing it, so its writes skip Observation entirely.
    private let registrar = PublishedReference<RegistrarBox>()

    // Safety: every field below is guarded by the hierarchy lock. The small fields follow
    // `places` (10 bytes), so that together they take two words.
    @exclusivity(unchecked) var places = PlaceList()
    @exclusivity(unchecked) var state: ContextState
    @usableFromInline @exclusivity(unchecked) var flags: ContextFlags
    /// Bit `i` set: property `i` has observers in `extras` (bit 31 stands for 31 and above).
    @exclusivity(unchecked) var observedMask: UInt32 = 0
    /// Where this context stands in the hierarchy's current reconciliation pass (see
    /// `isMarked(in:)` and `isKept(in:)`).
    @exclusivity(unchecked) private var reconcileMark: UInt64 = 0
    @exclusivity(unchecked) var extras: ContextExtras?
    /// The current model instance (see ``ModelStorage``): set at anchoring, so a live context
    /// always holds one (`flags` has `.hasModel`); none once destructed, and none for frozen copies.
    @usableFromInline @exclusivity(unchecked) var modelStorage = ModelStorage()

    init(
        hierarchy: Hierarchy, schema: AnySchema, dependencyStorage: DependencyValues.Storage, state: ContextState,
        isRoot: Bool
    ) {
        self.hierarchy = hierarchy
        self.schema = schema
        self.dependencyStorage = dependencyStorage
        self.state = state
        self.flags = isRoot ? .isRoot : []
    }

    /// A context holding `model`, whose schema is `schema`.
    init<M: Model>(
        hierarchy: Hierarchy, schema: Schema<M>, dependencyStorage: DependencyValues.Storage, state: ContextState,
        isRoot: Bool, model: M
    ) {
        self.hierarchy = hierarchy
        self.schema = schema
        self.dependencyStorage = dependencyStorage
        self.state = state
        self.flags = isRoot ? [.isRoot, .hasModel] : .hasModel
        withUnsafeMutablePointer(to: &modelStorage) {
            ModelStorage.initialize(at: UnsafeMutableRawPointer($0), with: model)
        }
    }

    deinit {
        // Children's places and observers' registrations refer to a context without retaining it;
        // its destruct removes them. Every live context is destructed before it can be freed (the
        // hierarchy holds its root, and parents their children, until teardown).
        assert(!state.isLive || slots.isEmpty && extras?.propertyObservers.isEmpty != false,
               "ModelKit internal error: a live \(typeName) context was freed without being destructed")
        // A context whose anchoring was refused still holds its model.
        if flags.contains(.hasModel) {
            withModelStorage { schema.destroyModel(in: $0) }
        }
    }

    /// The dependencies this model sees.
    var dependencies: DependencyValues {
        DependencyValues(storage: dependencyStorage, hierarchy: hierarchy)
    }




    /// The children of each child slot that has some. Only parents have them, so they live in the
    /// extras (a leaf's context is a word smaller). Caller holds the lock.
    final var slots: SlotTable {
        get { extras?.slots ?? SlotTable() }
        _modify {
            if extras == nil {
                // Nothing to keep: the caller's mutation starts from an empty table, which is only
                // stored (in new extras) if it leaves something.
                var empty = SlotTable()
                defer { if !empty.isEmpty { ensuredExtras.slots = empty } }
                yield &empty
            } else {
                yield &ensuredExtras.slots
            }
        }
    }

    /// Whether the model is a root of its hierarchy (anchored by `withAnchor`, or a dependency).
    var isRoot: Bool { flags.contains(.isRoot) }

    /// Whether a newer instance with the model's id continued it (see `adopt`).
    @inlinable
    final var wasContinued: Bool { flags.contains(.continued) }

    /// Which properties record undo entries, and on which stack (Undo/UndoRecording.swift). Kept
    /// in the extras, since few models record undo; `flags` tells the write path whether there is
    /// one. Caller holds the lock.
    final var undoTracking: UndoTracking? {
        @inline(__always) get { extras?.undoTracking }
        set {
            if newValue == nil, extras == nil { return }
            ensuredExtras.undoTracking = newValue
            if newValue == nil { flags.remove(.tracksUndo) } else { flags.insert(.tracksUndo) }
        }
    }

    // MARK: Reconciliation marks
    //
    // A reconciliation pass of stamp `s` (unique within the hierarchy) marks the slot's previous
    // children `2s` once its visit leaves the run of children still in place, and every child it
    // keeps `2s + 1`. So "marked and not yet kept" is one comparison, and one word holds both.

    /// Whether pass `stamp` marked this context as a previous child not kept yet.
    @inline(__always)
    final func isMarked(in stamp: UInt64) -> Bool { reconcileMark == stamp << 1 }

    /// Whether pass `stamp` kept this context.
    @inline(__always)
    final func isKept(in stamp: UInt64) -> Bool { reconcileMark == stamp << 1 | 1 }

    @inline(__always)
    final func mark(in stamp: UInt64) { reconcileMark = stamp << 1 }

    @inline(__always)
    final func keep(in stamp: UInt64) { reconcileMark = stamp << 1 | 1 }

    var typeName: String { schema.typeName }

    // MARK: Access path

    @usableFromInline
    final func didRead(_ index: Int) {
        if AccessRecording.isActive, AccessRecording.record(self, index) {
            // An observer's evaluation: recorded for it alone.
            return
        }
        registrar.readOrCreate(RegistrarBox.init) { box in
            box.registrar.access(schema, keyPath: schema.observationKeyPath(index))
        }
    }

    /// A read of property `index` whose Observation key path the caller keeps (a virtual property).
    final func didRead(_ index: Int, keyPath: KeyPath<AnySchema, Int>) {
        if AccessRecording.isActive, AccessRecording.record(self, index) { return }
        registrar.readOrCreate(RegistrarBox.init) { $0.registrar.access(schema, keyPath: keyPath) }
    }

    @inline(__always)
    final func notifyObservation(_ index: Int) {
        registrar.read(or: ()) { box in
            let keyPath = schema.observationKeyPath(index)
            box.registrar.willSet(schema, keyPath: keyPath)
            box.registrar.didSet(schema, keyPath: keyPath)
        }
    }

    // MARK: Write path entry points (called from the inlined cell accessors)

    /// Starts a plain write: locks the hierarchy for a one-write section if the write can take the
    /// fast path (not re-entrant, not a child slot, the cell still bound here, the model live).
    /// Returns false, without the lock, when the write must go through a full section.
    @usableFromInline
    final func beginFastWrite(cell: AnyCell, bits: UInt) -> Bool {
        if schema.isChildSlot(cell.index) || !hierarchy.beginSingleWriteSection() { return false }
        if cell.bindingBits.load(ordering: .relaxed) != bits || !state.acceptsWrites {
            hierarchy.abandonSingleWriteSection()
            return false
        }
        return true
    }

    /// Ends a one-write section: commits, unlocks and notifies Observation. Anything else that
    /// became pending meanwhile sends it down the full path.
    @usableFromInline
    final func endFastWrite(changedIndex: Int?) {
        hierarchy.endSingleWriteSection(changedBy: self, index: changedIndex)
    }

    /// Whether a change must be recorded for observers or hooks. Caller holds the lock.
    @usableFromInline
    final var needsChangeRecord: Bool {
        observedMask != 0 || flags.contains(.tracksUndo) || hierarchy.recordsEveryChange
    }

    /// Whether a compound update of property `index` can end on the fast path. Caller holds the lock.
    @usableFromInline
    final func canEndFastModify(_ index: Int) -> Bool {
        !needsChangeRecord && !schema.isChildSlot(index)
    }

    /// Ends a compound update that kept no old value (nobody compares or records it): a child slot
    /// is reconciled, anything else ends on the fast path. Caller holds the section.
    @usableFromInline
    final func endUnrecordedModify(_ index: Int) {
        if schema.isChildSlot(index) {
            hierarchy.record(PendingChange(context: self, index: index, old: nil, new: nil))
            reconcileSlot(index)
            hierarchy.endSection()
        } else {
            endFastWrite(changedIndex: index)
        }
    }

    /// Whether the model accepts writes. Caller holds the lock.
    @usableFromInline
    final var acceptsWrites: Bool { state.acceptsWrites }

    /// Reports a refused compound update of `cell` when the section ends. Caller holds the lock.
    @usableFromInline
    final func rejectModify(cell: AnyCell) {
        (cell.boundContext ?? self).rejectedWrite(cell.index).map { hierarchy.deferIssue($0) }
    }

    /// Records a change made inside a section; the section's end commits it. A child slot left
    /// holding the same children (see `slotIsUnchanged`) is no change, and records nothing.
    @usableFromInline
    final func recordChangeInSection<Value>(_ index: Int, old: Value, new: Value) {
        guard schema.isChildSlot(index) else {
            return hierarchy.record(makePendingChange(index, old: old, new: new))
        }
        // Recorded once reconciled, where the write came: before the changes of the children it
        // continued (at the end, the usual case, but for a same-id refresh).
        let position = hierarchy.pendingChanges.count
        let holdsSameChildren = reconcileSlot(index)
        if slotIsUnchanged(holdsSameChildren: holdsSameChildren, old: old, new: new) { return }
        let change = makePendingChange(index, old: old, new: new)
        if position == hierarchy.pendingChanges.count {
            hierarchy.record(change)
        } else {
            hierarchy.pendingChanges.insert(change, at: position)
        }
    }

    /// A change whose values are already boxed (continuity of a replaced instance).
    final func recordBoxedChangeInSection(_ index: Int, old: Any, new: Any) {
        hierarchy.record(PendingChange(context: self, index: index, old: old, new: new))
    }

    private final func makePendingChange<Value>(_ index: Int, old: Value, new: Value) -> PendingChange {
        // Only hooks (change printing, the Tester) and undo read the values; observers evaluate
        // their own. Inside a transaction they also tell a property written back to its value,
        // which is no change: for a `modifications` stream, whose element it would otherwise be.
        if hierarchy.hasHooks || undoTracking?.tracks(index) == true
            || (hierarchy.depth > 1 && hierarchy.hasModificationListeners) {
            return PendingChange(context: self, index: index, old: old, new: new)
        }
        return PendingChange(context: self, index: index, old: nil, new: nil)
    }

    @inline(__always)
    final func isObserved(_ index: Int) -> Bool {
        observedMask & (1 << UInt32(min(index, 31))) != 0
    }

    /// Why a write is refused in the current state, or nil if it is accepted. Caller holds the lock.
    final func rejectedWrite(_ index: Int) -> ModelIssue? {
        let property = "\(typeName).\(schema.name(index))"
        switch writeRefusal {
        case nil:
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
        }
    }

    /// Why the current state refuses a write with a report (of a tracked property, an environment
    /// value or a preference); nil when it is accepted, and for work ending after a removal, whose
    /// writes are ignored quietly (see ``isWrittenByEndingWork``). Caller holds the lock.
    final var writeRefusal: WriteRefusal? {
        switch state {
        case .anchored, .active: nil
        case .destructed: isWrittenByEndingWork ? nil : .destructed
        case .frozen: .frozen
        }
    }

    /// Whether the running work is that of a removed model of this hierarchy, ending: the model's
    /// own (a cancelled task's `defer`, an `onCancel` handler), or that of a removed ancestor, which
    /// went with it (a conversation's send task clearing its draft child as the conversation is
    /// deleted). Off the hot path: only asked of a destructed context. Caller holds the lock, which
    /// is the owner's too when it is of this hierarchy.
    private final var isWrittenByEndingWork: Bool {
        guard let owner = CurrentWork.owner else { return false }
        return owner === self || (owner.hierarchy === hierarchy && owner.state == .destructed)
    }

    /// See ``writeRefusal``.
    enum WriteRefusal {
        case destructed
        case frozen
    }

    // MARK: The model (caller holds the lock unless noted)

    /// Whether the context holds a model value: from anchoring until it is destructed.
    @inlinable
    final var hasModel: Bool { flags.contains(.hasModel) }

    /// Calls `body` with the address of the storage of the model value (see ``ModelStorage``).
    @inlinable @inline(__always)
    final func withModelStorage<R>(_ body: (UnsafeMutableRawPointer) -> R) -> R {
        withUnsafeMutablePointer(to: &modelStorage) { body(UnsafeMutableRawPointer($0)) }
    }

    /// Calls `body` with the address of the model value, which the context holds, for reading.
    @inline(__always)
    final func withModelValue<R>(_ body: (UnsafeRawPointer) -> R) -> R {
        var result: R?
        withModelStorage { storage in schema.withModelValue(in: storage) { result = body($0) } }
        return result.unsafelyUnwrapped
    }

    /// Calls `body` with the model value, which the context holds and is an `M` (the caller checked
    /// the schema).
    @inlinable @inline(__always)
    final func withModel<M: Model, R>(as _: M.Type, _ body: (inout M) -> R) -> R {
        withModelStorage { ModelStorage.withValue(at: $0, as: M.self, body) }
    }

    /// A copy of the current model value if it is an `M`; nil once destructed, for frozen copies,
    /// and for another type. Typed: no existential is made. Caller holds the lock.
    @usableFromInline
    final func model<M: Model>(as _: M.Type) -> M? {
        guard hasModel, schema.modelTypeID == ObjectIdentifier(M.self) else { return nil }
        return withModel(as: M.self) { $0 }
    }

    /// A copy of the current model value; nil once destructed, and for frozen copies.
    final var model: (any Model)? {
        guard hasModel else { return nil }
        return withModelStorage { schema.copyModel(in: $0) }
    }

    /// Gives up the model value at destruct: from now on the context holds none as far as anyone
    /// reading it knows, but the value stays in its storage until ``releaseGivenUpModel(of:)``, which
    /// the teardown batch calls after the lock (see ``ReleasedModels``). False if there was none.
    /// Caller holds the lock.
    final func giveUpModel() -> Bool {
        guard hasModel else { return false }
        flags.remove(.hasModel)
        return true
    }

    /// Releases the model value `context` gave up in ``giveUpModel()``, once, without the lock: no
    /// one reads the storage of a context without `hasModel`. The context is not retained: the
    /// value it holds keeps it alive (its `NodeBox` is bound to it), and the value's release may
    /// free it, so nothing here touches the context after moving the value out.
    static func releaseGivenUpModel(of context: Unmanaged<Context>) {
        context._withUnsafeGuaranteedRef { context in
            // The schema outlives every context (schemas are cached for the process).
            let schema = Unmanaged.passUnretained(context.schema)
            withUnsafeMutablePointer(to: &context.modelStorage) { storage in
                schema._withUnsafeGuaranteedRef { $0.releaseModel(in: UnsafeMutableRawPointer(storage)) }
            }
        }
    }

    /// The current model instance's cells, in registration order.
    final func currentCells() -> [AnyCell] {
        guard hasModel else { return [] }
        return withModelValue { schema.cells(ofModelAt: $0) }
    }

    /// The cell of property `index` of the current instance.
    final func cell(_ index: Int) -> AnyCell? {
        guard hasModel, index >= 0, index < schema.count else { return nil }
        return withModelValue { schema.cell(index, ofModelAt: $0) }
    }
}

/// Small facts about a context, in one byte.
@usableFromInline
struct ContextFlags: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable
    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A root of its hierarchy: it has no place and is not destructed for lack of one.
    static let isRoot = ContextFlags(rawValue: 1 << 0)
    /// A newer instance with the model's id continued it.
    @usableFromInline static let continued = ContextFlags(rawValue: 1 << 1)
    /// `extras.undoTracking` is set.
    static let tracksUndo = ContextFlags(rawValue: 1 << 2)
    /// The context holds a model value (``Context/modelStorage``).
    @usableFromInline static let hasModel = ContextFlags(rawValue: 1 << 3)
    /// `extras.modificationListeners` is not empty (a commit walking up from a change skips the
    /// models without listeners on this byte).
    static let hasModificationListeners = ContextFlags(rawValue: 1 << 4)
}

/// Holds a context's Observation registrar (created on the first tracked read).
final class RegistrarBox: Sendable {
    let registrar = ObservationRegistrar()
}

/// Marks the context whose `onActivate` is running on this thread, so that work started meanwhile,
/// on it or on another model, is known as activation work (the Tester cancels it at the end of a
/// test).
enum ActivationScope {
    static let current = ThreadLocal<Context>()
}
