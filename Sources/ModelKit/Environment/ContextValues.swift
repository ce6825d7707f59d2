// The per-context storage of environment values, preference contributions and their caches, and
// the *virtual properties* that make them observable like tracked state.
//
// Each key a context sets or reads gets an entry with a property index of its own, past every
// tracked property and memoized value: `KeyedKind.environment.base + position` or
// `KeyedKind.preference.base + position`, so that the index alone tells the kind. Reads call
// `Context.didRead` with that index and changes append a `PendingChange` for it, so Observation,
// `observe`, `onChange`, `modifications`, change printing and the Tester need nothing new.
//
// A *derived* change (a descendant's inherited environment value, an ancestor's preference fold)
// carries no values: observers and Observation hear of it, hooks do not (there is nothing to
// assert but the change where the value was set) and `modifications` leaves it out. A real change
// of an environment value or a contribution always carries its boxed values.


/// The environment and preference entries of one context, created on first use and dropped with the
/// context's extras at its destruct. Guarded by the hierarchy lock.
final class ContextValues {
    // Safety: every field is guarded by the hierarchy lock.
    @exclusivity(unchecked) var environment: [ObjectIdentifier: KeyedEntry] = [:]
    /// The environment entries again, searched linearly by the read path (a model reads few keys).
    @exclusivity(unchecked) var environmentCaches: [(ObjectIdentifier, EnvironmentCache)] = []
    @exclusivity(unchecked) var preferences: [ObjectIdentifier: KeyedEntry] = [:]
    /// The entries of each kind, in creation order: entry `i` is property `kind.base + i`.
    @exclusivity(unchecked) var orderedEnvironment: [KeyedEntry] = []
    @exclusivity(unchecked) var orderedPreferences: [KeyedEntry] = []
    /// The models this one used as dependencies (`ModelRelation.dependencies`), in first-use order.
    @exclusivity(unchecked) var usedDependencies: [Context] = []
}

/// What a virtual property holds.
enum KeyedKind {
    case environment
    case preference

    /// The first property index of the kind. Tracked properties and memoized values
    /// (`schema.count + i`) stay far below both.
    var base: Int {
        switch self {
        case .environment: 1 << 24
        case .preference: 1 << 25
        }
    }

    /// The Observation key path of property `index`: built once for the first environment and
    /// preference entries of every model, which are the ones models have.
    static func observationKeyPath(_ index: Int) -> KeyPath<AnySchema, Int> {
        if index == Context.placesIndex { return placesKeyPath }
        if index == Context.usedDependenciesIndex { return usedDependenciesKeyPath }
        if let kind = of(index) {
            let position = index - kind.base
            let prebuilt = kind == .environment ? prebuiltEnvironment : prebuiltPreferences
            if position < prebuilt.count { return prebuilt[position] }
        }
        return \AnySchema.[property: index]
    }

    private static let placesKeyPath = \AnySchema.[property: Context.placesIndex]
    private static let usedDependenciesKeyPath = \AnySchema.[property: Context.usedDependenciesIndex]
    private static let prebuiltEnvironment = (0..<32).map { \AnySchema.[property: KeyedKind.environment.base + $0] }
    private static let prebuiltPreferences = (0..<32).map { \AnySchema.[property: KeyedKind.preference.base + $0] }

    /// The kind of property `index`, nil for tracked properties and memoized values.
    static func of(_ index: Int) -> KeyedKind? {
        if index >= KeyedKind.preference.base { return .preference }
        if index >= KeyedKind.environment.base { return .environment }
        return nil
    }
}

/// One environment or preference key of one context: its virtual property.
@usableFromInline
class KeyedEntry {
    let index: Int
    let kind: KeyedKind
    /// `environment.theme`, `preference.unsavedCount`.
    let name: String
    /// `\AnySchema.[property: index]`, built once for Observation.
    let keyPath: KeyPath<AnySchema, Int>

    init(index: Int, kind: KeyedKind, name: String) {
        self.index = index
        self.kind = kind
        self.name = name
        self.keyPath = KeyedKind.observationKeyPath(index)
    }

    /// Whether this is an environment entry holding a value set by its model. Caller holds the lock.
    var setsOwnValue: Bool { false }

    /// Sets the value this model set (its own environment value, its contribution) on another
    /// context, for undo's detached copy; nil when it set none. Caller holds the lock; so does the
    /// restorer's caller.
    func restorer() -> (@Sendable (Context) -> Void)? { nil }

    /// The value last read here (the resolved environment value, the folded preference), for a
    /// failed assertion's list of what it read; nil if none is cached. Caller holds the lock.
    var lastReadValue: Any? { nil }
}

extension Context {
    /// The environment and preference storage, created on first use. Caller holds the lock.
    final var ensuredValues: ContextValues {
        let extras = ensuredExtras
        if let values = extras.values { return values }
        let created = ContextValues()
        extras.values = created
        return created
    }

