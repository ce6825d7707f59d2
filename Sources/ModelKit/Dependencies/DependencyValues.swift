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
    typealias Storage = DependencyList

    /// Either values being configured (at anchoring, in `withDependencies`), or the values of a
    /// model's place, which it reads through (one reference to copy).
    @usableFromInline
    enum Source: Sendable {
        case values(DependencyList, Hierarchy?)
        case context(Context)
    }

    @usableFromInline var source: Source

    init(hierarchy: Hierarchy?) {
        source = .values(DependencyList(), hierarchy)
    }

    init(storage: Storage, hierarchy: Hierarchy) {
        source = .values(storage, hierarchy)
    }

    /// The values a model reads through: defaults resolve for (and report against) `context`.
    init(resolvingFor context: Context) {
        source = .context(context)
    }

    /// The overrides.
    var storage: Storage {
        switch source {
        case .values(let storage, _): storage
        case .context(let context): context.dependencyStorage
        }
    }

    var hierarchy: Hierarchy? {
        switch source {
        case .values(_, let hierarchy): hierarchy
        case .context(let context): context.hierarchy
        }
    }

    @usableFromInline
    var resolvingContext: Context? {
        if case .context(let context) = source { return context }
        return nil
    }

    /// Whether these values belong to a hierarchy under a Tester (test values are used).
    public var isTesting: Bool { hierarchy?.testing != nil }

    /// The value for `key`: an override if one was set, otherwise the key's default.
    public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
        @inlinable
        get {
            // Specialized at the call site: the lookup itself is one non-generic call.
            let value: Key.Value
            let isModel: Bool
            if case .context(let context) = source {
                // A model reading: usually without retaining the box (see `dependencyBox`).
                let (box, owner) = context.dependencyBox(ObjectIdentifier(key)) { makeDefault(key) }
                (value, isModel) = withExtendedLifetime(owner) {
                    box._withUnsafeGuaranteedRef { ($0.value(of: Key.Value.self), $0.isModel) }
                }
            } else {
                let box = box(for: ObjectIdentifier(key)) { makeDefault(key) }
                (value, isModel) = (box.value(of: Key.Value.self), box.isModel)
                if isModel { noteModelRead(key, box) }
            }
            guard isModel, let context = resolvingContext else { return value }
            return context.hierarchy.dependencyModel(key, value: value, for: context)
        }
        set {
            var storage = self.storage
            storage[ObjectIdentifier(key)] = TypedDependencyBox(newValue)
            source = .values(storage, hierarchy)
        }
    }

    /// Reports a model dependency read while configuring (in a `withAnchor`, `withDependencies` or
    /// `andTester` closure) that the closure did not set: the model is the hierarchy's shared one
    /// or a throwaway default, so setting a field of it (`$0[Session.self].user = "x"`, the form a
    /// plain dependency allows) would change the model every part of the hierarchy uses, or be
    /// lost. A model the closure set (not anchored yet) is its own to configure.
    @usableFromInline
    func noteModelRead<Key: DependencyKey>(_ key: Key.Type, _ box: DependencyBox) {
        guard case .values(let storage, let hierarchy?) = source else { return }
        let isOwnOverride = storage[ObjectIdentifier(key)] === box
            && (box.value(of: Key.Value.self) as? any Model)?.lifetime == .initial
        if isOwnOverride { return }
        let name = typeName(key)
        let model = typeName(Key.Value.self)
        hierarchy.deferIssue(ModelIssue(
            "A dependency override read the model dependency \(name) (a \(model)) without setting it; a model dependency is one shared model, so a field set on what was read is lost or changes the model the whole hierarchy uses.",
            fixes: [
                "Set the whole model: `$0[\(name).self] = \(model)(…)`, made with the values this part of the hierarchy should see.",
                "Or change the shared model from a model's method or `onActivate`: `node[\(name).self].… = …`.",
            ]
        ))
    }

    /// The box for the key `id`: its override, else the hierarchy's default (made by `makeDefault`
    /// the first time, and reported under a Tester when the key has no test value).
    @usableFromInline
    func box(for id: ObjectIdentifier, makeDefault: () -> DefaultResolution) -> DependencyBox {
        switch source {
        case .context(let context):
            let (box, owner) = context.dependencyBox(id, makeDefault: makeDefault)
            return owner ?? box.takeUnretainedValue()
        case .values(let storage, let hierarchy):
            // Configuring (an override closure reading the base value to modify it): use the
            // hierarchy's default if one was resolved, else make one without caching or reporting,
            // so that a model's first use still resolves (and, under a Tester, reports) properly.
            if let box = storage[id] ?? hierarchy?.existingDefault(id) { return box }
            return makeDefault().box
        }
    }

    /// The key's default, boxed, with whether a Tester's hierarchy used a missing `testValue`.
    @usableFromInline
    func makeDefault<Key: DependencyKey>(_ key: Key.Type) -> DefaultResolution {
        guard isTesting else { return DefaultResolution(box: TypedDependencyBox(Key.liveValue), keyName: "", missingTestValue: false) }
        let (value, missing) = MissingTestValue.check { Key.testValue }
        return DefaultResolution(box: TypedDependencyBox(value), keyName: typeName(key), missingTestValue: missing)
    }
}

