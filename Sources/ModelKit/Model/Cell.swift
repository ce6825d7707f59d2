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
    /// ordering after ``index``; loaded with acquire ordering before it is used.
    ///
    /// Safety: nonzero bits are a +1 (retained) reference to the context, taken by ``bind(to:index:)``
    /// and given back by ``forward(to:)`` or the cell's deinit, so that a bound cell keeps its context
    /// alive as long as it is reachable (also through a copy of a `Tracked` kept without its model).
    /// A forwarded cell's context stays alive through the earlier instance's box, which stays bound
    /// to it, so a read that loaded the bits before the forward still finds it.
    @usableFromInline final let bindingBits = Atomic<UInt>(0)

    // Safety: written once before the first release-store of `bindingBits` (under `unboundLock`),
    // read after an acquiring load of it. Forwarding never changes it. 4 bytes, so that with
    // `forwardSlot` it takes one word and a cell of a word-sized value is 40 bytes (malloc's
    // 48-byte class).
    @usableFromInline @exclusivity(unchecked) final var storedIndex: Int32 = -1

    /// The slot of `forwardedCells` holding the cell this one forwards to (see ``forward(to:)``),
    /// or 0. Safety: written under `unboundLock` (once, by the forward), read under it and by the
    /// deinit; never read on the access path.
    @exclusivity(unchecked) final var forwardSlot: UInt32 = 0

    /// Whether the cell forwards to a newer instance's cell.
    final var isForwarding: Bool { forwardSlot != 0 }

    @usableFromInline
    init() {}

    deinit {
        let bits = bindingBits.load(ordering: .acquiring)
        if bits != 0 { Self.unmanagedContext(bits).release() }
        let slot = forwardSlot
        if slot != 0 {
            // The target is released here, after the table's lock.
            let target = forwardedCells.withLock { $0.remove(slot) }
            withExtendedLifetime(target) {}
        }
    }

    /// The property's index in its model's schema.
    @inlinable
    final var index: Int { Int(storedIndex) }

    @inline(__always)
    static func unmanagedContext(_ bits: UInt) -> Unmanaged<Context> {
        Unmanaged<Context>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
    }

    /// The context this cell is bound to, if any.
    final var boundContext: Context? {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Self.unmanagedContext(bits).takeUnretainedValue()
    }

    /// Whether the cell belongs to a context, directly or by forwarding. The caller holds
    /// `unboundLock`.
    final var isClaimed: Bool {
        bindingBits.load(ordering: .relaxed) != 0 || isForwarding
    }

    /// The live cell this one forwards to, at the end of its chain of forwards (an instance
    /// continued by one that was continued in turn). The chain is shortened to one hop on the way,
    /// so that a copy of an early instance does not pay for every later one. The caller holds
    /// `unboundLock`.
    final var forwardTarget: AnyCell? {
        let slot = forwardSlot
        guard slot != 0 else { return nil }
        let (target, skipped) = forwardedCells.withLock { table -> (AnyCell?, AnyCell?) in
            guard var target = table[slot] else { return (nil, nil) }
            var hops = 0
            while target.forwardSlot != 0, let next = table[target.forwardSlot] {
                target = next
                hops += 1
            }
            return (target, hops > 0 ? table.replace(slot, with: target) : nil)
        }
        // A skipped cell is released after the table's lock (its deinit takes that lock).
        withExtendedLifetime(skipped) {}
        return target
    }

    /// Binds the cell for its first time. The caller holds `unboundLock`.
    final func bind(to context: Context, index: Int) {
        let stored = Int32(truncatingIfNeeded: index)
        if storedIndex != stored { storedIndex = stored }
        let bits = bindingBits.load(ordering: .relaxed)
        // A cell registered twice (which the debug registration check reports) is bound once.
        if bits == UInt(bitPattern: Unmanaged.passUnretained(context).toOpaque()) { return }
        precondition(bits == 0 && !isForwarding, "ModelKit internal error: a bound cell was bound again")
        bindingBits.store(UInt(bitPattern: Unmanaged.passRetained(context).toOpaque()), ordering: .releasing)
    }

    /// Makes every later access to this cell an access to `target`, the same property of a newer
    /// instance of the same model. The caller holds the hierarchy lock (for a section) and
    /// `unboundLock`. The cell keeps its value: a read that loaded the binding before this call and
    /// takes the lock after it returns that value, the live value at the time the read began.
    final func forward(to target: AnyCell) {
        var previous: AnyCell?
        if forwardSlot != 0 {
            let slot = forwardSlot
            previous = forwardedCells.withLock { $0.replace(slot, with: target) }
        } else {
            forwardSlot = forwardedCells.withLock { $0.add(target, from: self) }
        }
        let bits = bindingBits.load(ordering: .relaxed)
        bindingBits.store(0, ordering: .releasing)
        // The context is the live one (the caller's), which its hierarchy keeps alive: this release
        // never frees it under the locks.
        if bits != 0 { Self.unmanagedContext(bits).release() }
        withExtendedLifetime(previous) {}
    }

    /// Continuity's `forward(to:)` of a bound cell (see `Context.adopt`): binds `successor`, the
    /// same property of a newer instance (unclaimed), in this cell's place, handing it the
    /// reference to the context that this cell's binding holds, and makes this cell forward to it.
    /// The caller holds the hierarchy lock (for a section), `unboundLock`, and `forwardedCells`'
    /// lock, whose table is `table`.
    final func handOver(to successor: AnyCell, table: inout ForwardTable) {
        let bits = bindingBits.load(ordering: .relaxed)
        precondition(bits != 0 && forwardSlot == 0 && successor.bindingBits.load(ordering: .relaxed) == 0
            && !successor.isForwarding, "ModelKit internal error: a continued cell was not live")
        successor.storedIndex = storedIndex
        successor.bindingBits.store(bits, ordering: .releasing)
        forwardSlot = table.add(successor, from: self)
        bindingBits.store(0, ordering: .releasing)
    }

    // MARK: Type-erased operations (the caller holds the guarding lock)

    /// The current value, boxed.
    var anyValue: Any { fatalError("abstract") }

    /// Puts back the value the cell was created with, unless the value is plain data. Called when
    /// the model is destructed, so that nothing the value captured outlives the model. Returns the
    /// value taken out, for the caller to release after the lock (its release may run user code).
    func retire() -> Any? { nil }

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

    /// A cell of a trivial value (`_isPOD`), which keeps its last value when retired; other values
    /// get a ``RetiringCell``, which keeps the initial value to put back.
    @usableFromInline
    init(_ value: Value) {
        self.value = value
    }

    /// A new cell for `value`: one that keeps its initial value unless the value is trivial.
    /// A value `Equatable` only at run time (a generic model's `V`) gets a cell that compares it.
    @inlinable
    static func make(_ value: Value) -> Cell<Value> {
        if let cell = makeComparingIfEquatable(value) { return cell }
        return _isPOD(Value.self) ? Cell(value) : RetiringCell(value)
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
            // The stored hierarchy (the lock itself), borrowed: the computed `lock` would be retained.
            let lock = context.hierarchy
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

    // MARK: AnyCell

    override final var anyValue: Any { value }

    /// A trivial value captures nothing: it keeps its last value.
    override func retire() -> Any? { nil }

    override final func differs(from other: AnyCell) -> Bool {
        guard let other = other as? Cell<Value> else { return true }
        return !isEqual(value, other.value)
    }

    override func differs(fromSameProperty other: AnyCell) -> Bool {
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