    /// The name of property `index`, virtual ones included (`environment.theme`). Caller holds the
    /// lock.
    /// The current value of property `index`, virtual ones included (the cached value of a
    /// memoized, environment or preference property), for a failed assertion's list of what it
    /// read; nil if it has none. Caller holds the lock.
    final func propertyValue(_ index: Int) -> Any? {
        if let cell = cell(index) { return cell.anyValue }
        if let memo = memoEntry(at: index) { return memo.hasValue ? memo.cachedValue : nil }
        guard let kind = KeyedKind.of(index) else { return nil }
        let position = index - kind.base
        let ordered = kind == .environment ? extras?.values?.orderedEnvironment : extras?.values?.orderedPreferences
        guard let ordered, ordered.indices.contains(position) else { return nil }
        return ordered[position].lastReadValue
    }

    final func propertyName(_ index: Int) -> String {
        if index == Context.placesIndex { return "places" }
        if index == Context.usedDependenciesIndex { return "dependencies" }
        guard let kind = KeyedKind.of(index) else {
            return memoEntry(at: index)?.name ?? schema.name(index)
        }
        let position = index - kind.base
        let ordered = kind == .environment ? extras?.values?.orderedEnvironment : extras?.values?.orderedPreferences
        guard let ordered, ordered.indices.contains(position) else { return "#\(index)" }
        return ordered[position].name
    }

    /// Appends an entry of `kind` made by `make` with the next virtual index. Caller holds the lock.
    final func addEntry<Entry: KeyedEntry>(_ kind: KeyedKind, _ make: (Int) -> Entry) -> Entry {
        let values = ensuredValues
        switch kind {
        case .environment:
            let entry = make(kind.base + values.orderedEnvironment.count)
            values.orderedEnvironment.append(entry)
            return entry
        case .preference:
            let entry = make(kind.base + values.orderedPreferences.count)
            values.orderedPreferences.append(entry)
            return entry
        }
    }

    /// Registers a read of virtual property `entry` (Observation, observers, a Tester's assertion).
    /// Call without holding the lock, or within the section reading it.
    final func didRead(_ entry: KeyedEntry) {
        didRead(entry.index, keyPath: entry.keyPath)
    }

    /// Notes that this model used `dependency`, a model dependency (`ModelRelation.dependencies`).
    final func noteUsedDependency(_ dependency: Context) {
        let isFirstUse = lock.withShortLock { () -> Bool in
            guard state.isLive, dependency !== self else { return false }
            let values = ensuredValues
            if values.usedDependencies.contains(where: { $0 === dependency }) { return false }
            values.usedDependencies.append(dependency)
            return true
        }
        guard isFirstUse else { return }
        // A first use adds to this model's `.dependencies`: an observed query over them runs again.
        hierarchy.withSection {
            if state.isLive {
                hierarchy.record(PendingChange(context: self, index: Context.usedDependenciesIndex, old: nil, new: nil))
            }
        }
    }

    /// A Tester's assertion that reads virtual property `index` through a memoized value computed
    /// from it asserts what reading it directly would: the environment value where it was set, the
    /// contributions folded into a preference. Call without holding the lock.
    final func recordKeyedReadForAssertion(_ index: Int) {
        guard let kind = KeyedKind.of(index) else { return }
        let entry: KeyedEntry? = withReadLock {
            let position = index - kind.base
            let ordered = kind == .environment ? extras?.values?.orderedEnvironment : extras?.values?.orderedPreferences
            guard let ordered, ordered.indices.contains(position) else { return nil }
            return ordered[position]
        }
        switch entry {
        case let cache as EnvironmentCache: recordEnvironmentSource(cache)
        case let fold as PreferenceFold: recordContributors(fold.keyID)
        default: break
        }
    }

    /// Runs `body` holding the lock (or under this thread's section).
    @inline(__always)
    final func withReadLock<R>(_ body: () -> R) -> R {
        if lock.tryLockForRead() {
            defer { lock.unlockAfterRead() }
            return body()
        }
        if lock.lockForReadSlow() {
            defer { lock.unlockAfterRead() }
            return body()
        }
        return body()
    }
}

extension ChangeRecord {
    /// What kind of state changed: tracked state, an environment value or a preference
    /// contribution (for the Tester's `.environment` and `.preferences` exhaustivity).
    package var category: ChangeCategory {
        switch KeyedKind.of(index) {
        case nil: .state
        case .environment: .environment
        case .preference: .preference
        }
    }
}

/// What kind of state a ``ChangeRecord`` changed.
package enum ChangeCategory: Sendable {
    case state
    case environment
    case preference
}

/// The name shown for a key: `ThemeKey` → `theme`, `UnsavedCountPreferenceKey` → `unsavedCount`.
func keyDisplayName(_ type: Any.Type, suffixes: [String]) -> String {
    var name = typeName(type)
    if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
    for suffix in suffixes + ["Key"] where name.count > suffix.count && name.hasSuffix(suffix) {
        name.removeLast(suffix.count)
        break
    }
    // Lowercase the leading capitals: `URLKey` → `url`, `ThemeKey` → `theme`.
    let characters = Array(name)
    var upper = 0
    while upper < characters.count, characters[upper].isUppercase { upper += 1 }
    let lowered = upper > 1 && upper < characters.count ? upper - 1 : upper
    return characters[..<lowered].map { $0.lowercased() }.joined() + String(characters[lowered...])
}

/// Whether two values of one type are equal, when they are `Equatable`; nil when they are not.
func valuesAreEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool? {
    guard let lhs = lhs as? any Equatable else { return nil }
    return lhs.isEqual(to: rhs)
}

private extension Equatable {
    func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
