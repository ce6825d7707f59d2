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
    ///
    /// A failed assertion names the value by the declaration it is in (`TodoList.visibleTodos
    /// (memoized)`).
    @inlinable
    public func memoize<Value: Sendable>(
        fileID: StaticString = #fileID, function: StaticString = #function, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        memoized(MemoKey(fileID: fileID, line: line, column: column), site: (fileID, function), isDuplicate: nil, expression)
    }

    /// A memoized `Equatable` value: its observers hear of a change only when it changes.
    @inlinable
    public func memoize<Value: Sendable & Equatable>(
        fileID: StaticString = #fileID, function: StaticString = #function, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        memoized(MemoKey(fileID: fileID, line: line, column: column), site: (fileID, function), isDuplicate: { $0 == $1 }, expression)
    }

    /// A value derived from model state, cached under `key` (see ``memoize(fileID:function:line:column:_:)-(()->Value)``).
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
        memoized(MemoKey(key), site: nil, isDuplicate: nil, expression)
    }

    /// A memoized `Equatable` value cached under `key`.
    @inlinable
    public func memoize<Value: Sendable & Equatable>(
        for key: some Hashable & Sendable, _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        memoized(MemoKey(key), site: nil, isDuplicate: { $0 == $1 }, expression)
    }

    /// Drops the value cached under `key` and computes it again: for a value whose expression reads
    /// something that is not tracked (a dependency, a clock) and has changed. Its observers hear of
    /// the change if the value differs, as when a tracked input changes. Does nothing when no value
    /// is cached.
    public func resetMemoization(for key: some Hashable & Sendable) {
        anchoredContext?.resetMemo(MemoKey(key))
    }

    // Inlinable, so that reading a cached value and computing it are specialized for `Value` in
    // the caller; the lookup and the bookkeeping are non-generic calls into ModelKit.
    @inlinable
    func memoized<Value: Sendable>(
        _ key: MemoKey, site: (fileID: StaticString, function: StaticString)?, isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        _ expression: @escaping @Sendable () -> Value
    ) -> Value {
        guard let context = anchoredContext else { return expression() }
        let valueType = ObjectIdentifier(Value.self)
        let (cached, locked) = context.lockCachedMemo(key, valueType: valueType)
        if let entry = cached {
            let value = unsafeDowncast(entry.storage, to: MemoValue<Value>.self).value.unsafelyUnwrapped
            context.unlockCachedMemo(entry, locked: locked)
            return value
        }
        let storage = MemoValue<Value>()
        let compute: (Bool) -> Bool = { forced in
            let new = expression()
            let old = storage.value
            storage.value = new
            guard let old, let isDuplicate, !forced else { return true }
            return !isDuplicate(old, new)
        }
        return context.computeMemo(key, site: site, valueType: valueType, storage: storage, compute: compute) {
            unsafeDowncast($0, to: MemoValue<Value>.self).value
        } ?? expression()
    }
}

/// The cached value of one memoized expression.
@usableFromInline
final class MemoValue<Value>: AnyMemoValue, @unchecked Sendable {
    // Safety: guarded by the hierarchy lock of the model whose memo it is.
    @usableFromInline @exclusivity(unchecked) var value: Value?

    @usableFromInline
    init() {}

    var anyValue: Any? { value.map { $0 as Any } }
}

/// A `MemoValue` of any type.
protocol AnyMemoValue: AnyObject {
    /// The value, boxed. Caller holds the lock.
    var anyValue: Any? { get }
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

    /// How a failed assertion names the memoized value: `memoize(for: "total")`, or by the
    /// declaration its call site is in, `visibleTodos (memoized)` (`memoize(Module/File.swift:12)`
    /// when there is none, at the top level of a closure).
    func displayName(site: (fileID: StaticString, function: StaticString)?) -> String {
        if let custom { return "memoize(for: \(ValueDump.render(custom.base.base)))" }
        let function = site.map { "\($0.function)" } ?? ""
        if !function.isEmpty {
            return "\(function) (memoized)"
        }
        let file = site.map { "\($0.fileID)" } ?? "line"
        return "memoize(\(file):\(self.site?.line ?? 0))"
    }
}

/// One memoized value of one model: an observer of the properties its expression read, which
/// recomputes the value when they change and counts as property `index` of its model (past the
/// tracked ones), so that observers of the value register on it rather than on its inputs.
///
/// Not generic: what depends on the value's type is the storage and the `compute` closure, built
/// by the inlinable entry point so that the caller specializes them.
@usableFromInline
final class MemoEntry: PropertyObserver, @unchecked Sendable {
    let key: MemoKey
    @usableFromInline let index: Int
    unowned(unsafe) let context: Context
    /// The value's type, to tell a key reused for another type.
    let valueType: ObjectIdentifier
    /// A `MemoValue<Value>`.
    @usableFromInline let storage: AnyObject
    /// Evaluates the expression into `storage`; returns whether the value changed (always, the
    /// first time, when forced, or for values that are not `Equatable`).
    private let compute: (Bool) -> Bool
    // Safety: guarded by the hierarchy lock.
    private let recorder = AccessRecorder(isObserverEvaluation: true)
    @exclusivity(unchecked) private(set) var hasValue = false
    /// The hierarchy's stamp (`Hierarchy.nextStamp()`) when a commit last marked the value stale,
    /// and its stamp counter when the value was last computed: the value is stale while the first
    /// is later.
    @exclusivity(unchecked) var staleStamp: UInt64 = 0
    @exclusivity(unchecked) var computedStamp: UInt64 = 0

