// Observers of model state: `change(of:)`, `node.observe` and `node.onChange`.
//
// An observer evaluates its expression with the hierarchy locked for the commit that affected it,
// on the committing thread, recording what the expression read so that it can re-register. So each
// committed state is evaluated exactly once, in commit order, and the values are delivered (outside
// the lock) in that order.

/// An observer registered on the properties its expression read.
@usableFromInline
class PropertyObserver: @unchecked Sendable {
    /// A property the observer is registered on.
    ///
    /// The context is neither retained nor weak (see "No weak references to contexts" in
    /// Internals.md): registrations are made on live contexts only, and a context's destruct
    /// removes the registrations on it (``dropRegistrations(on:)``), so it is always alive.
    struct Registration {
        // Safety: valid while the registration exists (see above); used under the lock.
        unowned(unsafe) let context: Context
        let index: Int
    }

    // Safety: `registrations`, `isCancelled` and `owner` are guarded by the lock of `hierarchy`.
    let hierarchy: Hierarchy
    @exclusivity(unchecked) var registrations: [Registration] = []
    @exclusivity(unchecked) var isCancelled = false
    /// The context that owns the observer (it is in that context's `ownedObservers`); set to nil
    /// by the owner's destruct, so never dangling.
    @exclusivity(unchecked) unowned(unsafe) var owner: Context?

    init(hierarchy: Hierarchy) {
        self.hierarchy = hierarchy
    }

    /// Re-evaluates after a commit; returns the change to deliver, or nil to deliver nothing.
    /// `forced`: a property it read was touched, so an unchanged value is delivered too. Caller
    /// holds the lock.
    func reevaluate(forced: Bool) -> AnyObject? { nil }

    /// Delivers a change produced by `reevaluate`. Called without the lock, in commit order.
    func deliver(_ change: AnyObject) {}

    /// Ends the observer's stream.
    func finish() {}

    /// Registers on exactly the properties in `reads`. Caller holds the lock.
    final func register(on reads: [AccessRecording.Read]) {
        if isRegistered(exactlyOn: reads) { return }
        // The wanted registrations, in first-read order.
        var wanted: [AccessRecording.Read] = []
        var wantedKeys: Set<AccessRecording.Read.ReadKey> = []
        for read in reads where read.context.hierarchy === hierarchy && read.context.state.isLive {
            if wantedKeys.insert(read.key).inserted { wanted.append(read) }
        }
        var existing: Set<AccessRecording.Read.ReadKey> = []
        for registration in registrations {
            let context = registration.context
            let key = AccessRecording.Read.ReadKey(context: ObjectIdentifier(context), index: registration.index)
            if wantedKeys.contains(key) {
                existing.insert(key)
            } else {
                remove(from: context, index: registration.index)
            }
        }
        for read in wanted where !existing.contains(read.key) {
            read.context.ensuredExtras.propertyObservers[read.index, default: []].append(self)
            read.context.updateObservedMask()
        }
        registrations = wanted.map { Registration(context: $0.context, index: $0.index) }
    }

    /// Whether the registrations are already exactly `reads` (the usual case after a change: an
    /// expression reads the same properties again). Caller holds the lock.
    private final func isRegistered(exactlyOn reads: [AccessRecording.Read]) -> Bool {
        var position = 0
        for read in reads {
            if position < registrations.count, registrations[position].context === read.context,
               registrations[position].index == read.index {
                position += 1
                continue
            }
            // A repeated read of a property already matched is fine; anything else is new.
            guard registrations[..<position].contains(where: { $0.context === read.context && $0.index == read.index })
            else { return false }
        }
        return position == registrations.count
    }

    /// Unregisters everywhere. Caller holds the lock.
    final func unregisterAll(except _: Never?) {
        isCancelled = true
        for registration in registrations {
            remove(from: registration.context, index: registration.index)
        }
        registrations = []
    }

    /// Forgets the registrations on `context`, which is being destructed (its observer lists go
    /// with it). Caller holds the lock.
    final func dropRegistrations(on context: Context) {
        registrations.removeAll { $0.context === context }
    }

    private final func remove(from context: Context, index: Int) {
        guard let extras = context.extras else { return }
        extras.propertyObservers[index]?.removeAll { $0 === self }
        if extras.propertyObservers[index]?.isEmpty == true {
            extras.propertyObservers[index] = nil
        }
        context.updateObservedMask()
    }

