/// A key for a value that flows down the hierarchy: set on a model, read by it and its descendants.
///
/// Declare a key with its default, then a property on ``ModelEnvironmentValues``:
///
/// ```swift
/// struct ThemeKey: ModelEnvironmentKey { static let defaultValue = "light" }
/// extension ModelEnvironmentValues {
///     var theme: String { get { self[ThemeKey.self] } set { self[ThemeKey.self] = newValue } }
/// }
/// ```
///
/// Changes print and fail exhaustive tests under the key's name without its `Key` suffix
/// (`AppModel.environment.theme`). The name differs from SwiftUI's `EnvironmentKey`, so an app can
/// import both.
public protocol ModelEnvironmentKey: SendableMetatype {
    /// The type of the value.
    associatedtype Value: Sendable
    /// What models read where no model above them set a value.
    static var defaultValue: Value { get }
}

/// The environment values a model reads and sets: one property per ``ModelEnvironmentKey``, declared
/// in an extension.
///
/// Reach it through ``ModelNode/environment``: reading `node.environment.theme` gives the value set
/// by the nearest of the model itself and its ancestors (else the key's default); writing it sets
/// this model's value, for itself and its subtree.
///
/// ```swift
/// func darkModeToggled() { node.environment.theme = "dark" }
/// var theme: String { node.environment.theme }
/// ```
///
/// - Note: Reads are observable like tracked state: Observation, `observe`, `onChange(of:)` and a
///   Tester's assertions see them, and a change of the value set above re-runs them.
public struct ModelEnvironmentValues: Sendable {
    @usableFromInline let source: KeyedSource

    init(_ source: KeyedSource) {
        self.source = source
    }