    override var asMemo: MemoEntry? { self }

    /// Whether a change being committed may have changed the value since it was computed: a read
    /// computes it again (and its own evaluation for the commit, later, finds it up to date).
    /// Caller holds the lock.
    var isStale: Bool { staleStamp > computedStamp }
    /// How failures and printed changes name the value (see `MemoKey.displayName(site:)`).
    let name: String

    init(
        key: MemoKey, name: String, index: Int, context: Context, valueType: ObjectIdentifier, storage: AnyObject,
        compute: @escaping (Bool) -> Bool
    ) {
        self.key = key
        self.name = name
        self.index = index
        self.context = context
        self.valueType = valueType
        self.storage = storage
        self.compute = compute
        super.init(hierarchy: context.hierarchy)
    }

    /// Computes the value, registering on what it read. Caller holds the lock for a section.
    @discardableResult
    func evaluate(forced: Bool) -> Bool {
        computedStamp = hierarchy.stampCounter
        recorder.reads.removeAll(keepingCapacity: true)
        let changed = AccessRecording.recording(into: recorder) { compute(forced) }
        register(on: recorder.reads)
        hasValue = true
        return changed
    }

    /// The properties the last computation read. Caller holds the lock.
    var inputs: [AccessRecording.Read] { recorder.reads }

    /// The value cached, boxed. Caller holds the lock.
    var cachedValue: Any? { (storage as? any AnyMemoValue)?.anyValue }

    override func reevaluate(forced: Bool) -> AnyObject? {
        guard !isCancelled, hasValue else { return nil }
        if evaluate(forced: forced) {
            // The memoized value changed: its own observers hear of it in this same commit.
            hierarchy.record(PendingChange(context: context, index: index, old: nil, new: nil))
        }
        return nil
    }
}

extension Context {
    /// The entry holding a cached value of `valueType` under `key`, and whether this call locked
    /// the hierarchy for it: the caller reads the value, then calls ``unlockCachedMemo(_:locked:)``.
    /// Nil, without a lock, when there is no such entry or the cache cannot be used (inside a
    /// section that changed something, or on a destructed model). Inside a section with nothing
    /// pending (an observer evaluating for a commit), the section's hold is used.
    @usableFromInline
    final func lockCachedMemo(_ key: MemoKey, valueType: ObjectIdentifier) -> (MemoEntry?, locked: Bool) {
        let held = lock.isHeldByCurrentThread
        if held {
            if !hierarchy.pendingChanges.isEmpty { return (nil, false) }
        } else {
            lock.lock()
        }
        if state.isLive, let memos = extras?.memos {
            for entry in memos where entry.key == key {
                if entry.valueType == valueType, entry.hasValue, !entry.isStale { return (entry, !held) }
                break
            }
        }
        if !held { lock.unlock() }
        return (nil, false)
    }

    /// Ends a read of a cached value: unlocks (if ``lockCachedMemo(_:valueType:)`` locked), then
    /// records the read of the memoized value.
    @usableFromInline
    final func unlockCachedMemo(_ entry: MemoEntry, locked: Bool) {
        let index = entry.index
        if AccessRecording.isActive && AccessRecording.isRecordingForAssertion {
            return unlockCachedMemoForAssertion(entry, locked: locked)
        }
        if locked { lock.unlock() }
        didRead(index)
    }

    /// ``unlockCachedMemo(_:locked:)`` inside a Tester's assertion, which also reads the inputs.
    @inline(never)
    private final func unlockCachedMemoForAssertion(_ entry: MemoEntry, locked: Bool) {
        let inputs = memoInputs(entry)
        if locked { lock.unlock() }
        didRead(entry.index)
        recordForAssertion(inputs)
    }

