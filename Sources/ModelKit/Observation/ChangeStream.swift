// Observers of model state: `change(of:)`, `node.observe` and `node.onChange`.
//
// An observer evaluates its expression with the hierarchy locked for the commit that affected it,
// on the committing thread, recording what the expression read so that it can re-register. So each
// committed state is evaluated exactly once, in commit order, and the values are delivered (outside
// the lock) in that order.

/// An observer registered on the properties its expression read.
class PropertyObserver: @unchecked Sendable {
    struct Registration {
        let context: WeakRef<Context>
        let index: Int
    }

    // Safety: `registrations`, `isCancelled` and `owner` are guarded by the lock of `hierarchy`.
    let hierarchy: Hierarchy
    @exclusivity(unchecked) var registrations: [Registration] = []
    @exclusivity(unchecked) var isCancelled = false
    /// The context that owns the observer (it is in that context's `ownedObservers`).
    @exclusivity(unchecked) var owner = WeakRef<Context>(nil)

    init(hierarchy: Hierarchy) {
        self.hierarchy = hierarchy
    }

    /// Re-evaluates after a commit; returns the value to deliver, or nil to deliver nothing.
    /// Caller holds the lock.
    func reevaluate() -> Any? { nil }

    /// Delivers a value produced by `reevaluate`. Called without the lock, in commit order.
    func deliver(_ value: Any) {}

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
            guard let context = registration.context.object else { continue }
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
        registrations = wanted.map { Registration(context: WeakRef($0.context), index: $0.index) }
    }

    /// Whether the registrations are already exactly `reads` (the usual case after a change: an
    /// expression reads the same properties again). Caller holds the lock.
    private final func isRegistered(exactlyOn reads: [AccessRecording.Read]) -> Bool {
        var position = 0
        for read in reads {
            if position < registrations.count, registrations[position].context.object === read.context,
               registrations[position].index == read.index {
                position += 1
                continue
            }
            // A repeated read of a property already matched is fine; anything else is new.
            guard registrations[..<position].contains(where: { $0.context.object === read.context && $0.index == read.index })
            else { return false }
        }
        return position == registrations.count
    }

    /// Unregisters everywhere. Caller holds the lock.
    final func unregisterAll(except _: Never?) {
        isCancelled = true
        for registration in registrations {
            if let context = registration.context.object {
                remove(from: context, index: registration.index)
            }
        }
        registrations = []
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
    final func cancel() {
        hierarchy.lock.withShortLock {
            unregisterAll(except: nil)
            owner.object?.extras?.ownedObservers.removeAll { $0 === self }
            owner = WeakRef(nil)
        }
        finish()
    }
}

/// Observes an expression; delivers its distinct values.
final class ExpressionObserver<Value: Sendable>: PropertyObserver, @unchecked Sendable {
    private let expression: @Sendable () -> Value
    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    private let onValue: @Sendable (_ old: Value?, _ new: Value) -> Void
    private let onFinish: @Sendable () -> Void
    // Safety: guarded by the lock of `hierarchy`.
    @exclusivity(unchecked) private var last: Value?

    init(
        hierarchy: Hierarchy,
        expression: @escaping @Sendable () -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        onValue: @escaping @Sendable (_ old: Value?, _ new: Value) -> Void,
        onFinish: @escaping @Sendable () -> Void
    ) {
        self.expression = expression
        self.isDuplicate = isDuplicate
        self.onValue = onValue
        self.onFinish = onFinish
        super.init(hierarchy: hierarchy)
    }

    /// First evaluation: registers and, if `deliverInitial`, queues the current value ahead of
    /// any later commit. Caller holds the lock.
    func start(deliverInitial: Bool) {
        let (value, reads) = AccessRecording.recording(expression)
        register(on: reads)
        last = value
        if deliverInitial {
            hierarchy.deliveries.append(.property(self, Change(old: nil, new: value)))
        }
    }

    override func reevaluate() -> Any? {
        guard !isCancelled else { return nil }
        let (value, reads) = AccessRecording.recording(expression)
        register(on: reads)
        let previous = last
        if let previous, let isDuplicate, isDuplicate(previous, value) { return nil }
        last = value
        return Change(old: previous, new: value)
    }

    override func deliver(_ value: Any) {
        guard let change = value as? Change else { return }
        onValue(change.old, change.new)
    }

