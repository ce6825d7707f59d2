import Dispatch
import Foundation
import ModelKit

/// Runs the tasks of one tested hierarchy, one job at a time, so that the tester knows when none of
/// them can run: the hierarchy's tasks prefer this executor (`Task(executorPreference:)`), so every
/// job of theirs that is not on another executor (the main actor, an actor with an executor of its
/// own) is queued here, the code of a default actor they call included.
///
/// Jobs run in the order they were enqueued, on the executor's own thread (started with the first
/// job) or, while the test waits for the hierarchy to settle, on the test's thread: ``settle(until:)``
/// runs the queued jobs itself, so that settling does not depend on when the scheduler gives the
/// executor's thread a turn. Either way one job runs at a time.
///
/// "Idle" (no job queued, none running) is exact for the jobs of this executor. A task whose job runs
/// elsewhere (the main actor, an actor with its own executor) or that waits for another thread's
/// continuation is waiting for something outside the hierarchy, and comes back here when it resumes.
///
/// After ``close()`` (the end of the test) the thread stops once the queue is empty, and later jobs
/// (a cancelled task unwinding after the tester ended) go to the global concurrent executor.
final class TesterExecutor: TaskExecutor, Sendable {
    private enum ThreadState {
        case notStarted
        case running
        case waiting
        case stopped
    }

    private struct State {
        var jobs: [UnownedJob] = []
        var head = 0
        var isRunning = false
        var thread = ThreadState.notStarted
        var isClosed = false
        var nextWaiter = 0
        var idleWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Threads in ``settleNow(until:)`` waiting for the job another runner holds.
        var jobEndWaiters: [DispatchSemaphore] = []
        /// How many jobs runners took, for settling that stops after a number of jobs.
        var jobsTaken = 0

        var isIdle: Bool { head == jobs.count && !isRunning }

        /// Takes the next job for a runner if no other runner holds the executor and fewer than
        /// `limit` jobs were taken since the executor started.
        mutating func takeJob(limit: Int = .max) -> UnownedJob? {
            guard !isRunning, head < jobs.count, jobsTaken < limit else { return nil }
            let job = jobs[head]
            head += 1
            jobsTaken += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            isRunning = true
            return job
        }
    }

    /// The executor whose job this thread is running, if any (a `TestClock` notes who sleeps on it).
    static let current = ThreadLocal<TesterExecutor>()

    private let state = Protected(State())
    /// The test clocks this hierarchy's tasks slept on, to say so when a task is still running at the
    /// end of the test. Apart from `state`: never taken with it.
    private let clocks = Protected<[ObjectIdentifier: WeakTestClock]>([:])
    /// Wakes the executor's thread; signalled only when it waits, so each signal matches one wait.
    private let wakeUp = DispatchSemaphore(value: 0)

