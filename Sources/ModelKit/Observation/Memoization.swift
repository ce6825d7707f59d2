extension ModelNode {
    /// A value derived from model state, computed on first use and cached for this model until
    /// something it read changes. Keyed by its call site.
    ///
    /// ```swift
    /// var sortedItems: [Item] {
    ///     node.memoize { items.sorted { $0.title < $1.title } }
    /// }
    /// ```
    ///
    /// The expression runs again at most once per change of what it read (eagerly, when that change
    /// is committed). Observers of the memoized value (Observation, `observe`, `onChange(of:)`)
    /// depend on the value alone, not on its inputs: for an `Equatable` value they hear of a change
    /// only when the value itself changes.
    ///
    /// - Note: The expression runs while the hierarchy is locked, like an `observe` expression: it
    ///   should only read models of this hierarchy. On a model that is not anchored it runs every
    ///   time; inside a transaction that changed something, it runs uncached (its inputs may have
    ///   changed since it was cached).
    @inlinable
    public func memoize<Value: Sendable>(
        fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        memoized(MemoKey(fileID: fileID, line: line, column: column), isDuplicate: nil, expression)
    }

    /// A memoized `Equatable` value: its observers hear of a change only when it changes.
    @inlinable
    public func memoize<Value: Sendable & Equatable>(
        fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        memoized(MemoKey(fileID: fileID, line: line, column: column), isDuplicate: { $0 == $1 }, expression)
    }

    /// A value derived from model state, cached under `key` (see ``memoize(fileID:line:column:_:)-(()->Value)``).
    ///
    /// ```swift
    /// var total: Int {
    ///     node.memoize(for: "total") { items.reduce(0) { $0 + $1.count } }
    /// }
    /// func recount() { node.resetMemoization(for: "total") }
    /// ```
    @inlinable
    public func memoize<Value: Sendable>(
        for key: some Hashable & Sendable, _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        memoized(MemoKey(key), isDuplicate: nil, expression)
    }

    /// A memoized `Equatable` value cached under `key`.
    @inlinable
    public func memoize<Value: Sendable & Equatable>(
        for key: some Hashable & Sendable, _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        memoized(MemoKey(key), isDuplicate: { $0 == $1 }, expression)
    }

    /// Drops the value cached under `key`: the next `memoize(for: key)` computes it again.
    /// Does nothing when no value is cached.
    public func resetMemoization(for key: some Hashable & Sendable) {
        anchoredContext?.resetMemo(MemoKey(key))
    }

    // Inlinable, so that reading a cached value is specialized for `Value` in the caller; only the
    // lookup (non-generic) and the first computation are calls into ModelKit.
    @inlinable
    func memoized<Value: Sendable>(
        _ key: MemoKey, isDuplicate: (@Sendable (Value, Value) -> Bool)?, _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        guard let context = anchoredContext else { return expression() }
        if let entry = context.lockCachedMemo(key, valueType: ObjectIdentifier(Value.self)) {
            let value = unsafeDowncast(entry, to: TypedMemoEntry<Value>.self).value.unsafelyUnwrapped
            context.unlockCachedMemo(entry)
            return value
        }
        return context.memoized(key, isDuplicate: isDuplicate, expression)
    }
}

/// What a memoized value is cached under: its call site, or the caller's key.
@usableFromInline
struct MemoKey: Hashable, Sendable {
    let site: Site?
    let custom: SendableHashable?

    @usableFromInline
    static func == (lhs: MemoKey, rhs: MemoKey) -> Bool {
        if let left = lhs.site {
            guard let right = rhs.site else { return false }
            return left.file == right.file && left.line == right.line && left.column == right.column
        }
        return rhs.site == nil && lhs.custom == rhs.custom
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
        hasher.combine(site)
        hasher.combine(custom)
    }

    struct Site: Hashable, Sendable {
        let file: UInt
        let line: UInt
        let column: UInt
    }

    @usableFromInline
    init(fileID: StaticString, line: UInt, column: UInt) {
        site = Site(file: UInt(bitPattern: fileID.utf8Start), line: line, column: column)
        custom = nil
    }

    @usableFromInline
    init(_ key: some Hashable & Sendable) {
        site = nil
        custom = SendableHashable(key)
    }
}

/// One memoized value of one model: an observer of the properties its expression read, which
/// recomputes the value when they change and counts as property `index` of its model (past the
/// tracked ones), so that observers of the value register on it rather than on its inputs.
@usableFromInline
class MemoEntry: PropertyObserver, @unchecked Sendable {
    let key: MemoKey
    @usableFromInline let index: Int
    unowned(unsafe) let context: Context
    /// The value's type, to tell a key reused for another type.
    @usableFromInline let valueType: ObjectIdentifier
    // Safety: guarded by the hierarchy lock.
    let recorder = AccessRecorder(isObserverEvaluation: true)

