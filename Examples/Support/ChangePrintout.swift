import Synchronization

/// The printer of `--print-changes`: prints each state change, and lets a scripted command wait
/// until the change it waits for has been printed.
///
/// ModelKit calls the printer on the writing thread once the write is committed, after the streams
/// that observe the models were served. So a command that waits on the models alone can see a
/// task's change a moment before that change is printed, and print the screen and the next prompt
/// first. Waiting through the printout, a command goes on only once the change it waited for is
/// printed:
///
/// ```swift
/// let printout = ChangePrintout()
/// let app = AppModel()._withPrintChanges { printout.print($0) }.withAnchor()
/// let arrived = await printout.perform({ counter.factButtonTapped() }) { app.factPrompt != nil }
/// ```
package final class ChangePrintout: Sendable {
    private struct Waiter: Sendable {
        let condition: @Sendable () -> Bool
        let continuation: AsyncStream<Void>.Continuation
    }

    private struct State {
        var nextID = 0
        var waiters: [Int: Waiter] = [:]
    }

    private let state = Mutex(State())
    private let write: @Sendable (String) -> Void

    /// - Parameter write: Where each change goes; standard output by default.
    package init(write: @escaping @Sendable (String) -> Void = { Swift.print($0) }) {
        self.write = write
    }

    /// Prints `change`, then wakes the waiters whose condition now holds.
    ///
    /// The conditions are checked here, on the writing thread, right after the print: this thread
    /// cannot have committed a later change yet, so a waiter woken here has seen its change printed.
    package func print(_ change: String) {
        write(change)
        let waiters = state.withLock { Array($0.waiters) }
        for (id, waiter) in waiters where waiter.condition() {
            guard state.withLock({ $0.waiters.removeValue(forKey: id) }) != nil else { continue }
            waiter.continuation.yield()
            waiter.continuation.finish()
        }
    }

    /// Runs `action`, then waits until `condition` holds just after a change is printed.
    ///
    /// `condition` is checked only after printed changes, from the moment before `action` runs: it
    /// must be something `action` (or the work it starts) makes true by changing the models.
    ///
    /// - Returns: False if no printed change made it hold within `timeout`.
    package func perform(
        _ action: () -> Void,
        thenWaitUntil condition: @escaping @Sendable () -> Bool,
        timeout: Duration = settleTimeout,
        isolation: isolated (any Actor)? = #isolation
    ) async -> Bool {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let id = state.withLock { state in
            state.nextID += 1
            state.waiters[state.nextID] = Waiter(condition: condition, continuation: continuation)
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.waiters.removeValue(forKey: id) }
        }
        action()
        return await withTimeout(timeout) {
            for await _ in stream { return true }
            return false
        }
    }
}
