import ModelKit
import Foundation
import Synchronization

/// How many `Task.yield()`s a bounded wait makes before giving up.
let defaultWaitIterations = 200_000

/// Polls `condition` between `Task.yield()`s until it holds, at most `iterations` times.
///
/// Work that ends asynchronously (a cancelled task unwinding, a stream delivery) is waited for with
/// this instead of sleeping; the bound is an iteration count, never a duration.
@discardableResult
func eventually(iterations: Int = defaultWaitIterations, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<iterations {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// A one-shot gate: `enter()` suspends until `open()` is called (or returns at once if it was).
///
/// Used inside model tasks to hold them at a known point until the test lets them go.
final class Gate: Sendable {
    private enum State {
        case closed([CheckedContinuation<Void, Never>])
        case open
    }

    private let state = Protected(State.closed([]))

    func open() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard case .closed(let waiters) = state else { return [] }
            state = .open
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isOpen: Bool {
        state.withLock { if case .open = $0 { true } else { false } }
    }

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow: Bool = state.withLock { state in
                switch state {
                case .open:
                    return true
                case .closed(var waiters):
                    waiters.append(continuation)
                    state = .closed(waiters)
                    return false
                }
            }
            if resumeNow { continuation.resume() }
        }
    }
}

/// Suspends until the current task is cancelled. Unlike a long sleep, it involves no clock.
func waitForCancellation() async {
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    await withTaskCancellationHandler {
        for await _ in stream {}
    } onCancel: {
        continuation.finish()
    }
}

/// A thread-safe counter.
final class AtomicCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    @discardableResult
    func increment() -> Int {
        count.add(1, ordering: .acquiringAndReleasing).newValue
    }
}

/// A thread-safe box for one value.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Protected<Value>

    init(_ value: Value) {
        storage = Protected(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        storage.withLock { body(&$0) }
    }
}

/// Collects the elements of an async sequence in a background task, for tests that check what a
/// stream delivered without blocking the test on each element.
final class Collector<Element: Sendable>: Sendable {
    private let storage = Locked<[Element]>([])
    private let finished = Locked(false)
    private let task = Locked<Task<Void, Never>?>(nil)

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        let storage = self.storage
        let finished = self.finished
        task.value = Task {
            do {
                for try await element in sequence {
                    storage.withLock { $0.append(element) }
                }
            } catch {}
            finished.value = true
        }
    }

    var elements: [Element] { storage.value }
    var isFinished: Bool { finished.value }

    /// Waits until at least `count` elements arrived.
    func waitForCount(_ count: Int) async -> Bool {
        await eventually { self.elements.count >= count }
    }

    /// Waits until the sequence ended.
    func waitForFinish() async -> Bool {
        await eventually { self.isFinished }
    }

    func cancel() {
        task.value?.cancel()
    }
}

/// Runs `body` on a thread of its own and waits (bounded by yields) for it to return.
///
/// For re-entrancy tests: a body that deadlocks leaves its thread stuck, and the test fails instead
/// of hanging the whole run (or starving the cooperative pool).
func finishesWithoutDeadlock(_ body: @escaping @Sendable () -> Void) async -> Bool {
    let done = Locked(false)
    let thread = Thread {
        body()
        done.value = true
    }
    thread.start()
    return await eventually { done.value }
}
