import Synchronization

/// The lock for cells and boxes of models that are not anchored yet (initial models). Taken after a
/// hierarchy lock, never before one.
let unboundLock = HierarchyLock(rank: .unbound)

/// The storage behind one `@Tracked` property of one model instance.
///
/// Before anchoring a cell is *unbound* and guarded by ``unboundLock``. Anchoring *binds* it to its
/// model's context, after which the context's hierarchy lock guards it. A cell is bound once; it is
/// only rebound to a retired context when its model instance is replaced by a newer instance with the
/// same id.
class AnyCell: @unchecked Sendable {
    /// The bound context (`Unmanaged` bits), 0 while unbound. Stored with release ordering after
    /// ``index`` and ``retainedContext``; loaded with acquire ordering before either is used.
    final let bindingBits = Atomic<UInt>(0)

    // Safety: written once before the first release-store of `bindingBits` (under `unboundLock`),
    // read after an acquiring load of it. Rebinding never changes it.
    @exclusivity(unchecked) final var index: Int = -1

    // Safety: written under `unboundLock` (first binding) or the hierarchy lock (rebinding); never
    // read on the access path. It keeps the context named by `bindingBits` alive.
    @exclusivity(unchecked) final var retainedContext: AnyContext?

    /// The context this cell is bound to, if any.
    final var boundContext: AnyContext? {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Unmanaged<AnyContext>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            .takeUnretainedValue()
    }

    /// Binds (or rebinds) the cell. The caller holds `unboundLock` for a first binding, the
    /// hierarchy lock for a rebinding.
    final func bind(to context: AnyContext, index: Int) {
        if self.index != index { self.index = index }
        retainedContext = context
        bindingBits.store(UInt(bitPattern: Unmanaged.passUnretained(context).toOpaque()), ordering: .releasing)
    }

    // MARK: Type-erased operations (the caller holds the guarding lock)

    /// The current value, boxed.
    var anyValue: Any { fatalError("abstract") }

    /// The type of the stored value.
    var valueType: Any.Type { fatalError("abstract") }

    /// Puts back the value the cell was created with, unless the value is plain data. Called when
    /// the model is destructed or replaced, so that nothing the value captured outlives the model.
    func retire() {}

    /// Whether `other` (a cell of the same property) holds a different value.
    func differs(from other: AnyCell) -> Bool { true }

    /// A new unbound cell holding a frozen copy of the current value.
    func frozenCopy() -> AnyCell { fatalError("abstract") }
}

class Cell<Value: Sendable>: AnyCell, @unchecked Sendable {
    // Safety: guarded by the lock of the bound context's hierarchy, or `unboundLock` while unbound.
    @exclusivity(unchecked) final var value: Value

    /// The initial value, kept for values that are not plain data (see ``retire()``).
    final let genesis: Value?

    init(_ value: Value) {
        self.value = value
        self.genesis = isPlainData(Value.self) ? nil : value
    }

    /// Whether two values are equal; a plain cell never knows.
    func isEqual(_ lhs: Value, _ rhs: Value) -> Bool { false }

    /// A new cell of the same kind.
    func makeCell(_ value: Value) -> Cell<Value> { Cell(value) }

    // MARK: Reading

