import Foundation
import ModelKit

/// Drives a model in a test and checks, exhaustively, that everything it did was expected.
///
/// Create one with ``ModelKit/Model/andTester(exhaustivity:fileID:filePath:line:column:_:)``. Act on
/// the model, then ``assert(timeout:fileID:filePath:line:column:isolation:_:)`` what must follow:
/// assertions wait (up to ``timeout``) until their predicates hold, woken by the model's own writes,
/// events and probe calls. After each successful assertion, and at the end of the test, every state
/// change, event and probe call not asserted yet is a failure, shown as a diff.
///
/// ```swift
/// @Test func incrementing() async {
///     let (model, tester) = CountModel().andTester()
///     model.incrementTapped()
///     await tester.assert(model.count == 1)
/// }
/// ```
///
/// Dependencies use their test values: `uuid` counts up from `UUID(0)`, `date` is fixed,
/// `continuousClock` is an `ImmediateClock`; a dependency without a `testValue` must be overridden.
///
/// - Note: Works in Swift Testing `@Test` functions and in XCTest methods; failures go to the
///   framework running the test. See `Documentation/Testing.md`.
public final class Tester: Sendable {
    let state: TesterState
    let hierarchy: Hierarchy
    /// The anchored root, kept so that the hierarchy lives as long as the tester.
    private let root: any Model

    init(state: TesterState, root: any Model, hierarchy: Hierarchy) {
        self.state = state
        self.root = root
        self.hierarchy = hierarchy
    }

    deinit {
        finishWithoutWaiting()
    }

    /// What the test must assert; `.full` by default.
    public var exhaustivity: Exhaustivity {
        get { state.log.withLock { $0.exhaustivity } }
        set { state.log.withLock { $0.exhaustivity = newValue } }
    }

    /// How long an assertion waits for its predicates; 1 second by default.
    public var timeout: Duration {
        get { state.log.withLock { $0.timeout } }
        set { state.log.withLock { $0.timeout = newValue } }
    }

    /// When true, what relaxed exhaustivity lets pass is printed, so you can see what a test skips.
    public var showSkippedAssertions: Bool {
        get { state.log.withLock { $0.showSkippedAssertions } }
        set { state.log.withLock { $0.showSkippedAssertions = newValue } }
    }

    /// Adds a probe to exhaustivity: each of its calls must then be asserted.
    ///
    /// A probe belongs to one tester at a time: installing it in a second tester whose test has not
    /// finished fails the test at this call, and leaves the probe with the first.
    public func install(
        _ probe: TestProbe,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        if state.log.withLock({ $0.isFinished }) {
            let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
            state.fail(FailureMessages.afterTheEnd(call: "install"), at: location)
            return
        }
        let other: TesterState? = probe.installation.withLock { installation in
            if let owner = installation.tester, owner !== state, !owner.log.withLock({ $0.isFinished }) {
                return owner
            }
            installation.tester = state
            return nil
        }
        if let other {
            let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
            state.fail(FailureMessages.probeInstalledTwice(probe, firstTesterAt: other.location), at: location)
            return
        }
        state.log.withLock { log in
            if !log.probes.contains(where: { $0 === probe }) { log.probes.append(probe) }
        }
    }

    /// Ends the test: lets what the last action set off run, cancels the work the models started
    /// in `onActivate`, waits (up to the timeout) for their other tasks, reports each task still
    /// running where it was started, checks exhaustivity, and tears the hierarchy down.
    ///
    /// Call it at the end of every test that starts tasks. Releasing the tester without it does the
    /// same without waiting: it runs the hierarchy's ready jobs, then reports every task still
    /// running (one waiting for a clock, a dependency or an actor), since waiting there would block
    /// the releasing thread.
    public func finish(isolation: isolated (any Actor)? = #isolation) async {
        guard beginFinishing() else { return }
        state.flushDeferredFailures()
        let deadline = ContinuousClock.now + timeout
        // What the test's last action set off (a listener's reaction, queued behind it) runs
        // before the `onActivate` work is cancelled: it is recorded, and reported when not
        // asserted, on every run rather than when the executor's thread happened to get to it.
        // Bounded by a number of jobs: a timer on the default immediate clock never waits.
        await state.executor.settle(until: deadline, jobs: Self.jobsBeforeTheEnd)
        cancelActivationWork()
        // Cancelled `onActivate` work still unwinding is not waited for (nor reported).
        while tasksToReport().isEmpty == false && ContinuousClock.now < deadline {
            let mark = state.activity.mark
            await state.executor.settle(until: deadline)
            guard !tasksToReport().isEmpty else { break }
            await Activity.wait(for: [mark], until: deadline)
        }
        completeFinishing(testerReleased: false)
    }