    /// Stops observing: unregisters, leaves its owner, and ends the stream.
    @usableFromInline
    final func cancel() {
        hierarchy.lock.withShortLock {
            unregisterAll(except: nil)
            owner?.extras?.ownedObservers.removeAll { $0 === self }
            owner = nil
        }
        finish()
    }
}

/// Observes an expression and delivers what it decides.
///
/// Not generic: what depends on the value's type is in the two closures, built by the (inlinable)
/// public entry points, so that the client specializes them for its types. Unspecialized generic
/// code would look up type metadata (`Optional<Value>`, the change it delivers) at every commit.
@usableFromInline
final class ExpressionObserver: PropertyObserver, @unchecked Sendable {
    /// Evaluates the expression and returns the change to deliver, or nil (the argument: deliver
    /// even an unchanged value). Run under the lock.
    private let evaluate: (Bool) -> AnyObject?
    /// Delivers a change `evaluate` returned. Called without the lock, in commit order.
    private let deliverChange: (AnyObject) -> Void
    private let onFinish: () -> Void
    // Safety: used by `reevaluate`, under the lock of `hierarchy`.
    private let recorder = AccessRecorder(isObserverEvaluation: true)

    @usableFromInline
    init(
        hierarchy: Hierarchy,
        evaluate: @escaping (Bool) -> AnyObject?,
        deliver: @escaping (AnyObject) -> Void,
        onFinish: @escaping () -> Void
    ) {
        self.evaluate = evaluate
        self.deliverChange = deliver
        self.onFinish = onFinish
        super.init(hierarchy: hierarchy)
    }

    /// First evaluation: registers and, if `deliverInitial`, queues the current value ahead of
    /// any later commit. Caller holds the lock.
    func start(deliverInitial: Bool) {
        let change = evaluateRecording(forced: false)
        if deliverInitial, let change {
            hierarchy.deliveries.append(.property(self, change))
        }
    }

    override func reevaluate(forced: Bool) -> AnyObject? {
        guard !isCancelled else { return nil }
        return evaluateRecording(forced: forced)
    }

    private func evaluateRecording(forced: Bool) -> AnyObject? {
        recorder.reads.removeAll(keepingCapacity: true)
        let change = AccessRecording.recording(into: recorder) { evaluate(forced) }
        register(on: recorder.reads)
        return change
    }

    override func deliver(_ change: AnyObject) {
        deliverChange(change)
    }

    override func finish() {
        onFinish()
    }
}

/// The last value an observer saw, and how it tells a new value from it.
@usableFromInline
final class ObservedValue<Value>: @unchecked Sendable {
    // Safety: `last` is read and written by the observer's evaluations, under the hierarchy lock.
    @usableFromInline @exclusivity(unchecked) var last: Value?
    @usableFromInline let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    @inlinable
    init(isDuplicate: (@Sendable (Value, Value) -> Bool)?) {
        self.isDuplicate = isDuplicate
    }

    /// The change to `value`, or nil when it is a duplicate of the last value (unless `forced`: the
    /// property was touched).
    @inlinable
    func update(_ value: Value, forced: Bool) -> ObservedChange<Value>? {
        let old = last
        if let old, let isDuplicate, !forced, isDuplicate(old, value) { return nil }
        last = value
        return ObservedChange(old: old, new: value)
    }
}

/// A change an observer delivers.
@usableFromInline
final class ObservedChange<Value> {
    // No `Optional<Value>` field: the class's deinit is not specialized, and destroying an optional
    // of a generic type would look up its metadata at every change.
    @usableFromInline let oldOrNew: Value
    @usableFromInline let hasOld: Bool
    @usableFromInline let new: Value

    @inlinable
    init(old: Value?, new: Value) {
        if let old {
            oldOrNew = old
            hasOld = true
        } else {
            oldOrNew = new
            hasOld = false
        }
        self.new = new
    }

    /// The value before the change; nil for an observer's first value.
    @inlinable
    var old: Value? { hasOld ? oldOrNew : nil }

    /// The change an observer's `evaluate` returned (always of this type).
    @inlinable
    static func from(_ object: AnyObject) -> ObservedChange<Value> {
        unsafeDowncast(object, to: ObservedChange<Value>.self)
    }
}