    @inline(__always)
    final func read() -> Value {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return readUnbound() }
        return Unmanaged<AnyContext>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            ._withUnsafeGuaranteedRef { context in
                let lock = context.lock
                let result: Value
                if lock.tryLock() {
                    result = value
                    lock.unlock()
                } else if lock.isHeldByCurrentThread {
                    result = value
                } else {
                    lock.lock()
                    result = value
                    lock.unlock()
                }
                context.didRead(index)
                return result
            }
    }

    @inline(never)
    private final func readUnbound() -> Value {
        if unboundLock.isHeldByCurrentThread {
            return value
        }
        unboundLock.lock()
        guard bindingBits.load(ordering: .acquiring) == 0 else {
            unboundLock.unlock()
            return read()
        }
        let result = value
        unboundLock.unlock()
        return result
    }

    /// The value without observation or recording. The caller holds the guarding lock.
    final var peek: Value { value }

    // MARK: Writing

    final func write(_ newValue: Value) {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return writeUnbound(newValue) }
        let context = Unmanaged<AnyContext>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            .takeUnretainedValue()
        let lock = context.lock
        if lock.isHeldByCurrentThread || context.schema.isChildSlot(index) {
            context.hierarchy.withSection { sectionWrite(context, bits: bits, newValue) }
            return
        }
        let hierarchy = context.hierarchy
        lock.lockForSection()
        hierarchy.depth = 1
        guard bindingBits.load(ordering: .relaxed) == bits, context.state.acceptsWrites else {
            let rebound = bindingBits.load(ordering: .relaxed) != bits
            let issue = rebound ? nil : context.rejectedWrite(index)
            hierarchy.depth = 0
            lock.unlockSection()
            if rebound { return write(newValue) }
            issue.map(hierarchy.report)
            return
        }
        if isEqual(value, newValue) {
            hierarchy.depth = 0
            lock.unlockSection()
            return
        }
        let old = value
        value = newValue
        if context.observedMask != 0 || hierarchy.hasHooks || hierarchy.depth != 1 {
            context.recordChangeInSection(index, old: old, new: newValue)
            hierarchy.endSection()
        } else {
            hierarchy.version &+= 1
            hierarchy.depth = 0
            lock.unlockSection()
            context.notifyObservation(index)
        }
    }

    /// A write while this thread holds the hierarchy for a section.
    private final func sectionWrite(_ context: AnyContext, bits: UInt, _ newValue: Value) {
        guard bindingBits.load(ordering: .relaxed) == bits else {
            // Rebound meanwhile (the instance was replaced); the new binding shares this lock.
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

    @inline(never)
    private final func writeUnbound(_ newValue: Value) {
        if unboundLock.isHeldByCurrentThread {
            value = newValue
            return
        }
        unboundLock.lockForSection()
        guard bindingBits.load(ordering: .acquiring) == 0 else {
            unboundLock.unlockSection()
            return write(newValue)
        }
        // The replaced value is released after the lock, at the end of this scope.
        let replaced = value
        value = newValue
        unboundLock.unlockSection()
        withExtendedLifetime(replaced) {}
    }

    // MARK: Compound updates

    struct ModifyToken {
        let context: AnyContext?
        let bits: UInt
        let old: Value?
        let nested: Bool
    }

    final func beginModify() -> ModifyToken {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else {
            if unboundLock.isHeldByCurrentThread {
                return ModifyToken(context: nil, bits: 0, old: nil, nested: true)
            }
            unboundLock.lockForSection()
            guard bindingBits.load(ordering: .acquiring) == 0 else {
                unboundLock.unlockSection()
                return beginModify()
            }
            return ModifyToken(context: nil, bits: 0, old: nil, nested: false)
        }
        let context = Unmanaged<AnyContext>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            .takeUnretainedValue()
        context.hierarchy.beginSection()
        return ModifyToken(context: context, bits: bits, old: value, nested: false)
    }

    final func endModify(_ token: ModifyToken) {
        guard let context = token.context, let old = token.old else {
            if !token.nested { unboundLock.unlockSection() }
            return
        }
        if bindingBits.load(ordering: .relaxed) != token.bits || !context.state.acceptsWrites {
            // The mutation already happened in place; undo it and report.
            value = old
            (boundContext ?? context).rejectedWrite(index).map { context.hierarchy.deferIssue($0) }
        } else if !isEqual(old, value) {
            context.recordChangeInSection(index, old: old, new: value)
        }
        context.hierarchy.endSection()
    }

    // MARK: AnyCell

    override final var anyValue: Any { value }

    override final var valueType: Any.Type { Value.self }

    override final func retire() {
        if let genesis { value = genesis }
    }

    override final func differs(from other: AnyCell) -> Bool {
        guard let other = other as? Cell<Value> else { return true }
        return !isEqual(value, other.value)
    }

    override final func frozenCopy() -> AnyCell {
        let current: Value
        if let context = boundContext {
            current = context.lock.withShortLock { value }
        } else {
            current = unboundLock.withShortLock { value }
        }
        return makeCell(freeze(current))
    }
}

final class EquatableCell<Value: Sendable & Equatable>: Cell<Value>, @unchecked Sendable {
    override func isEqual(_ lhs: Value, _ rhs: Value) -> Bool { lhs == rhs }

    override func makeCell(_ value: Value) -> Cell<Value> { EquatableCell(value) }
}