    /// Returns once the hierarchy is quiescent: no job of its tasks is queued or running on the
    /// tester's executor, so every task it started is suspended, waiting for something from outside
    /// (a clock, a dependency, a stream with nothing buffered), or has ended.
    ///
    /// Under a tester the model's tasks (`task`, `forEach`, and the tasks they start) run on an
    /// executor the tester owns, so this is exact rather than timed. Work that has hopped to another
    /// executor (the main actor, an actor with an executor of its own) is outside the hierarchy until
    /// it comes back: `assert` waits for it through its wake-ups. A default `actor`'s methods run on
    /// the executor the calling task prefers, so they are settled too. It asserts nothing.
    ///
    /// ```swift
    /// model.refreshTapped()          // starts a task that loads and sorts
    /// await tester.settle()          // the task ran until it waited for the clock
    /// await clock.advance(by: .seconds(1))
    /// ```
    ///
    /// - Parameter timeout: The longest it waits (default ``timeout``), for a task that never stops
    ///   running (a loop of `Task.yield()`).
    public func settle(timeout: Duration? = nil, isolation: isolated (any Actor)? = #isolation) async {
        guard !state.executor.isIdle else { return }
        await state.executor.settle(until: ContinuousClock.now + (timeout ?? self.timeout))
    }

    /// The end of a tester still alive when its XCTest test case tears down without having called
    /// `finish()` (kept in a property of the test case): the same as its release.
    func endAtTestCaseTeardown() {
        finishWithoutWaiting()
    }

    /// The end used when the tester is released without `finish()`. It never waits for a task
    /// suspended on something outside the hierarchy: it runs the jobs that are ready (the cancelled
    /// `onActivate` work unwinding, a task started by the test's last action), waiting only for a
    /// job the executor's thread is running, then reports what still runs.
    private func finishWithoutWaiting() {
        guard beginFinishing() else { return }
        state.flushDeferredFailures()
        let deadline = ContinuousClock.now + timeout
        state.executor.settleNow(until: deadline, jobs: Self.jobsBeforeTheEnd)
        cancelActivationWork()
        state.executor.settleNow(until: deadline)
        completeFinishing(testerReleased: true)
    }

    /// How many jobs the end of a test runs before it cancels the `onActivate` work: enough for
    /// reactions to the last action (a job or a few each), few enough that a timer on the
    /// immediate clock or a feedback loop does not hold the test's thread.
    private static let jobsBeforeTheEnd = 100

    private func beginFinishing() -> Bool {
        state.log.withLock { log in
            guard !log.isFinished else { return false }
            log.isFinished = true
            return true
        }
    }

    private func cancelActivationWork() {
        state.log.withLock { $0.hasCancelledWork = true }
        TesterState.$cancellingActivationWork.withValue(ObjectIdentifier(state)) {
            hierarchy.cancel(hierarchy.runningWork().filter(\.fromActivation))
        }
    }

    /// The tasks still running, cancelled ones that have not ended included.
    private func runningTasks() -> [RunningWork] {
        hierarchy.runningWork().filter(\.isTask)
    }