extension Context {
    /// `keyPath` of the model's current instance: a newer instance may have continued the model,
    /// but most models never are, and then `fallback` is current and is read without a copy.
    /// Caller holds the lock.
    @inlinable
    final func read<M: Model, Value>(_ keyPath: KeyPath<M, Value>, of fallback: M) -> Value {
        replacedInstances == 0 ? fallback[keyPath: keyPath] : currentModel(fallback)[keyPath: keyPath]
    }

    /// The model's current instance, or `fallback`. Caller holds the lock.
    @usableFromInline
    final func currentModel<M: Model>(_ fallback: M) -> M {
        model as? M ?? fallback
    }

    /// Starts an observer owned by this context; false if the model is not live.
    @usableFromInline
    final func startObserver(_ observer: ExpressionObserver, deliverInitial: Bool) -> Bool {
        hierarchy.withSection {
            guard state.isLive else { return false }
            ensuredExtras.ownedObservers.append(observer)
            observer.owner = self
            observer.start(deliverInitial: deliverInitial)
            return true
        }
    }

    /// A stream of the expression's values, owned by this context.
    @inlinable
    final func observationStream<Value: Sendable>(
        initial: Bool,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        _ expression: @escaping @Sendable () -> Value
    ) -> ModelStream<Value> {
        let (stream, storage) = ModelStream<Value>.make()
        let value = ObservedValue<Value>(isDuplicate: isDuplicate)
        let observer = ExpressionObserver(
            hierarchy: hierarchy,
            evaluate: { value.update(expression(), forced: $0) },
            deliver: { storage.yield(ObservedChange<Value>.from($0).new) },
            onFinish: { storage.finish() }
        )
        // A strong capture: the cycle through the storage ends when the stream terminates, which
        // it does when it is dropped, when its consumer is cancelled, or when the model's teardown
        // finishes it.
        storage.onTermination { observer.cancel() }
        if !startObserver(observer, deliverInitial: initial) {
            storage.finish()
        }
        return stream
    }
}