extension Context {
    /// The box for the key `id` as this model reads it: its override, else the hierarchy's
    /// default. The box is unretained when the context's overrides or the hierarchy's published
    /// defaults keep it alive (the usual case); otherwise `owner` holds it.
    @usableFromInline
    final func dependencyBox(
        _ id: ObjectIdentifier, makeDefault: () -> DefaultResolution
    ) -> (box: Unmanaged<DependencyBox>, owner: DependencyBox?) {
        if let box = dependencyStorage.unretainedBox(id) ?? hierarchy.publishedDefault(id) { return (box, nil) }
        let box = hierarchy.defaultBox(for: id, resolvingFor: self, makeDefault: makeDefault)
        return (Unmanaged.passUnretained(box), box)
    }
}

/// A key's default value, resolved for a hierarchy.
@usableFromInline
struct DefaultResolution {
    let box: DependencyBox
    let keyName: String
    let missingTestValue: Bool
}

/// An immutable set of resolved defaults, read without the hierarchy lock.
final class DefaultsSnapshot: Sendable {
    let defaults: DependencyList

    init(defaults: DependencyList) {
        self.defaults = defaults
    }
}

/// The overrides of one place in the hierarchy: a short list searched linearly (an app overrides a
/// handful of keys; comparing a few pointers beats hashing).
@usableFromInline
struct DependencyList: Sendable {
    private var entries: [(id: ObjectIdentifier, box: DependencyBox)] = []

    /// The box for `id`, unretained: the list's owner keeps it alive.
    func unretainedBox(_ id: ObjectIdentifier) -> Unmanaged<DependencyBox>? {
        entries.withUnsafeBufferPointer { entries in
            for index in entries.indices where entries[index].id == id {
                return Unmanaged.passUnretained(entries[index].box)
            }
            return nil
        }
    }

    subscript(id: ObjectIdentifier) -> DependencyBox? {
        get {
            for entry in entries where entry.id == id { return entry.box }
            return nil
        }
        set {
            if let index = entries.firstIndex(where: { $0.id == id }) {
                if let newValue { entries[index].box = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((id, newValue))
            }
        }
    }
}

/// A dependency value, boxed with its type so that reading it back needs no dynamic cast.
@usableFromInline
class DependencyBox: @unchecked Sendable {
    // Safety: immutable; subclasses hold `Sendable` values.
    /// Whether the value is a model, anchored into the hierarchy on first use.
    @usableFromInline let isModel: Bool

    init(isModel: Bool) {
        self.isModel = isModel
    }