    /// The running tasks the end of the test waits for and reports: all but the `onActivate` work
    /// of the live models, which it cancelled rather than awaited (still unwinding is not a
    /// failure). The `onActivate` work of a model removed during the test was cancelled by the
    /// removal, long enough ago to have ended: one still running ignores cancellation.
    private func tasksToReport() -> [RunningWork] {
        runningTasks().filter(Self.isReported)
    }

    private static func isReported(_ task: RunningWork) -> Bool {
        !task.fromActivation || task.ofRemovedModel
    }

    private func completeFinishing(testerReleased: Bool) {
        let tasks = runningTasks()
        let reported = tasks.filter(Self.isReported)
        let exhaustivity = self.exhaustivity
        if exhaustivity.contains(.tasks) {
            let clockSleep = reported.isEmpty ? nil : state.executor.earliestClockSleep()
            for task in reported {
                state.fail(
                    FailureMessages.taskStillRunning(task, testerReleased: testerReleased, clockSleep: clockSleep),
                    at: task.location
                )
            }
        } else if showSkippedAssertions, !reported.isEmpty {
            state.printSkipped(FailureMessages.skipped(
                "Tasks still running", reported.map { "\($0.modelType) task\($0.name.map { " \"\($0)\"" } ?? "") started at \($0.location)" },
                test: state.testName, at: state.location
            ))
        }
        hierarchy.cancel(tasks)
        checkExhaustivity(upTo: .max, at: state.location)
        state.flushDeferredFailures()
        hierarchy.tearDownNow()
        state.executor.close()
        LiveTesters.remove(state)
        TestingIssueRouting.testerEnded(state.testKey)
    }
}

extension Model {
    /// Anchors the model for a test and returns it with its ``Tester``.
    ///
    /// ```swift
    /// let (appModel, tester) = AppModel().andTester {
    ///     $0.factClient.fetch = { "\($0) is a good number." }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - exhaustivity: What the test must assert (`.full` by default).
    ///   - dependencies: Overrides of the test's dependencies.
    /// - Returns: The anchored model and its tester. End-of-test failures are reported at this call.
    public func andTester(
        exhaustivity: Exhaustivity = .full,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ dependencies: (inout DependencyValues) -> Void = { _ in }
    ) -> (Self, Tester) {
        TestingIssueRouting.install()
        let state = TesterState(
            exhaustivity: exhaustivity,
            location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        )
        let support = TestingSupport(
            owner: state,
            taskExecutor: state.executor,
            reportIssue: { [weak state] issue in
                guard let state else { return false }
                state.fail(issue.message, at: issue.location)
                return true
            },
            workDidFinish: { [weak state] in state?.workDidFinish() }
        )
        LiveTesters.add(state)
        if let refusal = testerRefusal() {
            state.fail(refusal.message, at: state.location)
            return (self, Tester(placeholderFor: state, support: support))
        }
        let model = anchored(testing: support, hooks: [state], dependencies)
        // Not anchored after all (its storage shared with another instance): anchoring reported why.
        guard let hierarchy = model.hierarchy else {
            return (model, Tester(placeholderFor: state, support: support))
        }
        let tester = Tester(state: state, root: model, hierarchy: hierarchy)
        XCTestCaseTracking.add(tester)
        return (model, tester)
    }

    /// Why this model cannot be the root of a tester, if it cannot: it must be a new instance.
    private func testerRefusal() -> ModelIssue? {
        let name = typeName(Self.self)
        let state = lifetime
        guard state != .initial else { return nil }
        return ModelIssue(
            "andTester() was called on \(state.describing(name)); a tester anchors the model it drives. The model was left as it is, and the tester drives nothing.",
            fixes: ["Call andTester() on a new instance: `let (model, tester) = \(name)(…).andTester()`."]
        )
    }
}

extension Tester {
    /// A tester of a placeholder root, for a model that could not be anchored.
    convenience init(placeholderFor state: TesterState, support: TestingSupport) {
        let root = PlaceholderRoot().anchored(testing: support, hooks: [state], { _ in })
        self.init(state: state, root: root, hierarchy: root.hierarchy!)
    }
}
