import Foundation
import Synchronization

/// Runs each body on a thread of its own, all released at the same moment, and waits (bounded by
/// yields, never by time) until every body returned.
///
/// The threads are not from the cooperative pool, so two bodies that block on each other's locks
/// leave only their own threads stuck: the wait gives up and the test fails instead of hanging the
/// run. (On Linux the kernel often detects such a cycle first, and `Mutex` stops the process with
/// "Recursive call to lock Mutex".)
func allFinishWithoutDeadlock(
    iterations: Int = 20 * defaultWaitIterations,
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
    return await eventually(iterations: iterations) {
        finished.value == bodies.count
    }
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
