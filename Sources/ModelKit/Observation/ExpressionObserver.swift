/// Observes an expression and delivers what it decides.
///
/// Not generic: what depends on the value's type is in the two closures, built by the (inlinable)
/// public entry points, so that the client specializes them for its types. Unspecialized generic
/// code would look up type metadata (`Optional<Value>`, the change it delivers) at every commit.
@usableFromInline
final class ExpressionObserver: PropertyObserver, @unchecked Sendable {
    /// Evaluates the expression and returns the change to deliver, or nil (the argument: deliver
    /// even an unchanged value). Run under the lock.
    private let evaluate: (Bool) -> ObservedPayload?
    /// Delivers a change `evaluate` returned. Called without the lock, in commit order.
    private let deliverChange: (ObservedPayload) -> Void
    private let onFinish: () -> Void
    // Safety: used by `reevaluate`, under the lock of `hierarchy`.
    private let recorder = AccessRecorder(isObserverEvaluation: true)

    @usableFromInline
    init(
        hierarchy: Hierarchy,
        evaluate: @escaping (Bool) -> ObservedPayload?,
        deliver: @escaping (ObservedPayload) -> Void,
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

    override func reevaluateForDelivery(forced: Bool) -> ObservedPayload? {
        guard !isCancelled else { return nil }
        return evaluateRecording(forced: forced)
    }

    private func evaluateRecording(forced: Bool) -> ObservedPayload? {
        // Emptied one by one: the usual expression read one property, and `removeAll` destroys
        // through the unspecialized array path.
        while recorder.reads.popLast() != nil {}
        let change = AccessRecording.recording(into: recorder) { evaluate(forced) }
        register(on: recorder.reads)
        return change
    }

    override func deliver(_ change: ObservedPayload) {
        deliverChange(change)
    }

    override func finish() {
        onFinish()
    }
}

extension Context {
    /// `keyPath` of the model's current instance: a newer instance may have continued the model,
    /// but most models never are, and then `fallback` is current and is read without a copy.
    /// Caller holds the lock.
    @inlinable
    final func read<M: Model, Value>(_ keyPath: KeyPath<M, Value>, of fallback: M) -> Value {
        !wasContinued ? fallback[keyPath: keyPath] : currentModel(fallback)[keyPath: keyPath]
    }

    /// The model's current instance, or `fallback`. Caller holds the lock.
    @usableFromInline
    final func currentModel<M: Model>(_ fallback: M) -> M {
        model(as: M.self) ?? fallback
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
            deliver: { storage.yield($0.new(as: Value.self)) },
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