    init(key: MemoKey, index: Int, context: Context, valueType: ObjectIdentifier) {
        self.key = key
        self.index = index
        self.context = context
        self.valueType = valueType
        super.init(hierarchy: context.hierarchy)
    }

    /// Whether a value is cached. Caller holds the lock.
    var hasValue: Bool { false }

    /// Drops the cached value and the registrations. Caller holds the lock.
    func reset() {}
}

@usableFromInline
final class TypedMemoEntry<Value: Sendable>: MemoEntry, @unchecked Sendable {
    // Safety: guarded by the hierarchy lock.
    @usableFromInline var value: Value?
    let expression: @Sendable () -> Value
    let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    init(
        key: MemoKey, index: Int, context: Context,
        expression: @escaping @Sendable () -> Value, isDuplicate: (@Sendable (Value, Value) -> Bool)?
    ) {
        self.expression = expression
        self.isDuplicate = isDuplicate
        super.init(key: key, index: index, context: context, valueType: ObjectIdentifier(Value.self))
    }

    override var hasValue: Bool { value != nil }

    /// Computes the value, registering on what it read. Caller holds the lock for a section.
    func compute() -> Value {
        recorder.reads.removeAll(keepingCapacity: true)
        let computed = AccessRecording.recording(into: recorder, expression)
        register(on: recorder.reads)
        value = computed
        return computed
    }

    override func reevaluate(forced: Bool) -> AnyObject? {
        guard !isCancelled, let old = value else { return nil }
        let new = compute()
        if forced || isDuplicate.map({ !$0(old, new) }) ?? true {
            // The memoized value changed: its own observers hear of it in this same commit.
            hierarchy.pendingChanges.append(PendingChange(context: context, index: index, old: nil, new: nil))
        }
        return nil
    }

    override func reset() {
        value = nil
        register(on: [])
    }
}

extension Context {
    /// The entry holding a cached value of `valueType` under `key`, returned with the lock held
    /// (release it with ``unlockCachedMemo(_:)``); nil, without the lock, when there is none or the
    /// cache cannot be used (inside a section that changed something, or on a destructed model).
    @usableFromInline
    final func lockCachedMemo(_ key: MemoKey, valueType: ObjectIdentifier) -> MemoEntry? {
        if lock.isHeldByCurrentThread { return nil }
        lock.lock()
        if state.isLive, let memos = extras?.memos {
            for entry in memos where entry.key == key {
                if entry.valueType == valueType, entry.hasValue { return entry }
                break
            }
        }
        lock.unlock()
        return nil
    }

    /// Ends a read of a cached value: unlocks, then records the read of the memoized value.
    @usableFromInline
    final func unlockCachedMemo(_ entry: MemoEntry) {
        let index = entry.index
        lock.unlock()
        didRead(index)
    }

    @usableFromInline
    final func memoized<Value: Sendable>(
        _ key: MemoKey, isDuplicate: (@Sendable (Value, Value) -> Bool)?, _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        // Inside a section that changed something, the cache may be behind its inputs.
        if lock.isHeldByCurrentThread, !hierarchy.pendingChanges.isEmpty { return expression() }
        let (value, index): (Value, Int?) = hierarchy.withSection {
            guard state.isLive else { return (expression(), nil) }
            if let entry = memo(key, Value.self) {
                return (entry.value ?? entry.compute(), entry.index)
            }
            if extras?.memos.contains(where: { $0.key == key }) == true {
                hierarchy.deferIssue(ModelIssue(
                    "\(typeName).node.memoize(for: \(key.custom.map { "\($0.base)" } ?? "its call site")) was used for a \(Value.self) and for another type; the value was not cached.",
                    fixes: ["Use a different key for each memoized value."]
                ))
                return (expression(), nil)
            }
            let entry = TypedMemoEntry(
                key: key, index: schema.count + (extras?.memos.count ?? 0), context: self,
                expression: expression, isDuplicate: isDuplicate
            )
            ensuredExtras.memos.append(entry)
            ensuredExtras.ownedObservers.append(entry)
            entry.owner = self
            return (entry.compute(), entry.index)
        }
        if let index { didRead(index) }
        return value
    }

    /// The entry cached under `key` if it holds a `Value`. Caller holds the lock.
    private final func memo<Value>(_ key: MemoKey, _: Value.Type) -> TypedMemoEntry<Value>? {
        guard let memos = extras?.memos else { return nil }
        for entry in memos where entry.key == key {
            guard entry.valueType == ObjectIdentifier(Value.self) else { return nil }
            return unsafeDowncast(entry, to: TypedMemoEntry<Value>.self)
        }
        return nil
    }

    final func resetMemo(_ key: MemoKey) {
        lock.withShortLock {
            extras?.memos.first { $0.key == key }?.reset()
        }
    }
}
