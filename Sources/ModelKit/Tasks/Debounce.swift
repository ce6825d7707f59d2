extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// Emits an element once `interval` has passed without a newer one; the last element is emitted
    /// when the base sequence ends.
    ///
    /// ```swift
    /// node.forEach(node.observe(initial: false) { standups }
    ///     .debounce(for: .seconds(1), clock: node.continuousClock)) { standups in
    ///     try await node.dataManager.save(standups)
    /// }
    /// ```
    public func debounce(for interval: Duration, clock: any Clock<Duration>) -> DebounceSequence<Self> {
        DebounceSequence(base: self, interval: interval, clock: clock)
    }
}

/// The elements of a sequence, debounced. See ``_Concurrency/AsyncSequence/debounce(for:clock:)``.
public struct DebounceSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element: Sendable {
    public typealias Element = Base.Element

    let base: Base
    let interval: Duration
    let clock: any Clock<Duration>

    public func makeAsyncIterator() -> AsyncThrowingStream<Element, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        let debouncer = Debouncer<Element>(interval: interval, clock: clock, continuation: continuation)
        let base = self.base
        let task = Task(executorPreference: TestingSupport.currentTaskExecutor) {
            do {
                for try await element in base {
                    debouncer.receive(element)
                }
                debouncer.finish(throwing: nil)
            } catch {
                debouncer.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in
            // The pending element first: cancelling the task ends the base loop, whose end would
            // otherwise hand the pending element on as the sequence's last.
            debouncer.cancel()
            task.cancel()
        }
        return stream.makeAsyncIterator()
    }
}

/// The state of one debounced iteration: the pending element and the sleep waiting to emit it.
private final class Debouncer<Element: Sendable>: Sendable {
    private struct State {
        var pending: Element?
        var generation = 0
        var sleeper: Task<Void, Never>?
    }

    private let interval: Duration
    private let clock: any Clock<Duration>
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
    private let state = Protected(State())

    init(interval: Duration, clock: any Clock<Duration>, continuation: AsyncThrowingStream<Element, any Error>.Continuation) {
        self.interval = interval
        self.clock = clock
        self.continuation = continuation
    }

    func receive(_ element: Element) {
        let generation: Int = state.withLock {
            $0.sleeper?.cancel()
            $0.generation += 1
            $0.pending = element
            return $0.generation
        }
        let sleeper = Task(executorPreference: TestingSupport.currentTaskExecutor) { [clock, interval] in
            do {
                try await clock.sleep(for: interval)
            } catch {
                return
            }
            self.emit(generation: generation)
        }
        state.withLock { state in
            if state.generation == generation { state.sleeper = sleeper } else { sleeper.cancel() }
        }
    }

    private func emit(generation: Int) {
        let element: Element? = state.withLock { state in
            guard state.generation == generation else { return nil }
            defer { state.pending = nil }
            return state.pending
        }
        if let element { continuation.yield(element) }
    }

    func finish(throwing error: (any Error)?) {
        let element: Element? = state.withLock { state in
            state.sleeper?.cancel()
            state.generation += 1
            defer { state.pending = nil }
            return state.pending
        }
        if let element { continuation.yield(element) }
        continuation.finish(throwing: error)
    }

    func cancel() {
        state.withLock {
            $0.sleeper?.cancel()
            $0.generation += 1
            $0.pending = nil
        }
    }
}
