/// The dependencies a model sees, resolved at its place in the hierarchy.
///
/// Add a property per dependency in an extension, then read it from a model with `node.yourKey`
/// and override it with `withAnchor { $0.yourKey = … }` or `model.withDependencies { … }`:
///
/// ```swift
/// extension DependencyValues {
///     var factClient: FactClient {
///         get { self[FactClient.self] }
///         set { self[FactClient.self] = newValue }
///     }
/// }
///
/// let app = AppModel().withAnchor {
///     $0.factClient.fetch = { "\($0) is a good number." }
/// }
/// ```
///
/// Descendants inherit their parent's values, including overrides. A value that was not overridden
/// is the key's `liveValue` (its `testValue` under a Tester), resolved once per hierarchy.
public struct DependencyValues: Sendable {
    enum Entry: @unchecked Sendable {
        // Safety: values are `Sendable` (`DependencyKey.Value: Sendable`); the enum only records
        // whether the value is a model that must be anchored on first use.
        case value(any Sendable)
        case model(any Sendable)

        init<V: Sendable>(_ value: V) {
            self = value is any Model ? .model(value) : .value(value)
        }
    }

    typealias Storage = [ObjectIdentifier: Entry]

    private(set) var storage: Storage = [:]
    private let hierarchy: Hierarchy?
    /// Set on the copy a model reads through, so that defaults resolve for (and report against) it.
    private var resolvingContext: Context?

    init(hierarchy: Hierarchy?) {
        self.hierarchy = hierarchy
    }

    init(storage: Storage, hierarchy: Hierarchy) {
        self.storage = storage
        self.hierarchy = hierarchy
    }

    /// Whether these values belong to a hierarchy under a Tester (test values are used).
    public var isTesting: Bool { hierarchy?.testing != nil }

    /// The value for `key`: an override if one was set, otherwise the key's default.
    public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
        get {
            if let context = resolvingContext {
                return resolve(key, for: context)
            }
            switch storage[ObjectIdentifier(key)] {
            case .value(let value), .model(let value):
                return value as! Key.Value
            case nil:
                return defaultValue(key)
            }
        }
        set {
            storage[ObjectIdentifier(key)] = Entry(newValue)
        }
    }

    /// The key's default without reporting: inside an override closure reading the base value to
    /// modify it is fine even when the key has no test value.
    private func defaultValue<Key: DependencyKey>(_ key: Key.Type) -> Key.Value {
        if let hierarchy, let entry = hierarchy.cachedDefault(key) {
            switch entry {
            case .value(let value), .model(let value): return value as! Key.Value
            }
        }
        return isTesting ? MissingTestValue.check { Key.testValue }.0 : Key.liveValue
    }

    /// Resolves `key` for a model: its override, else the hierarchy's default; a model value is
    /// anchored into the hierarchy on first use.
    func resolve<Key: DependencyKey>(_ key: Key.Type, for context: Context) -> Key.Value {
        let entry = storage[ObjectIdentifier(key)] ?? context.hierarchy.resolveDefault(key, for: context)
        switch entry {
        case .value(let value):
            return value as! Key.Value
        case .model(let value):
            return context.hierarchy.dependencyModel(key, value: value as! Key.Value, for: context)
        }
    }

    /// A copy whose reads resolve for `context`.
    func resolving(for context: Context) -> DependencyValues {
        var copy = self
        copy.resolvingContext = context
        return copy
    }
}

extension Hierarchy {
    func cachedDefault<Key: DependencyKey>(_ key: Key.Type) -> DependencyValues.Entry? {
        lock.withShortLock { resolvedDefaults[ObjectIdentifier(key)] }
    }

    /// The key's default for this hierarchy, resolved once. Under a Tester a key without a test
    /// value is reported once per hierarchy (its live value is used).
    func resolveDefault<Key: DependencyKey>(_ key: Key.Type, for context: Context) -> DependencyValues.Entry {
        let id = ObjectIdentifier(key)
        if let entry = lock.withShortLock({ resolvedDefaults[id] }) {
            return entry
        }
        // Resolved outside the lock: `liveValue` and `testValue` are user code.
        let (value, missing) = testing == nil ? (Key.liveValue, false) : MissingTestValue.check { Key.testValue }
        let entry = DependencyValues.Entry(value)
        let (resolved, report): (DependencyValues.Entry, Bool) = lock.withShortLock {
            if let existing = resolvedDefaults[id] { return (existing, false) }
            resolvedDefaults[id] = entry
            return (entry, missing && reportedMissingDependencies.insert(id).inserted)
        }
        if report {
            let name = typeName(Key.self)
            self.report(ModelIssue(
                "\(context.typeName) used the dependency \(name), which has no testValue and was not overridden in this test; its liveValue was used.",
                fixes: [
                    "Override it for this test: `andTester { $0[\(name).self] = … }` (or through its `DependencyValues` property).",
                    "Or give \(name) a `static let testValue` in its `DependencyKey` conformance.",
                ]
            ))
        }
        return resolved
    }

    /// The model used as dependency `Key`, anchored into this hierarchy (inheriting the
    /// dependencies of the model that first uses it) on first use.
    func dependencyModel<Key: DependencyKey>(_ key: Key.Type, value: Key.Value, for context: Context) -> Key.Value {
        guard let model = value as? any Model else { return value }
        return anchorDependency(model, for: context) as! Key.Value
    }

    private func anchorDependency<M: Model>(_ model: M, for context: Context) -> M {
        if model.node.box.context != nil { return model }
        return withSection {
            if model.node.box.context == nil {
                let anchored = makeContext(for: model, place: nil, inherited: context.dependencies, isRoot: true)
                dependencyModels[ObjectIdentifier(model.node.box)] = anchored
            }
            return model
        }
    }
}

extension ModelNode {
    /// The dependency for `key`, resolved at the model's place in the hierarchy.
    ///
    /// ```swift
    /// let fact = try await node[FactClient.self].fetch(count)
    /// ```
    public subscript<Key: DependencyKey>(
        key: Key.Type,
        fileID fileID: StaticString = #fileID, filePath filePath: StaticString = #filePath,
        line line: UInt = #line, column column: UInt = #column
    ) -> Key.Value {
        guard let context = context(for: "[\(typeName(key)).self]", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return DependencyValues(hierarchy: nil)[key]
        }
        return context.dependencies.resolve(key, for: context)
    }

    /// The dependency at `keyPath` of ``DependencyValues``: `node.factClient`, `node.uuid()`.
    public subscript<Value>(dynamicMember keyPath: KeyPath<DependencyValues, Value>) -> Value {
        guard let context = anchoredContext else {
            // A dynamic member cannot capture its call site; the report names the dependency's type.
            reportIssue(ModelIssue(
                "\(typeName(M.self)).node was used to read a \(typeName(Value.self)) dependency on a \(typeName(M.self)) that is not anchored; its default value was returned.",
                fixes: [
                    "Anchor the root model first (`withAnchor()`, or `andTester()` in tests), and read dependencies from the model's methods or `onActivate`.",
                ]
            ))
            return DependencyValues(hierarchy: nil)[keyPath: keyPath]
        }
        return context.dependencies.resolving(for: context)[keyPath: keyPath]
    }
}
