import Dispatch

/// Keeps compound updates of models that are not anchored yet atomic, without holding a lock over
/// the mutation.
///
/// The mutation of a compound update is arbitrary code (`removeAll(where:)` takes a closure) that
/// may read anchored models, whose locks come before ``unboundLock`` in the lock order; so an
/// unanchored update runs on a copy of the value, outside every lock, and writes the copy back. To
/// keep two threads from losing each other's updates, an update first *claims* its cell: another
/// update or a plain write of that cell from another thread waits until the claim is released.
/// Claims are per cell and re-entrant on the claiming thread; they cost no memory in the cell (the
/// claims table is empty but for updates under way).
///
/// A thread waits for a claim holding whatever it holds. That can only deadlock when two threads
/// update the *same* unanchored model at once, one of them inside a transaction (or observer) of a
/// hierarchy the other's mutation reads: anchor a model before sharing it between threads.
enum UnboundUpdates {
    private struct Claim {
        let owner: UInt
        var depth: Int
        var waiters: [DispatchSemaphore]
    }

    // Safety: guarded by `unboundLock`.
    nonisolated(unsafe) private static var claims: [ObjectIdentifier: Claim] = [:]

    /// Claims `cell` for an update by this thread, waiting while another thread holds it.
    static func claim(_ cell: AnyCell) {
        let id = ObjectIdentifier(cell)
        let thread = currentThreadID()
        while let waiter = unboundLock.withShortLock({ () -> DispatchSemaphore? in
            if var claim = claims[id], claim.owner == thread {
                claim.depth += 1
                claims[id] = claim
                return nil
            }
            if let waiter = waiterIfClaimedByAnotherThread(cell) { return waiter }
            claims[id] = Claim(owner: thread, depth: 1, waiters: [])
            return nil
        }) {
            waiter.wait()
        }
    }

    /// Releases this thread's claim of `cell`, waking the threads waiting for it.
    static func release(_ cell: AnyCell) {
        let id = ObjectIdentifier(cell)
        let waiters: [DispatchSemaphore] = unboundLock.withShortLock {
            guard var claim = claims[id] else { return [] }
            claim.depth -= 1
            guard claim.depth == 0 else {
                claims[id] = claim
                return []
            }
            claims[id] = nil
            return claim.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    /// When another thread holds a claim on `cell`, a semaphore signalled once it is released, which
    /// the caller waits for after unlocking; else nil. The caller holds `unboundLock`.
    static func waiterIfClaimedByAnotherThread(_ cell: AnyCell) -> DispatchSemaphore? {
        let id = ObjectIdentifier(cell)
        guard !claims.isEmpty, var claim = claims[id], claim.owner != currentThreadID() else { return nil }
        let waiter = DispatchSemaphore(value: 0)
        claim.waiters.append(waiter)
        claims[id] = claim
        return waiter
    }

    /// How many threads wait for the claim on `cell` (for ModelKit's tests).
    static func waiterCount(_ cell: AnyCell) -> Int {
        unboundLock.withShortLock { claims[ObjectIdentifier(cell)]?.waiters.count ?? 0 }
    }
}

extension Tracked {
    /// How many threads wait to update or write this property of a model not anchored yet while
    /// another thread updates it (for ModelKit's tests).
    package var threadsWaitingForUnboundUpdate: Int {
        UnboundUpdates.waiterCount(cell)
    }
}