    override func finish() {
        onFinish()
    }

    private struct Change {
        let old: Value?
        let new: Value
    }
}

extension Context {
    /// The model's current instance (a newer instance may have continued it), or `fallback`.
    /// Caller holds the lock.
    final func current<M: Model>(_ fallback: M) -> M {
        model as? M ?? fallback
    }

    /// Starts an observer owned by this context; false if the model is not live.
    final func startObserver<Value: Sendable>(_ observer: ExpressionObserver<Value>, deliverInitial: Bool) -> Bool {
        hierarchy.withSection {
            guard state.isLive else { return false }
            ensuredExtras.ownedObservers.append(observer)
            observer.owner = WeakRef(self)
            observer.start(deliverInitial: deliverInitial)
            return true
        }
    }

    /// A stream of the expression's values, owned by this context.
    final func observationStream<Value: Sendable>(
        initial: Bool,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        _ expression: @escaping @Sendable () -> Value
    ) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        let observer = ExpressionObserver(
            hierarchy: hierarchy,
            expression: expression,
            isDuplicate: isDuplicate,
            onValue: { _, new in continuation.yield(new) },
            onFinish: { continuation.finish() }
        )
        continuation.onTermination = { [weak observer] _ in observer?.cancel() }
        if !startObserver(observer, deliverInitial: initial) {
            continuation.finish()
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
    public func change<Value: Sendable>(
        of keyPath: KeyPath<Self, Value> & Sendable,
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> AsyncStream<Value> {
        guard let context = node.context(for: "change(of:)", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return AsyncStream { $0.finish() }
        }
        return context.observationStream(initial: initial, isDuplicate: nil) {
            context.current(self)[keyPath: keyPath]
        }
    }

    /// The distinct values of `keyPath`. See ``change(of:initial:fileID:filePath:line:column:)``.
    public func change<Value: Sendable & Equatable>(
        of keyPath: KeyPath<Self, Value> & Sendable,
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> AsyncStream<Value> {
        guard let context = node.context(for: "change(of:)", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return AsyncStream { $0.finish() }
        }
        return context.observationStream(initial: initial, isDuplicate: { $0 == $1 }) {
            context.current(self)[keyPath: keyPath]
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
    public func observe<Value: Sendable>(
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> AsyncStream<Value> {
        guard let context = context(for: "observe", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return AsyncStream { $0.finish() }
        }
        return context.observationStream(initial: initial, isDuplicate: nil, expression)
    }

    /// The distinct values of an expression over model state.
    public func observe<Value: Sendable & Equatable>(
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> AsyncStream<Value> {
        guard let context = context(for: "observe", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return AsyncStream { $0.finish() }
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
    /// - Returns: A ``Cancellable`` that stops it.
    @discardableResult
    public func onChange<Value: Sendable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> Cancellable {
        startOnChange(of: keyPath, isDuplicate: nil, location: (fileID, filePath, line, column), perform: perform)
    }

    /// Runs `perform` on each distinct change of an `Equatable` value.
    @discardableResult
    public func onChange<Value: Sendable & Equatable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> Cancellable {
        startOnChange(of: keyPath, isDuplicate: { $0 == $1 }, location: (fileID, filePath, line, column), perform: perform)
    }

    private func startOnChange<Value: Sendable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        location: (StaticString, StaticString, UInt, UInt),
        perform: @escaping @Sendable (Value, Value) -> Void
    ) -> Cancellable {
        guard let context = context(for: "onChange(of:)", fileID: location.0, filePath: location.1, line: location.2, column: location.3),
              let model = context.lock.withShortLock({ context.model as? M })
        else { return Cancellable() }
        let observer = ExpressionObserver(
            hierarchy: context.hierarchy,
            expression: { context.current(model)[keyPath: keyPath] },
            isDuplicate: isDuplicate,
            onValue: { old, new in
                if let old { perform(old, new) }
            },
            onFinish: {}
        )
        guard context.startObserver(observer, deliverInitial: false),
              let workID = context.registerWork(
                isTask: false,
                onCancel: { [weak observer] in observer?.cancel() },
                location: SourceLocation(fileID: location.0, filePath: location.1, line: location.2, column: location.3)
              )
        else {
            observer.cancel()
            return Cancellable()
        }
        return Cancellable(context: context, workID: workID)
    }
}
