import ModelKit

// Scripted runs wait for the results of asynchronous work before running the next command. They wait
// on model state, through ModelKit's streams (which see every committed value, in order), or on the
// printed changes when `--print-changes` prints them, never for a fixed time; the timeout only bounds
// a wait whose result never comes.

/// How long a scripted command waits for its result before going on.
package let settleTimeout: Duration = .seconds(10)

extension Model {
    /// Runs `action`, then waits until `condition` holds.
    ///
    /// With a `printout` (`--print-changes`), `condition` is checked just after each printed change,
    /// so the change waited for is printed before the command goes on (see ``ChangePrintout``).
    /// Otherwise it is evaluated from before `action` runs, and again after each change of the model
    /// state it reads; so it may keep state of its own, such as whether loading has started.
    ///
    /// - Returns: False if it still did not hold after `timeout`.
    package func perform(
        _ action: () -> Void,
        thenWaitUntil condition: @escaping @Sendable () -> Bool,
        printout: ChangePrintout?,
        timeout: Duration = settleTimeout,
        isolation: isolated (any Actor)? = #isolation
    ) async -> Bool {
        if let printout {
            return await printout.perform(action, thenWaitUntil: condition, timeout: timeout)
        }
        // Observed from before `action`, so that a state it passes through is not missed.
        let values = node.observe { condition() }
        action()
        return await withTimeout(timeout) { await values.contains(true) }
    }
}

/// Runs `operation`, giving up (false) after `timeout`.
package func withTimeout(_ timeout: Duration, _ operation: @escaping @Sendable () async -> Bool) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask { await operation() }
        group.addTask {
            let clock = ContinuousClock()
            try? await clock.sleep(for: timeout)
            return false
        }
        let result = await group.next() ?? false
        group.cancelAll()
        return result
    }
}