    /// The value; `Value` must be the type the box was made for (the dependency key's `Value`).
    @inlinable @inline(__always)
    final func value<Value>(of _: Value.Type) -> Value {
        unsafeDowncast(self, to: TypedDependencyBox<Value>.self).value
    }
}

@usableFromInline
final class TypedDependencyBox<Value>: DependencyBox, @unchecked Sendable {
    // Safety: immutable; only created for `DependencyKey.Value`s, which are `Sendable`.
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
        super.init(isModel: value is any Model)
    }
}

extension Hierarchy {
    /// The hierarchy's default for the key `id`, resolved once (outside the lock: `liveValue` and
    /// `testValue` are user code). Under a Tester, a key without a test value is reported once per
    /// hierarchy, against the model that used it (its live value is used).
    @usableFromInline
    func defaultBox(
        for id: ObjectIdentifier, resolvingFor context: Context?, makeDefault: () -> DefaultResolution
    ) -> DependencyBox {
        if let box = publishedDefault(id)?.takeUnretainedValue() ?? cachedDefault(id) {
            return box
        }
        let resolution = makeDefault()
        let (resolved, report): (DependencyBox, Bool) = lock.withShortLock {
            let extras = self.extras
            if let existing = extras.resolvedDefaults[id] { return (existing, false) }
            extras.resolvedDefaults[id] = resolution.box
            if !resolution.box.isModel { publishDefault(id, resolution.box, in: extras) }
            return (resolution.box, resolution.missingTestValue && context != nil
                && extras.reportedMissingDependencies.insert(id).inserted)
        }
        if report, let context {
            let name = resolution.keyName
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

    /// The published default of the key `id`, read without the lock. Published snapshots live as
    /// long as the hierarchy, so the box needs no retain.
    func publishedDefault(_ id: ObjectIdentifier) -> Unmanaged<DependencyBox>? {
        guard let extras = extrasIfAny else { return nil }
        let bits = extras.defaultsSnapshotBits.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Unmanaged<DefaultsSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            ._withUnsafeGuaranteedRef { $0.defaults.unretainedBox(id) }
    }

    /// Publishes a new snapshot with `box` added. Caller holds the lock.
    private func publishDefault(_ id: ObjectIdentifier, _ box: DependencyBox, in extras: HierarchyExtras) {
        var defaults = extras.publishedDefaults.last?.defaults ?? DependencyList()
        defaults[id] = box
        let snapshot = DefaultsSnapshot(defaults: defaults)
        extras.publishedDefaults.append(snapshot)
        let bits = UInt(bitPattern: Unmanaged.passUnretained(snapshot).toOpaque())
        extras.defaultsSnapshotBits.store(bits, ordering: .releasing)
    }

    /// The default of the key `id` if it was resolved already.
    func existingDefault(_ id: ObjectIdentifier) -> DependencyBox? {
        publishedDefault(id)?.takeUnretainedValue() ?? cachedDefault(id)
    }

    /// The resolved default of the key `id`, if any: the read path, like a tracked read's.
    private func cachedDefault(_ id: ObjectIdentifier) -> DependencyBox? {
        if lock.tryLockForRead() {
            defer { lock.unlockAfterRead() }
            return extrasIfAny?.resolvedDefaults[id]
        }
        return lock.withShortLock { extrasIfAny?.resolvedDefaults[id] }
    }

    /// The model used as dependency `Key`, anchored into this hierarchy (inheriting the
    /// dependencies of the model that first uses it) on first use.
    @usableFromInline
    func dependencyModel<Key: DependencyKey>(_ key: Key.Type, value: Key.Value, for context: Context) -> Key.Value {
        guard let model = value as? any Model else { return value }
        return anchorDependency(model, key: key, for: context) as! Key.Value
    }

    private func anchorDependency<M: Model>(_ model: M, key: Any.Type, for context: Context) -> M {
        if let dependency = model.node.box.context {
            if dependency.hierarchy !== self { reportForeignDependency(M.self, key: key, usedBy: context) }
            context.noteUsedDependency(dependency)
            return model
        }
        return withSection {
            // Used first by a model's `onCancel` (or later) while the hierarchy is torn down: the
            // teardown has passed the dependency models, so anchoring it would leave it live, with
            // its work running, after its hierarchy. It is handed out as it is, not anchored.
            if isTornDown { return model }
            if model.node.box.context == nil {
                let anchored = makeContext(for: model, place: nil, inherited: context.dependencyStorage, isRoot: true)
                extras.dependencyModels[ObjectIdentifier(model.node.box)] = anchored
            }
            if let dependency = model.node.box.context { context.noteUsedDependency(dependency) }
            return model
        }
    }

    /// Reports, once per model type, a model dependency that belongs to another hierarchy (or was
    /// torn down with it): a key whose default is one stored instance, shared by every hierarchy.
    private func reportForeignDependency<M: Model>(_ type: M.Type, key: Any.Type, usedBy context: Context) {
        withSection {
            guard extras.reportedForeignDependencies.insert(ObjectIdentifier(M.self)).inserted else { return }
            let name = typeName(M.self)
            deferIssue(ModelIssue(
                "\(context.typeName) uses the dependency \(typeName(key)), a \(name) that belongs to another hierarchy (or was removed with it); a model dependency is one per hierarchy, and this one is shared with the hierarchy that anchored it first.",
                fixes: [
                    "Make the key's default a new instance each time it is read: `static var liveValue: \(name) { \(name)() }` instead of `static let`, and the same for `testValue`.",
                    "Or override the dependency with a new instance: `withDependencies { $0[\(typeName(key)).self] = \(name)() }`.",
                ]
            ))
        }
    }
}

extension ModelNode {
    /// The dependency for `key`, resolved at the model's place in the hierarchy.
    ///
    /// ```swift
    /// let fact = try await node[FactClient.self].fetch(count)
    /// ```
    @inlinable
    public subscript<Key: DependencyKey>(
        key: Key.Type,
        fileID fileID: StaticString = #fileID, filePath filePath: StaticString = #filePath,
        line line: UInt = #line, column column: UInt = #column
    ) -> Key.Value {
        dependencies(forKey: key, fileID: fileID, filePath: filePath, line: line, column: column)[key]
    }

    /// The dependencies the model reads `key` through (reporting, at the call site, when it is not
    /// anchored).
    @usableFromInline
    func dependencies<Key>(
        forKey key: Key.Type, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) -> DependencyValues {
        guard let context = context(
            for: "[\(typeName(key)).self]", fileID: fileID, filePath: filePath, line: line, column: column,
            consequence: "its default value was returned"
        ) else {
            return DependencyValues(hierarchy: nil)
        }
        return DependencyValues(resolvingFor: context)
    }

    /// The dependency at `keyPath` of ``DependencyValues``: `node.factClient`, `node.uuid()`.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: KeyPath<DependencyValues, Value>) -> Value {
        // Inlined so that a key path literal becomes a direct call of the property's getter.
        dependenciesForReading(Value.self)[keyPath: keyPath]
    }

    /// The dependencies the model reads through (reporting when it is not anchored).
    @usableFromInline
    func dependenciesForReading<Value>(_ valueType: Value.Type) -> DependencyValues {
        guard let context = anchoredContext else {
            // A dynamic member cannot capture its call site; the report names the dependency's type.
            reportIssue(ModelIssue(
                "\(typeName(M.self)).node was used to read a \(typeName(Value.self)) dependency on a \(typeName(M.self)) that is not anchored; its default value was returned.",
                fixes: [
                    "Anchor the root model first (`withAnchor()`, or `andTester()` in tests), and read dependencies from the model's methods or `onActivate`.",
                ]
            ))
            return DependencyValues(hierarchy: nil)
        }
        return DependencyValues(resolvingFor: context)
    }
}