    /// The value for `key` at the model this came from.
    public subscript<Key: ModelEnvironmentKey>(key: Key.Type) -> Key.Value {
        @inlinable get {
            // The usual read, a value cached at the reading model, specialized for the value's type.
            if case .context(let context) = source, let read = context.beginCachedEnvironmentRead(ObjectIdentifier(key)) {
                let value = unsafeDowncast(read.entry, to: EnvironmentEntry<Key.Value>.self).cached.unsafelyUnwrapped
                context.endCachedEnvironmentRead(read)
                return value
            }
            return uncachedValue(key)
        }
        set {
            switch source {
            case .context(let context):
                context.setEnvironment(key, newValue, fileID: #fileID, filePath: #filePath, line: #line, column: #column)
            case .unanchored(let typeName):
                reportUnanchored(typeName, "environment", key: key, suffixes: environmentSuffixes, isWrite: true)
            case .probe:
                break
            }
        }
    }

    @usableFromInline
    func uncachedValue<Key: ModelEnvironmentKey>(_ key: Key.Type) -> Key.Value {
        switch source {
        case .context(let context):
            return context.environmentValue(key)
        case .unanchored(let typeName):
            reportUnanchored(typeName, "environment", key: key, suffixes: environmentSuffixes, isWrite: false)
            return Key.defaultValue
        case .probe(let probe):
            probe.found { $0.setEnvironment(key, nil, fileID: #fileID, filePath: #filePath, line: #line, column: #column) }
            return Key.defaultValue
        }
    }
}

let environmentSuffixes = ["EnvironmentKey"]

extension ModelNode {
    /// The model's environment: values set on it or its ancestors, read and set by key.
    ///
    /// ```swift
    /// node.environment.theme = "dark"       // this model and its subtree read "dark"
    /// let theme = node.environment.theme    // nearest value set here or above, else the default
    /// ```
    ///
    /// - Note: On a model that is not anchored, reads give the key's default and writes are ignored;
    ///   both report a runtime warning (a test failure under a Tester).
    public var environment: ModelEnvironmentValues {
        get { ModelEnvironmentValues(keyedSource) }
        // Writes go through to the model as each key is set: nothing is left to do here.
        nonmutating set {}
    }

    /// Removes the value this model set for a key: it reads the inherited value again. Removing a
    /// value that was never set does nothing.
    ///
    /// ```swift
    /// node.removeEnvironment(\.theme)
    /// ```
    public func removeEnvironment<Value>(
        _ keyPath: WritableKeyPath<ModelEnvironmentValues, Value>,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = context(for: "removeEnvironment", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return }
        let probe = KeyProbe()
        _ = ModelEnvironmentValues(.probe(probe))[keyPath: keyPath]
        probe.perform(on: context)
    }

    var keyedSource: KeyedSource {
        if let context = anchoredContext { return .context(context) }
        return .unanchored(typeName(M.self))
    }
}

/// Where environment and preference values are read and written.
@usableFromInline
enum KeyedSource: Sendable {
    case context(Context)
    /// A model not anchored yet (its type's name, for the report).
    case unanchored(String)
    /// Finding which key a key path uses (`removeEnvironment`, `removePreference`).
    case probe(KeyProbe)
}

/// Finds the key a property of ``ModelEnvironmentValues`` or ``ModelPreferenceValues`` reads, and
/// remembers how to remove it.
@usableFromInline
final class KeyProbe: Sendable {
    private let removal = Protected<(@Sendable (Context) -> Void)?>(nil)

    func found(_ remove: @escaping @Sendable (Context) -> Void) {
        removal.withLock { if $0 == nil { $0 = remove } }
    }

    func perform(on context: Context) {
        removal.withLock { $0 }?(context)
    }
}

/// Reports a read or write of a key on a model that is not anchored.
func reportUnanchored(_ typeName: String, _ kind: String, key: Any.Type, suffixes: [String], isWrite: Bool) {
    let property = "\(typeName).node.\(kind).\(keyDisplayName(key, suffixes: suffixes))"
    reportIssue(ModelIssue(
        isWrite
            ? "\(property) was set on a \(typeName) that is not anchored; the value was not set."
            : "\(property) was read on a \(typeName) that is not anchored; the default value was returned.",
        fixes: [
            "Anchor the root model first (`withAnchor()`, or `andTester()` in tests), and use the \(kind) from the model's methods or `onActivate`.",
            "To configure a model before it is anchored, set the value in `withActivation { model in … }`.",
        ]
    ))
}

/// An environment entry, whatever its value type: the validity of its cache.
@usableFromInline
class EnvironmentCache: KeyedEntry {
    // Safety: guarded by the hierarchy lock.
    /// The hierarchy's `structureVersion` when the value was cached. It moves on every change of the
    /// tree's shape, and environment changes move it too.
    @exclusivity(unchecked) var cachedStamp: UInt64 = .max
    /// Where the cached value was set (nil: the default or this model), for a Tester's assertion.
    @exclusivity(unchecked) var source: Context?
    @exclusivity(unchecked) var sourceIndex = 0

    /// Whether the value `context` (this entry's context) inherits differs from the value it last
    /// read, now that its first place changed; if so, the new value is the one cached. Caller holds
    /// the lock.
    func inheritsAnotherValue(in context: Context) -> Bool { false }

    /// The key's identity (the environment key's type).
    var keyIdentity: ObjectIdentifier? { nil }

    /// Empties the cache (the next read resolves the value again) and returns the value it held, for
    /// the caller to release after the lock. Caller holds the lock.
    func takeCachedValue() -> Any? { nil }
}

/// A cached environment read in progress.
@usableFromInline
struct CachedRead {
    @usableFromInline let entry: KeyedEntry
    let locked: Bool
}

/// One environment key of one context: the value set here, and the resolved value cached.
@usableFromInline
final class EnvironmentEntry<Value: Sendable>: EnvironmentCache {
    // Safety: guarded by the hierarchy lock.
    /// The value this model set, if any.
    @exclusivity(unchecked) var own: Value?
    /// The value this model reads, valid while `cachedStamp` is the hierarchy's `structureVersion`.
    @usableFromInline @exclusivity(unchecked) var cached: Value?
    /// The key's identity and default value, to resolve the value again without the key's type.
    let keyID: ObjectIdentifier
    let defaultValue: Value

    init(index: Int, name: String, keyID: ObjectIdentifier, defaultValue: Value) {
        self.keyID = keyID
        self.defaultValue = defaultValue
        super.init(index: index, kind: .environment, name: name)
    }

    override var setsOwnValue: Bool { own != nil }

    override var keyIdentity: ObjectIdentifier? { keyID }

    override func restorer() -> (@Sendable (Context) -> Void)? {
        guard let own else { return nil }
        let (keyID, name, defaultValue) = (keyID, name, defaultValue)
        return { context in
            context.environmentEntry(keyID: keyID, name: name, defaultValue: defaultValue).own = own
        }
    }

    override var lastReadValue: Any? { (own ?? cached).map { $0 as Any } }

    override func takeCachedValue() -> Any? {
        cachedStamp = .max
        guard let value = cached else { return nil }
        cached = nil
        return value
    }

    /// Replaces the value this model set, returning the one replaced (released by the caller after
    /// the lock). Caller holds the lock.
    func replaceOwn(with value: Value?) -> Value? {
        let previous = own
        own = value
        return previous
    }

    override func inheritsAnotherValue(in context: Context) -> Bool {
        guard own == nil, let cached else { return false }
        let (value, source, index) = context.resolveEnvironment(keyID, default: defaultValue)
        if valuesAreEqual(cached, value) == true { return false }
        self.cached = value
        self.source = source
        sourceIndex = index
        // Resolved again on the next read, at whatever shape the tree then has.
        cachedStamp = .max
        return true
    }
}

extension Context {
    /// This context's entry for `key`, created on first use. Caller holds the lock.
    final func environmentEntry<Key: ModelEnvironmentKey>(_ key: Key.Type) -> EnvironmentEntry<Key.Value> {
        if let entry = extras?.values?.environment[ObjectIdentifier(key)] {
            return unsafeDowncast(entry, to: EnvironmentEntry<Key.Value>.self)
        }
        return environmentEntry(
            keyID: ObjectIdentifier(key), name: "environment." + keyDisplayName(key, suffixes: environmentSuffixes),
            defaultValue: Key.defaultValue
        )
    }

    /// This context's entry for the key `keyID`, created on first use. Caller holds the lock.
    final func environmentEntry<Value: Sendable>(
        keyID: ObjectIdentifier, name: String, defaultValue: Value
    ) -> EnvironmentEntry<Value> {
        if let entry = extras?.values?.environment[keyID] {
            return unsafeDowncast(entry, to: EnvironmentEntry<Value>.self)
        }
        let entry = addEntry(.environment) {
            EnvironmentEntry<Value>(index: $0, name: name, keyID: keyID, defaultValue: defaultValue)
        }
        hierarchy.readsEnvironment = true
        ensuredValues.environment[keyID] = entry
        ensuredValues.environmentCaches.append((keyID, entry))
        return entry
    }

    /// Starts the read of a cached environment value: returns the entry of the key `id`, with the lock
    /// held, when it caches the current value; else nil, without the lock.
    @usableFromInline
    final func beginCachedEnvironmentRead(_ id: ObjectIdentifier) -> CachedRead? {
        let locked: Bool
        if lock.tryLockForRead() {
            locked = true
        } else {
            locked = lock.lockForReadSlow()
        }
        if let caches = extras?.values?.environmentCaches {
            for (key, entry) in caches where key == id {
                if entry.cachedStamp == hierarchy.structureVersion && state.isLive {
                    return CachedRead(entry: entry, locked: locked)
                }
                break
            }
        }
        if locked { lock.unlockAfterRead() }
        return nil
    }

    /// Ends a read begun by `beginCachedEnvironmentRead`: unlocks, then registers the read.
    @usableFromInline
    final func endCachedEnvironmentRead(_ read: CachedRead) {
        if read.locked { lock.unlockAfterRead() }
        didRead(read.entry)
        if AccessRecording.isRecordingForAssertion {
            recordEnvironmentSource(unsafeDowncast(read.entry, to: EnvironmentCache.self))
        }
    }

    /// A Tester's assertion reading the value here asserts the change where it was set, and the
    /// changes of the ancestors in between that have an entry for the key: a value removed there
    /// (`removeEnvironment`) is what this model now reads past.
    final func recordEnvironmentSource(_ entry: EnvironmentCache) {
        let reads: [(Context, Int)] = withReadLock {
            var reads: [(Context, Int)] = []
            // Its own value: the read of its entry is all there is to assert.
            if entry.setsOwnValue { return reads }
            let keyID = entry.keyIdentity
            var current = places.first?.parent
            var steps = 0
            while let context = current, steps < Context.maxAncestorSteps {
                if context === entry.source {
                    reads.append((context, entry.sourceIndex))
                    break
                }
                if let keyID, let passed = context.extras?.values?.environment[keyID] { reads.append((context, passed.index)) }
                current = context.places.first?.parent
                steps += 1
            }
            return reads
        }
        for (context, index) in reads { _ = AccessRecording.record(context, index) }
    }

    /// How far the walks up the first places go: a guard against a cycle, which the hierarchy never
    /// forms (a model added inside itself is refused), set far beyond any chain that fits in memory
    /// (a chain deeper than the guard would read the default).
    static let maxAncestorSteps = 1 << 24

    /// The value of `key` here: set here or by the nearest ancestor (first places), else the default.
    /// Caller holds the lock.
    final func resolveEnvironment<Key: ModelEnvironmentKey>(_ key: Key.Type) -> (Key.Value, Context?, Int) {
        resolveEnvironment(ObjectIdentifier(key), default: Key.defaultValue)
    }

    /// ``resolveEnvironment(_:)`` for the key `id`, whose values are `Value`s. Caller holds the lock.
    final func resolveEnvironment<Value: Sendable>(_ id: ObjectIdentifier, default defaultValue: Value) -> (Value, Context?, Int) {
        var context = self
        var steps = 0
        while true {
            if let entry = context.extras?.values?.environment[id],
               let own = unsafeDowncast(entry, to: EnvironmentEntry<Value>.self).own {
                return (own, context, entry.index)
            }
            guard let parent = context.places.first?.parent, steps < Context.maxAncestorSteps else { break }
            context = parent
            steps += 1
        }
        return (defaultValue, nil, 0)
    }

    /// This model's first place (the parent it inherits environment values from) changed: it moved,
    /// or a shared model lost its first place. Queues a derived change for each environment value
    /// that it or a descendant inheriting through it read and now resolves differently. Caller holds
    /// the lock for a section.
    final func firstPlaceDidChange() {
        guard hierarchy.readsEnvironment else { return }
        let check = { (context: Context) -> Bool in
            for (_, entry) in context.extras?.values?.environmentCaches ?? [] where entry.inheritsAnotherValue(in: context) {
                self.hierarchy.record(PendingChange(context: context, index: entry.index, old: nil, new: nil))
            }
            return true
        }
        _ = check(self)
        forEachInheritor(check)
    }

    /// Reads `key` for this model: cached per model until the environment or the tree changes.
    final func environmentValue<Key: ModelEnvironmentKey>(_ key: Key.Type) -> Key.Value {
        let read: (Key.Value, EnvironmentEntry<Key.Value>)? = withReadLock {
            guard state.isLive else { return nil }
            let entry = environmentEntry(key)
            let stamp = hierarchy.structureVersion
            if entry.cachedStamp != stamp || entry.cached == nil {
                let (value, source, index) = resolveEnvironment(key)
                entry.cached = value
                entry.cachedStamp = stamp
                entry.source = source === self ? nil : source
                entry.sourceIndex = index
            }
            return (entry.cached.unsafelyUnwrapped, entry)
        }
        guard let (value, entry) = read else { return Key.defaultValue }
        didRead(entry)
        if AccessRecording.isRecordingForAssertion { recordEnvironmentSource(entry) }
        return value
    }

    /// Sets (or, with nil, removes) this model's value for `key`. The change is this model's; every
    /// descendant that inherits it and read it hears of it too.
    final func setEnvironment<Key: ModelEnvironmentKey>(
        _ key: Key.Type, _ value: Key.Value?,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) {
        let issue: ModelIssue? = hierarchy.withSection {
            guard state.isLive else {
                return rejectedKeyedWrite("environment." + keyDisplayName(key, suffixes: environmentSuffixes), removing: value == nil)
            }
            let entry = environmentEntry(key)
            if value == nil && entry.own == nil { return nil }
            let (old, _, _) = resolveEnvironment(key)
            // A value holding no references (`_isPOD`) keeps nothing alive: it need not be released
            // after the lock, nor the caches holding it emptied.
            let holdsReferences = !_isPOD(Key.Value.self)
            var released = TeardownBatch()
            let replaced = entry.replaceOwn(with: value)
            if holdsReferences, let replaced { released.releaseLater(replaced) }
            // Every cached environment value is checked again on its next read (it is valid for one
            // `structureVersion`, which also moves whenever the tree's shape changes).
            hierarchy.structureVersion &+= 1
            let (new, _, _) = resolveEnvironment(key)
            if valuesAreEqual(old, new) != true {
                hierarchy.record(PendingChange(context: self, index: entry.index, old: old, new: new))
                // The caches of the value replaced are emptied now, not at their next read, which
                // may never come: they would keep it alive as long as their models.
                if holdsReferences, let cached = entry.takeCachedValue() { released.releaseLater(cached) }
                notifyInheritingReaders(ObjectIdentifier(key), emptyingCaches: holdsReferences, releasing: &released)
            }
            // Released after the lock: a value's deinit may run any code.
            if !released.isEmpty { hierarchy.pendingActions.append(.teardown(released)) }
            return nil
        }
        // A property setter cannot capture its caller's location: the report names the model and key.
        if let issue { hierarchy.report(issue) }
    }

    /// Queues a derived change for each descendant that read the key `id` and inherits it from this
    /// model. Caller holds the lock for a section.
    private final func notifyInheritingReaders(
        _ id: ObjectIdentifier, emptyingCaches: Bool, releasing released: inout TeardownBatch
    ) {
        forEachInheritor { child in
            guard let entry = child.extras?.values?.environment[id] else { return true }
            // A model that set its own value shields its subtree.
            if entry.setsOwnValue { return false }
            hierarchy.record(PendingChange(context: child, index: entry.index, old: nil, new: nil))
            if emptyingCaches, let cache = entry as? EnvironmentCache, let cached = cache.takeCachedValue() {
                released.releaseLater(cached)
            }
            return true
        }
    }

    /// Calls `body` with each descendant that inherits environment values through this model (its
    /// first place is this model or such a descendant), parents first; `body` returns whether to go
    /// on below the model it was given. Caller holds the lock.
    private final func forEachInheritor(_ body: (Context) -> Bool) {
        var visited = VisitedSet()
        var stack = [self]
        while let context = stack.popLast() {
            for child in context.children where child.places.first?.parent === context && visited.insert(child) {
                if body(child) { stack.append(child) }
            }
        }
    }

    /// Why a write of an environment value or preference (`name`) is refused in the current state;
    /// `removing` for a removal (`removeEnvironment`, `removePreference`). Caller holds the lock.
    final func rejectedKeyedWrite(_ name: String, removing: Bool) -> ModelIssue? {
        let property = "\(typeName).\(name)"
        let (verb, outcome) = removing ? ("Removed", "nothing was removed") : ("Set", "the value was ignored")
        switch writeRefusal {
        case nil:
            return nil
        case .destructed:
            return ModelIssue(
                "\(verb) \(property) of a destructed \(typeName); \(outcome).",
                fixes: ["Keep a reference to the model's current place instead of a removed copy."]
            )
        case .frozen:
            return ModelIssue(
                "\(verb) \(property) of a frozen copy of \(typeName); \(outcome).",
                fixes: ["\(removing ? "Remove" : "Set") the value on the live model instead of its `frozenCopy`."]
            )
        }
    }
}