extension Model {
    /// The values of `keyPath`: the current value first (unless `initial` is false), then each new
    /// value, in order.
    ///
    /// ```swift
    /// node.forEach(change(of: \.count)) { count in
    ///     print("count is now", count)
    /// }
    /// ```
    ///
    /// The stream listens from the moment it is created and ends when the model is removed.
    /// For `Equatable` values only distinct values are delivered; otherwise every write is.
    @inlinable
    public func change<Value: Sendable>(
        of keyPath: KeyPath<Self, Value> & Sendable,
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<Value> {
        guard let context = node.context(for: "change(of:)", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return .finished()
        }
        return context.observationStream(initial: initial, isDuplicate: nil) {
            context.read(keyPath, of: self)
        }
    }

    /// The distinct values of `keyPath`. See ``change(of:initial:fileID:filePath:line:column:)``.
    @inlinable
    public func change<Value: Sendable & Equatable>(
        of keyPath: KeyPath<Self, Value> & Sendable,
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<Value> {
        guard let context = node.context(for: "change(of:)", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return .finished()
        }
        return context.observationStream(initial: initial, isDuplicate: { $0 == $1 }) {
            context.read(keyPath, of: self)
        }
    }
}

extension ModelNode {
    /// The values of an expression over model state: re-evaluated whenever something it read changes.
    ///
    /// ```swift
    /// node.forEach(node.observe(initial: false) { standupsList.standupDetails.map(\.standup) }) { standups in
    ///     try await node.dataManager.save(standups)
    /// }
    /// ```
    ///
    /// - Note: The expression runs while the hierarchy is locked for the commit it observes. It should
    ///   only read models of this hierarchy.
    @inlinable
    public func observe<Value: Sendable>(
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> ModelStream<Value> {
        guard let context = context(for: "observe", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return .finished()
        }
        return context.observationStream(initial: initial, isDuplicate: nil, expression)
    }

    /// The distinct values of an expression over model state.
    @inlinable
    public func observe<Value: Sendable & Equatable>(
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> ModelStream<Value> {
        guard let context = context(for: "observe", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return .finished()
        }
        return context.observationStream(initial: initial, isDuplicate: { $0 == $1 }, expression)
    }

    /// Runs `perform` with the old and new value on each change of `keyPath`, in order, while the
    /// model is anchored.
    ///
    /// ```swift
    /// func onActivate() {
    ///     node.onChange(of: \.count) { old, new in
    ///         history.append("\(old) → \(new)")
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - initial: Also run `perform` once now, with the current value as both old and new.
    /// - Returns: A ``Cancellable`` that stops it.
    @inlinable @discardableResult
    public func onChange<Value: Sendable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        initial: Bool = false,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> Cancellable {
        startOnChange(
            of: keyPath, initial: initial, isDuplicate: nil,
            fileID: fileID, filePath: filePath, line: line, column: column, perform: perform
        )
    }

    /// Runs `perform` on each distinct change of an `Equatable` value.
    @inlinable @discardableResult
    public func onChange<Value: Sendable & Equatable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        initial: Bool = false,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> Cancellable {
        startOnChange(
            of: keyPath, initial: initial, isDuplicate: { $0 == $1 },
            fileID: fileID, filePath: filePath, line: line, column: column, perform: perform
        )
    }

    /// Runs `perform` on each distinct change of the value of an expression over model state, such
    /// as a value derived from several properties.
    ///
    /// The expression is re-evaluated when something it read changes; `perform` runs (in order,
    /// after the commit, like any `onChange`) only when its value differs from the last one.
    ///
    /// ```swift
    /// func onActivate() {
    ///     node.onChange(of: title.isEmpty, initial: true) { _, isEmpty in
    ///         canSave = !isEmpty
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - expression: Reads model state. It runs while the hierarchy is locked for the commit it
    ///     observes, so it should only read models of this hierarchy.
    ///   - initial: Also run `perform` once now, with the current value as both old and new.
    /// - Returns: A ``Cancellable`` that stops it.
    @inlinable @discardableResult
    public func onChange<Value: Sendable & Equatable>(
        of expression: @autoclosure @escaping @Sendable () -> Value,
        initial: Bool = false,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> Cancellable {
        guard let context = context(for: "onChange(of:)", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return Cancellable() }
        let value = ObservedValue<Value>(isDuplicate: { $0 == $1 })
        let observer = ExpressionObserver(
            hierarchy: context.hierarchy,
            evaluate: { value.update(expression(), forced: $0) },
            deliver: ObservedChange<Value>.onChangeDelivery(initial: initial, perform),
            onFinish: {}
        )
        return context.startOnChange(
            observer, initial: initial, fileID: fileID, filePath: filePath, line: line, column: column
        )
    }

    @inlinable
    func startOnChange<Value: Sendable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        initial: Bool,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt,
        perform: @escaping @Sendable (Value, Value) -> Void
    ) -> Cancellable {
        guard let context = context(for: "onChange(of:)", fileID: fileID, filePath: filePath, line: line, column: column),
              let model = context.liveModel(M.self)
        else { return Cancellable() }
        let value = ObservedValue<Value>(isDuplicate: isDuplicate)
        let observer = ExpressionObserver(
            hierarchy: context.hierarchy,
            evaluate: { value.update(context.read(keyPath, of: model), forced: $0) },
            deliver: ObservedChange<Value>.onChangeDelivery(initial: initial, perform),
            onFinish: {}
        )
        return context.startOnChange(
            observer, initial: initial, fileID: fileID, filePath: filePath, line: line, column: column
        )
    }
}

extension ObservedChange {
    /// How an `onChange` observer delivers: `perform(old, new)` for each change, and for the first
    /// value (delivered only with `initial`) `perform(value, value)`.
    @inlinable
    static func onChangeDelivery(
        initial: Bool, _ perform: @escaping @Sendable (Value, Value) -> Void
    ) -> (AnyObject) -> Void {
        { object in
            let change = ObservedChange<Value>.from(object)
            if let old = change.old {
                perform(old, change.new)
            } else if initial {
                perform(change.new, change.new)
            }
        }
    }
}

extension Context {
    /// The model, if it is an `M` (read under the lock).
    @usableFromInline
    final func liveModel<M: Model>(_: M.Type) -> M? {
        lock.withShortLock { model as? M }
    }

    /// Starts an `onChange` observer as work of this model.
    @usableFromInline
    final func startOnChange(
        _ observer: ExpressionObserver, initial: Bool,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) -> Cancellable {
        guard startObserver(observer, deliverInitial: initial),
              let workID = registerWork(
                isTask: false,
                onCancel: { observer.cancel() },
                location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
              )
        else {
            observer.cancel()
            return Cancellable()
        }
        return Cancellable(context: self, workID: workID)
    }
}