    // MARK: TaskExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        enum Next { case nothing, wakeThread, startThread, forward }
        let next = state.withLock { state -> Next in
            if state.isClosed && state.thread == .stopped && !state.isRunning { return .forward }
            state.jobs.append(unowned)
            switch state.thread {
            case .notStarted:
                state.thread = .running
                return .startThread
            case .waiting where !state.isRunning:
                state.thread = .running
                return .wakeThread
            case .waiting, .running, .stopped:
                return .nothing
            }
        }
        switch next {
        case .nothing: break
        case .wakeThread: wakeUp.signal()
        case .startThread: startThread()
        case .forward: globalConcurrentExecutor.enqueue(ExecutorJob(unowned))
        }
    }

    // MARK: Clocks

    private struct WeakTestClock {
        weak var clock: TestClock?
    }

    /// Notes that a task of this hierarchy sleeps on `clock` (called once per clock).
    func noteSleeping(on clock: TestClock) {
        clocks.withLock { $0[ObjectIdentifier(clock)] = WeakTestClock(clock: clock) }
    }

    /// The earliest sleep of this hierarchy's tasks on a test clock, with that clock's time.
    func earliestClockSleep() -> (deadline: Duration, now: Duration)? {
        let clocks = clocks.withLock { $0.values.compactMap(\.clock) }
        return clocks.compactMap { $0.earliestSleep(of: self) }.min { $0.deadline - $0.now < $1.deadline - $1.now }
    }

    // MARK: Settling

    /// Whether no job is queued or running.
    var isIdle: Bool {
        state.withLock { $0.isIdle }
    }

    /// The `limit` for `takeJob` that lets `jobs` more jobs run from now on.
    private func jobLimit(after jobs: Int?) -> Int {
        guard let jobs else { return .max }
        return state.withLock { $0.jobsTaken } + jobs
    }

    /// Whether no job is queued or running, or the job limit was reached.
    private func isDone(limit: Int) -> Bool {
        state.withLock { $0.isIdle || $0.jobsTaken >= limit }
    }

    /// Runs the queued jobs on the calling thread until none is left or the job limit is reached
    /// (true), or `deadline` passed (false; checked after each job, as one job may run long: a
    /// loop that never waits runs 256 elements per job).
    private func runQueuedJobs(until deadline: ContinuousClock.Instant, limit: Int) -> Bool {
        while let job = state.withLock({ $0.takeJob(limit: limit) }) {
            run(job)
            if ContinuousClock.now >= deadline { return false }
        }
        return true
    }

    /// Returns once no job is queued or running, or at `deadline`, or (when `jobs` is given) once
    /// that many jobs ran. Runs queued jobs on the calling thread while no other runner holds the
    /// executor; otherwise waits for the runner to finish.
    func settle(
        until deadline: ContinuousClock.Instant, jobs: Int? = nil, isolation: isolated (any Actor)? = #isolation
    ) async {
        let limit = jobLimit(after: jobs)
        while true {
            if !runQueuedJobs(until: deadline, limit: limit) { return }
            if isDone(limit: limit) || ContinuousClock.now >= deadline { return }
            await waitUntilIdle(or: deadline)
            if ContinuousClock.now >= deadline { return }
        }
    }

    /// The synchronous ``settle(until:)`` of a released tester: runs the queued jobs on the calling
    /// thread and, when the executor's thread is running one, waits for that job to end (a job runs
    /// until its task suspends, so this wait is as long as one job, like a lock's). Never waits for a
    /// task suspended on something outside the hierarchy. Returns when idle, or at `deadline`.
    func settleNow(until deadline: ContinuousClock.Instant, jobs: Int? = nil) {
        let limit = jobLimit(after: jobs)
        while true {
            if !runQueuedJobs(until: deadline, limit: limit) { return }
            let jobEnded = DispatchSemaphore(value: 0)
            enum Next { case idle, runQueued, waitForJob }
            let next = state.withLock { state -> Next in
                if state.isIdle || state.jobsTaken >= limit { return .idle }
                guard state.isRunning else { return .runQueued }  // queued since the loop above
                state.jobEndWaiters.append(jobEnded)
                return .waitForJob
            }
            if next == .idle || ContinuousClock.now >= deadline { return }
            if next == .runQueued { continue }
            let remaining = ContinuousClock.now.duration(to: deadline)
            let nanoseconds = remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
            if jobEnded.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut { return }
        }
    }

    /// Waits until the running job ends with nothing queued (or the job ends and a queued one is left
    /// for the caller to run), or the deadline.
    private func waitUntilIdle(or deadline: ContinuousClock.Instant, isolation: isolated (any Actor)? = #isolation) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timeout = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.resumeWaiter(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if !state.isRunning { return true }
                state.idleWaiters[id] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timeout.cancel()
    }

    private func resumeWaiter(_ id: Int) {
        state.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
    }

    /// Ends the tester's use of the executor: the thread stops once the queue is empty.
    func close() {
        let wake = state.withLock { state -> Bool in
            state.isClosed = true
            guard state.thread == .waiting else { return false }
            state.thread = .running
            return true
        }
        if wake { wakeUp.signal() }
    }

    // MARK: Running

    /// Runs one job taken with `takeJob()`, then gives the executor back, waking who waits for it.
    private func run(_ job: UnownedJob) {
        TesterExecutor.current.withValue(self) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        let (waiters, wakeThread, orphans, jobEndWaiters) = state.withLock { state in
            state.isRunning = false
            var wakeThread = false
            var orphans: [UnownedJob] = []
            if state.head < state.jobs.count {
                switch state.thread {
                case .waiting:
                    state.thread = .running
                    wakeThread = true
                case .stopped:
                    // Closed and its thread gone: what this job enqueued goes where later jobs go.
                    orphans = Array(state.jobs[state.head...])
                    state.jobs.removeAll()
                    state.head = 0
                case .notStarted, .running:
                    break
                }
            }
            let waiters = Array(state.idleWaiters.values)
            if !waiters.isEmpty { state.idleWaiters = [:] }
            let jobEndWaiters = state.jobEndWaiters
            if !jobEndWaiters.isEmpty { state.jobEndWaiters = [] }
            return (waiters, wakeThread, orphans, jobEndWaiters)
        }
        for waiter in jobEndWaiters { waiter.signal() }
        if wakeThread { wakeUp.signal() }
        for job in orphans { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        for waiter in waiters { waiter.resume() }
    }

    private func startThread() {
        let thread = Thread { [self] in
            while true {
                enum Step { case run(UnownedJob), wait, stop }
                let step = state.withLock { state -> Step in
                    if let job = state.takeJob() { return .run(job) }
                    if state.isClosed && state.head == state.jobs.count && !state.isRunning {
                        state.thread = .stopped
                        return .stop
                    }
                    state.thread = .waiting
                    return .wait
                }
                switch step {
                case .run(let job): run(job)
                case .wait: wakeUp.wait()
                case .stop: return
                }
            }
        }
        thread.name = "ModelKitTesting.TesterExecutor"
        thread.start()
    }
}
