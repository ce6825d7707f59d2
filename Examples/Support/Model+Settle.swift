import ModelKit

// Scripted runs wait for the results of asynchronous work before running the next command. They wait
// on model state, through ModelKit's streams (which see every committed value, in order), never for
// a fixed time; the timeout only bounds a wait whose result never comes.

/// How long a scripted command waits for its result before going on.
package let settleTimeout: Duration = .seconds(10)

extension Model {
    /// Waits until `condition` holds. It is evaluated now and again after each change of the model
    /// state it reads.
    ///
    /// - Returns: False if it still did not hold after `timeout`.
    package func waitUntil(timeout: Duration = settleTimeout, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
        let values = node.observe { condition() }
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
