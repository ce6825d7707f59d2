import ModelKit
import Foundation
import Synchronization

/// How long a wait for a condition goes on before it gives up. The conditions waited for hold
/// within milliseconds; the bound only stops a test whose condition will never hold, so it is
/// generous for a loaded machine: under Address Sanitizer the whole test process was seen to stall
/// for 5.2–5.6 s while the suites start, which a 5 s bound did not survive.
let defaultWaitTimeout: Duration = .seconds(20)

/// Polls `condition` between `Task.yield()`s until it holds, or until `timeout` has passed on the
/// continuous clock; returns whether it held.
///
/// Work that ends asynchronously (a cancelled task unwinding, a stream delivery) is waited for with
/// this instead of sleeping: the wait ends as soon as the condition holds. It only proves that
/// something *does* happen. To show that something does not, wait for a later event that would
/// have come after it (a marker logged by the same task or stream, a sleeper still asleep), then
/// check at once.
@discardableResult
func eventually(timeout: Duration = defaultWaitTimeout, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while !condition() {
        if ContinuousClock.now >= deadline { return condition() }
        await Task.yield()
    }
    return true
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
///
/// `waiting` runs once the cancellation handler is installed; `onCancel` runs when the task is
/// cancelled, on the cancelling thread, before `Task.cancel()` returns (or at once, before
/// `waiting`, if the task was cancelled earlier). So once a test has seen what `waiting` did, it can
/// tell right after a cancelling call whether that call reached the task, without waiting.
func waitForCancellation(waiting: () -> Void = {}, onCancel: @escaping @Sendable () -> Void = {}) async {
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    await withTaskCancellationHandler {
        waiting()
        for await _ in stream {}
    } onCancel: {
        onCancel()
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
///
/// Its state is behind ModelKit's `Protected` lock (through ``Locked``), whose hand-overs Thread
/// Sanitizer sees, so it also serves the tests that run under TSan.
final class Collector<Element: Sendable>: Sendable {
    private let state = Locked<(elements: [Element], finished: Bool)>(([], false))
    private let task = Locked<Task<Void, Never>?>(nil)

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        let state = self.state
        task.value = Task {
            do {
                for try await element in sequence {
                    state.withLock { $0.elements.append(element) }
                }
            } catch {}
            state.withLock { $0.finished = true }
        }
    }

    var elements: [Element] { state.value.elements }
    var isFinished: Bool { state.value.finished }

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
