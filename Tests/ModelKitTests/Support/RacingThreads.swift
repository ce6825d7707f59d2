import Foundation
import Synchronization

/// How long the racing threads' bodies may take before the wait calls it a deadlock: long, as a
/// stress run on a loaded machine takes seconds, and only a real deadlock reaches it.
let deadlockTimeout: Duration = .seconds(30)

/// Runs each body on a thread of its own, all released at the same moment, and waits (a condition
/// polled under `timeout`, see ``eventually(timeout:_:)``) until every body returned.
///
/// The threads are not from the cooperative pool, so two bodies that block on each other's locks
/// leave only their own threads stuck: the wait gives up and the test fails instead of hanging the
/// run. (On Linux the kernel often detects such a cycle first, and `Mutex` stops the process with
/// "Recursive call to lock Mutex".)
func allFinishWithoutDeadlock(
    timeout: Duration = deadlockTimeout,
    _ bodies: [@Sendable () -> Void]
) async -> Bool {
    let start = StartLine(runners: bodies.count)
    let finished = AtomicCounter()
    for body in bodies {
        let thread = Thread {
            start.arriveAndWait()
            body()
            finished.increment()
        }
        thread.start()
    }
    return await eventually(timeout: timeout) {
        finished.value == bodies.count
    }
}

/// Runs `body` on a thread of its own and waits until it returned: for re-entrancy tests, where a
/// body that deadlocks leaves only its own thread stuck and the test fails instead of hanging the
/// whole run (or starving the cooperative pool).
func finishesWithoutDeadlock(_ body: @escaping @Sendable () -> Void) async -> Bool {
    await allFinishWithoutDeadlock([body])
}

/// Releases a fixed number of threads together: each spins until all have arrived, so that their
/// first steps overlap as much as the machine allows.
private final class StartLine: Sendable {
    private let runners: Int
    private let arrived = Atomic<Int>(0)

    init(runners: Int) {
        self.runners = runners
    }

    func arriveAndWait() {
        arrived.add(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < runners {
            Thread.yield()
        }
    }
}

extension Thread {
    /// Gives the processor to another thread (`sched_yield`): a spin-wait step, not a sleep.
    static func yield() {
        sched_yield()
    }
}