    /// What a memoized value was computed from, through memoized values it read: a Tester's
    /// assertion that reads the value asserts them, as it would reading the expression's inputs
    /// directly. Caller holds the lock.
    final func memoInputs(_ entry: MemoEntry) -> [AccessRecording.Read] {
        var inputs: [AccessRecording.Read] = []
        var pending = entry.inputs
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(entry)]
        while let read = pending.popLast() {
            inputs.append(read)
            if let inner = read.context.memoEntry(at: read.index), visited.insert(ObjectIdentifier(inner)).inserted {
                pending.append(contentsOf: inner.inputs)
            }
        }
        return inputs
    }

    /// The memo entry whose virtual property is `index`, if it is one. Caller holds the lock.
    final func memoEntry(at index: Int) -> MemoEntry? {
        let position = index - schema.count
        guard position >= 0, let memos = extras?.memos, position < memos.count else { return nil }
        return memos[position]
    }

    /// Adds `reads` to the recording of the Tester's assertion running on this thread.
    private final func recordForAssertion(_ reads: [AccessRecording.Read]) {
        for read in reads {
            _ = AccessRecording.record(read.context, read.index)
            if KeyedKind.of(read.index) != nil { read.context.recordKeyedReadForAssertion(read.index) }
        }
    }

    /// Computes a memoized value not cached yet (creating its entry), and reads it with `read`;
    /// nil when it cannot be cached: the caller then evaluates the expression itself.
    @usableFromInline
    final func computeMemo<Value>(
        _ key: MemoKey, site: (fileID: StaticString, function: StaticString)?, valueType: ObjectIdentifier, storage: AnyObject,
        compute: @escaping (Bool) -> Bool, read: (AnyObject) -> Value?
    ) -> Value? {
        // Inside a section that changed something, the cache may be behind its inputs.
        if lock.isHeldByCurrentThread, !hierarchy.pendingChanges.isEmpty { return nil }
        let recordsInputs = AccessRecording.isRecordingForAssertion
        let result: (value: Value?, index: Int, inputs: [AccessRecording.Read])? = hierarchy.withSection {
            // The flags share one byte, written under the lock: set outside it, this write raced
            // with a writer's read of `recordsEveryChange` and could lose a flag set meanwhile.
            hierarchy.hasMemos = true
            guard state.isLive else { return nil }
            if let entry = extras?.memos.first(where: { $0.key == key }) {
                guard entry.valueType == valueType else {
                    hierarchy.deferIssue(ModelIssue(
                        "\(typeName).node.memoize(for: \(key.custom.map { "\($0.base)" } ?? "its call site")) was used for a \(Value.self) and for another type; the value was not cached.",
                        fixes: ["Use a different key for each memoized value."]
                    ))
                    return nil
                }
                if !entry.hasValue {
                    entry.evaluate(forced: false)
                } else if entry.isStale, entry.evaluate(forced: false) {
                    // Read before its turn in the commit that made it stale (an observer of one of
                    // its inputs reading it too): computed now, and its observers hear of it.
                    hierarchy.record(PendingChange(context: self, index: entry.index, old: nil, new: nil))
                }
                return (read(entry.storage), entry.index, recordsInputs ? memoInputs(entry) : [])
            }
            let entry = MemoEntry(
                key: key, name: key.displayName(site: site), index: schema.count + (extras?.memos.count ?? 0),
                context: self, valueType: valueType, storage: storage, compute: compute
            )
            ensuredExtras.memos.append(entry)
            ensuredExtras.ownedObservers.append(entry)
            entry.owner = self
            entry.evaluate(forced: false)
            return (read(storage), entry.index, recordsInputs ? memoInputs(entry) : [])
        }
        guard let result else { return nil }
        didRead(result.index)
        recordForAssertion(result.inputs)
        return result.value
    }

    /// Computes the value cached under `key` again, now: as when one of its inputs changes, its
    /// observers hear of it if the value changed (a value dropped until the next read would leave
    /// them waiting on inputs nobody watches any more). Nothing when no value is cached.
    final func resetMemo(_ key: MemoKey) {
        hierarchy.withSection {
            guard state.isLive, let entry = extras?.memos.first(where: { $0.key == key }), entry.hasValue else { return }
            if entry.evaluate(forced: false) {
                hierarchy.record(PendingChange(context: self, index: entry.index, old: nil, new: nil))
            }
        }
    }
}

extension Hierarchy {
    /// Marks the memoized values a commit's changes reach (through the properties they read, and
    /// through other memoized values) as stale, before any observer is evaluated: an observer of
    /// one of their inputs that reads one of them too, and comes before it, then computes it
    /// instead of reading the value from before the commit. Caller holds the lock.
    func markStaleMemos(_ changes: [PendingChange]) {
        let stamp = nextStamp()
        for position in changes.indices {
            let context = changes[position].context
            let index = changes[position].index
            guard context.isObserved(index), let observers = context.extras?.propertyObservers[index] else { continue }
            markStaleMemos(in: observers, stamp: stamp)
        }
    }

    /// `markStaleMemos(_:)` for a commit's one change and its observers (more than one: a single
    /// observer is evaluated before anything else could read a memoized value).
    @inline(never)
    func markStaleMemos(in observers: [PropertyObserver]) {
        markStaleMemos(in: observers, stamp: nextStamp())
    }

    private func markStaleMemos(in observers: [PropertyObserver], stamp: UInt64) {
        for observer in observers {
            guard let memo = observer.asMemo, memo.staleStamp != stamp else { continue }
            memo.staleStamp = stamp
            let context = memo.context
            guard context.isObserved(memo.index), let next = context.extras?.propertyObservers[memo.index] else { continue }
            markStaleMemos(in: next, stamp: stamp)
        }
    }
}
