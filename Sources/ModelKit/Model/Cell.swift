import Synchronization

/// The lock for cells and boxes of models that are not anchored yet (initial models). Taken after a
/// hierarchy lock, never before one.
let unboundLock = RankedLock(rank: .unbound)

/// The storage behind one `@Tracked` property of one model instance.
///
/// Before anchoring a cell is *unbound* and guarded by ``unboundLock``. Anchoring *binds* it to its
/// model's context, after which the context's hierarchy lock guards it. A cell is bound once. When a
/// newer instance with the same id continues the model (see `Context.adopt`), the older instance's
/// cells *forward* to the newer ones: they are unbound again and every access to them goes, through
/// the unbound (slow) path, to the live cell. So every copy of a continued model reads and writes the
/// one live model, and the access path of the live cells stays as it was.
@usableFromInline
class AnyCell: @unchecked Sendable {
    /// The bound context (`Unmanaged` bits), 0 while unbound or forwarding. Stored with release
    /// ordering after ``index`` and ``retained``; loaded with acquire ordering before either is used.
    @usableFromInline final let bindingBits = Atomic<UInt>(0)

    // Safety: written once before the first release-store of `bindingBits` (under `unboundLock`),
    // read after an acquiring load of it. Forwarding never changes it.
    @usableFromInline @exclusivity(unchecked) final var index: Int = -1

    /// What the cell keeps alive: the context named by `bindingBits`, or the cell it forwards to.
    enum Retained {
        case none
        case context(Context)
        case forward(AnyCell)
    }

    // Safety: written under `unboundLock` (binding and forwarding, the latter also under the
    // hierarchy lock); read under `unboundLock`, and never on the access path.
    @exclusivity(unchecked) final var retained = Retained.none

    @usableFromInline
    init() {}

    /// The context this cell is bound to, if any.
    final var boundContext: Context? {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Unmanaged<Context>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            .takeUnretainedValue()
    }

    /// Whether the cell belongs to a context, directly or by forwarding. The caller holds
    /// `unboundLock`.
    final var isClaimed: Bool {
        if case .none = retained { return false }
        return true
    }

    /// The live cell this one forwards to, at the end of its chain of forwards (an instance
    /// continued by one that was continued in turn). The chain is shortened to one hop on the way,
    /// so that a copy of an early instance does not pay for every later one. The caller holds
    /// `unboundLock`.
    final var forwardTarget: AnyCell? {
        guard case .forward(var target) = retained else { return nil }
        var hops = 0
        while case .forward(let next) = target.retained {
            target = next
            hops += 1
        }
        if hops > 0 { retained = .forward(target) }
        return target
    }

    /// Binds the cell for its first time. The caller holds `unboundLock`.
    final func bind(to context: Context, index: Int) {
        if self.index != index { self.index = index }
        retained = .context(context)
        bindingBits.store(UInt(bitPattern: Unmanaged.passUnretained(context).toOpaque()), ordering: .releasing)
    }

    /// Makes every later access to this cell an access to `target`, the same property of a newer
    /// instance of the same model. The caller holds the hierarchy lock (for a section) and
    /// `unboundLock`. The cell keeps its value: a read that loaded the binding before this call and
    /// takes the lock after it returns that value, the live value at the time the read began.
    final func forward(to target: AnyCell) {
        retained = .forward(target)
        bindingBits.store(0, ordering: .releasing)
    }

    // MARK: Type-erased operations (the caller holds the guarding lock)

    /// The current value, boxed.
    var anyValue: Any { fatalError("abstract") }

    /// Puts back the value the cell was created with, unless the value is plain data. Called when
    /// the model is destructed or replaced, so that nothing the value captured outlives the model.
    func retire() {}

    /// Whether `other` (a cell of the same property) holds a different value.
    func differs(from other: AnyCell) -> Bool { true }

    /// Like ``differs(from:)`` for a cell known to hold the same property (so the same type): the
    /// same property of another instance of the model.
    func differs(fromSameProperty other: AnyCell) -> Bool { true }

    /// A new unbound cell holding a copy of the current value, with the models in it frozen unless
    /// `freezingChildren` is false.
    func frozenCopy(freezingChildren: Bool) -> AnyCell { fatalError("abstract") }
}

/// The storage of one tracked property of type `Value`.
///
/// The access paths (`read`, `write`, compound updates) are inlinable so that they are specialized
/// for `Value` at the call site; everything that does not depend on `Value` is a call into a
/// non-generic context method.
@usableFromInline
class Cell<Value: Sendable>: AnyCell, @unchecked Sendable {
    // Safety: guarded by the lock of the bound context's hierarchy, or `unboundLock` while unbound.
    @usableFromInline @exclusivity(unchecked) final var value: Value

    /// The initial value, put back by ``retire()`` for values that are not plain data.
    final let genesis: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
        self.genesis = value
    }

    /// Whether two values are equal; a plain cell never knows.
    @usableFromInline
    func isEqual(_ lhs: Value, _ rhs: Value) -> Bool { false }

    /// Whether the cell compares values (its value type is `Equatable`).
    @usableFromInline
    var comparesValues: Bool { false }

    /// A new cell of the same kind.
    func makeCell(_ value: Value) -> Cell<Value> { Cell(value) }

    @inlinable @inline(__always)
    static func context(_ bits: UInt) -> Unmanaged<Context> {
        Unmanaged<Context>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
    }

    // MARK: Reading

    @inlinable @inline(__always)
    final func read() -> Value {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return readUnbound() }
        return Self.context(bits)._withUnsafeGuaranteedRef { context in
            let lock = context.lock
            let result: Value
            if lock.tryLockForRead() {
                result = value
                lock.unlockAfterRead()
            } else if lock.lockForReadSlow() {
                result = value
                lock.unlockAfterRead()
            } else {
                result = value
            }
            context.didRead(index)
            return result
        }
    }

    @usableFromInline @inline(never)
    final func readUnbound() -> Value {
        if unboundLock.isHeldByCurrentThread {
            if let target = forwardTarget { return Self.typed(target).read() }
            return value
        }
        unboundLock.lock()
        guard bindingBits.load(ordering: .acquiring) == 0 else {
            unboundLock.unlock()
            return read()
        }
        if let target = forwardTarget {
            unboundLock.unlock()
            return Self.typed(target).read()
        }
        let result = value
        unboundLock.unlock()
        return result
    }

    /// A forwarding target, which is always a cell of the same property (so of the same type).
    @inline(__always)
    static func typed(_ cell: AnyCell) -> Cell<Value> {
        unsafeDowncast(cell, to: Cell<Value>.self)
    }

    /// The value without observation or recording. The caller holds the guarding lock.
    @inlinable
    final var peek: Value { value }

    // MARK: Writing

    @inlinable
    final func write(_ newValue: Value) {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return writeUnbound(newValue) }
        let context = Self.context(bits).takeUnretainedValue()
        guard context.beginFastWrite(cell: self, bits: bits) else {
            return slowWrite(context, bits: bits, newValue)
        }
        if isEqual(value, newValue) {
            context.endFastWrite(changedIndex: nil)
            return
        }
        let old = value
        value = newValue
        if context.needsChangeRecord {
            context.recordChangeAndEndSection(index, old: old, new: newValue)
        } else {
            context.endFastWrite(changedIndex: index)
        }
    }

    /// Writes through a section: re-entrant writes, child slots, refused writes.
    @usableFromInline @inline(never)
    final func slowWrite(_ context: Context, bits: UInt, _ newValue: Value) {
        context.hierarchy.withSection { sectionWrite(context, bits: bits, newValue) }
    }

    /// A write while this thread holds the hierarchy for a section.
    private final func sectionWrite(_ context: Context, bits: UInt, _ newValue: Value) {
        guard bindingBits.load(ordering: .relaxed) == bits else {
            // Forwarded meanwhile (a newer instance continued the model): write to the live cell.
            return write(newValue)
        }
        guard context.state.acceptsWrites else {
            context.rejectedWrite(index).map { context.hierarchy.deferIssue($0) }
            return
        }
        if isEqual(value, newValue) { return }
        let old = value
        value = newValue
        context.recordChangeInSection(index, old: old, new: newValue)
    }

    @usableFromInline @inline(never)
    final func writeUnbound(_ newValue: Value) {
        if unboundLock.isHeldByCurrentThread {
            if let target = forwardTarget { return Self.typed(target).write(newValue) }
            value = newValue
            return
        }
        unboundLock.lockForSection()
        guard bindingBits.load(ordering: .acquiring) == 0 else {
            unboundLock.unlockSection()
            return write(newValue)
        }
        if let target = forwardTarget {
            unboundLock.unlockSection()
            return Self.typed(target).write(newValue)
        }
        if let waiter = UnboundUpdates.waiterIfClaimedByAnotherThread(self) {
            // Another thread is updating this cell: write after its update, not in the middle.
            unboundLock.unlockSection()
            waiter.wait()
            return write(newValue)
        }
        // The replaced value is released after the lock, at the end of this scope.
        let replaced = value
        value = newValue
        unboundLock.unlockSection()
        withExtendedLifetime(replaced) {}
    }

    // MARK: Compound updates

    @usableFromInline
    struct ModifyToken {
        /// The cell the update mutates: this one, or the live cell it forwards to.
        @usableFromInline let cell: Cell<Value>
        @usableFromInline let context: Context?
        /// The value before the update, kept only when something needs it: a comparison, a change
        /// record, or undoing a refused write. Not keeping it lets `items.append(x)` mutate in place.
        @usableFromInline let old: Value?

        @inlinable
        init(cell: Cell<Value>, context: Context?, old: Value?) {
            self.cell = cell
            self.context = context
            self.old = old
        }
    }

    @inlinable
    final func beginModify() -> ModifyToken {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return beginUnboundModify() }
        let context = Self.context(bits).takeUnretainedValue()
        context.hierarchy.beginSection()
        if bindingBits.load(ordering: .relaxed) != bits {
            // Forwarded before the section began: update the live cell instead.
            return retryModify(context)
        }
        let keepsOld = comparesValues || context.needsChangeRecord || !context.acceptsWrites
        return ModifyToken(cell: self, context: context, old: keepsOld ? value : nil)
    }

    @usableFromInline @inline(never)
    final func retryModify(_ context: Context) -> ModifyToken {
        context.hierarchy.endSection()
        return beginModify()
    }

    /// An update of a cell not bound yet claims the cell, then works on a copy of its value outside
    /// any lock, and ``endUnboundModify(_:)`` writes the copy back (see ``UnboundUpdates``).
    @usableFromInline @inline(never)
    final func beginUnboundModify() -> ModifyToken {
        if let target = unboundLock.withShortLock({ forwardTarget }) {
            return Self.typed(target).beginModify()
        }
        UnboundUpdates.claim(self)
        if bindingBits.load(ordering: .acquiring) != 0 {
            // Anchored while this thread waited for the claim: update it under its hierarchy lock.
            UnboundUpdates.release(self)
            return beginModify()
        }
        return ModifyToken(cell: self, context: nil, old: readUnbound())
    }

    /// Writes back the updated copy of an unbound update and releases the claim. A cell anchored
    /// meanwhile is written through its hierarchy like any write.
    @usableFromInline @inline(never)
    final func endUnboundModify(_ updated: Value) {
        write(updated)
        UnboundUpdates.release(self)
    }

    @inlinable
    final func endModify(_ token: ModifyToken) {
        guard let context = token.context else { return }
        guard let old = token.old else {
            // Nothing compares, records or refuses this update: it counts as a change.
            context.endUnrecordedModify(index)
            return
        }
        if !context.acceptsWrites {
            // The mutation already happened in place; undo it and report.
            value = old
            context.rejectModify(cell: self)
            context.hierarchy.endSection()
        } else if isEqual(old, value) {
            context.hierarchy.endSection()
        } else if context.canEndFastModify(index) {
            context.endFastWrite(changedIndex: index)
        } else {
            context.recordChangeAndEndSection(index, old: old, new: value)
        }
    }

    // MARK: AnyCell

    override final var anyValue: Any { value }

    override final func retire() {
        if !isPlainData(Value.self) { value = genesis }
    }

    override final func differs(from other: AnyCell) -> Bool {
        guard let other = other as? Cell<Value> else { return true }
        return !isEqual(value, other.value)
    }

    override final func differs(fromSameProperty other: AnyCell) -> Bool {
        !isEqual(value, Self.typed(other).value)
    }

    override final func frozenCopy(freezingChildren: Bool) -> AnyCell {
        let current: Value
        if let context = boundContext {
            current = context.lock.withShortLock { value }
        } else if let target = unboundLock.withShortLock({ forwardTarget }) {
            return target.frozenCopy(freezingChildren: freezingChildren)
        } else {
            current = unboundLock.withShortLock { value }
        }
        return makeCell(freezingChildren ? freeze(current) : current)
    }
}

@usableFromInline
final class EquatableCell<Value: Sendable & Equatable>: Cell<Value>, @unchecked Sendable {
    @usableFromInline
    override init(_ value: Value) {
        super.init(value)
    }

    @usableFromInline
    override func isEqual(_ lhs: Value, _ rhs: Value) -> Bool { lhs == rhs }

    @usableFromInline
    override var comparesValues: Bool { true }

    override func makeCell(_ value: Value) -> Cell<Value> { EquatableCell(value) }
}
