import Foundation
import ModelKit
import Synchronization

/// What a tester has seen of its hierarchy and not yet had asserted, plus its settings. It is the
/// hierarchy hook that records changes and events (under the hierarchy lock, append only).
final class TesterState: HierarchyHook, Sendable {
    struct Entry<Record: Sendable>: Sendable {
        let sequence: UInt64
        let record: Record
        /// What the test had to assert when the entry was recorded: an entry is judged by it, so
        /// that `withExhaustivity` applies to what happens inside its closure only.
        let exhaustivity: Exhaustivity
    }

    struct Log: Sendable {
        var changes: [Entry<ChangeRecord>] = []
        var events: [Entry<EventRecord>] = []
        var probes: [TestProbe] = []
        var exhaustivity: Exhaustivity
        var timeout: Duration = .seconds(1)
        var showSkippedAssertions = false
        /// Where `showSkippedAssertions` output goes (standard output; tests capture it).
        var printSkipped: @Sendable (String) -> Void = { print($0) }
        var deferredFailures: [(message: String, location: SourceLocation)] = []
        var isFinished = false
        /// Whether `finish` has begun cancelling work; a cancelled task unwinding before that was
        /// cancelled by the test's own actions, and what it does is recorded.
        var hasCancelledWork = false
    }

    /// The tester whose end is cancelling the work started in `onActivate`, on the task doing it:
    /// what that cancellation runs there (an `onCancel` handler resetting a flag) is the end's doing,
    /// and so is what a task started there does (a final save): it inherits the value. Other tasks
    /// of the hierarchy may write at the same time, on the executor's thread; their writes are the
    /// test's, and are recorded.
    @TaskLocal static var cancellingActivationWork: ObjectIdentifier?

    /// Whether a change or event is the end of the test's own doing, not the test's: made by the
    /// tester cancelling the work started in `onActivate`, or by a task cancelled as the test ends
    /// (a `defer` in it). No assertion could follow it, so it is not recorded. What a task the
    /// test's last action cancelled does as it unwinds, while the end first lets the hierarchy
    /// settle, is the test's doing: recorded.
    private func isMadeByTheEnd(_ log: Log) -> Bool {
        log.isFinished && (Self.cancellingActivationWork == ObjectIdentifier(self)
            || (log.hasCancelledWork && withUnsafeCurrentTask { $0?.isCancelled ?? false }))
    }

    let log: Protected<Log>
    /// Where `andTester` was called: end-of-test failures are reported there.
    let location: SourceLocation
    /// Whether the tester was created inside a Swift Testing test.
    let usesSwiftTesting: Bool
    /// Wakes the assertions waiting on this tester's hierarchy (and only them).
    let activity = Activity()
    /// The test this tester belongs to, for routing reports that do not name a hierarchy.
    let testKey: String
    /// The name of the running Swift Testing test, if any, for output printed outside a failure.
    let testName: String?
    /// Where the hierarchy's tasks run.
    let executor = TesterExecutor()

    init(exhaustivity: Exhaustivity, location: SourceLocation) {
        self.log = Protected(Log(exhaustivity: exhaustivity))
        self.location = location
        self.usesSwiftTesting = FailureRecording.isSwiftTestingRunning
        self.testKey = TestingIssueRouting.testerStarted(at: location)
        self.testName = FailureRecording.currentTestName
    }

    /// The tester's timeout, for waits that do not take one (a `TestClock` settling the hierarchy).
    var timeout: Duration {
        log.withLock { $0.timeout }
    }

    // MARK: HierarchyHook

    func record(_ change: ChangeRecord) {
        // A write made by an assertion's predicate, on the thread evaluating it: the assertion
        // reports it (predicates run many times, so it would be made again on each evaluation).
        if let scope = AssertScope.current.value {
            scope.writes.append(change)
            return
        }
        let sequence = Sequencer.next()
        log.withLock { log in
            if isMadeByTheEnd(log) { return }
            log.changes.append(Entry(sequence: sequence, record: change, exhaustivity: log.exhaustivity))
        }
    }

    func record(_ event: EventRecord) {
        let sequence = Sequencer.next()
        log.withLock { log in
            if isMadeByTheEnd(log) { return }
            log.events.append(Entry(sequence: sequence, record: event, exhaustivity: log.exhaustivity))
        }
    }

    /// Whether what this task does now is the end of the test's own doing (see `isMadeByTheEnd(_:)`):
    /// a probe call it makes needs no assertion.
    var isMadeByTheEnd: Bool {
        log.withLock { isMadeByTheEnd($0) }
    }

    func didCommit() {
        activity.signal()
    }

    func workDidFinish() {
        activity.signal()
    }

    // MARK: Failures

    /// Records a failure now if this task can, else keeps it for the next assert or the end.
    func fail(_ message: String, at location: SourceLocation?) {
        let location = location ?? self.location
        if usesSwiftTesting && !FailureRecording.isSwiftTestingRunning {
            log.withLock { $0.deferredFailures.append((message, location)) }
            activity.signal()
        } else {
            FailureRecording.record(message, at: location)
        }
    }

    func printSkipped(_ text: String) {
        let printer = log.withLock { $0.printSkipped }
        printer(text)
    }

    /// Records a failure and throws an error the test framework does not report again.
    func failAndThrow(_ message: String, at location: SourceLocation) throws -> Never {
        if usesSwiftTesting && !FailureRecording.isSwiftTestingRunning {
            fail(message, at: location)
            throw UnwrapError(description: message)
        }
        try FailureRecording.recordThrowing(message, at: location)
    }

    /// Records the failures kept while no test task was current. Call from the test's task.
    func flushDeferredFailures() {
        let failures = log.withLock { log -> [(message: String, location: SourceLocation)] in
            defer { log.deferredFailures = [] }
            return log.deferredFailures
        }
        for failure in failures {
            FailureRecording.record(failure.message, at: failure.location)
        }
    }
}

/// A process-wide order of recorded changes, events and probe calls.
enum Sequencer {
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UInt64 {
        counter.add(1, ordering: .relaxed).newValue
    }

    static var current: UInt64 {
        counter.load(ordering: .relaxed)
    }
}

/// What the predicate being evaluated on this thread matched besides state: events and probe calls.
final class AssertScope {
    var matchedEvents: Set<UInt64> = []
    var matchedProbeCalls: Set<UInt64> = []
    var matchedProbes: [TestProbe] = []
    /// The probes each predicate asked about, matched or not, for failure messages.
    var consultedProbes: [(predicate: Int, probe: TestProbe)] = []
    /// The predicates that asked whether an event was sent.
    var eventChecks: Set<Int> = []
    /// The read count after each expression of an assertion builder.
    var readMarks: [Int] = []
    /// What the predicates wrote to the models of a tested hierarchy (they must only read).
    var writes: [ChangeRecord] = []

    /// The activities the predicates depended on besides the tester's own (probes they consulted,
    /// other testers' hierarchies they read), each at the generation it had when first consulted.
    var watched: [ObjectIdentifier: Activity.Mark] = [:]

    /// The index of the predicate being evaluated.
    var currentPredicate: Int { readMarks.count }

    /// Notes that the predicate depends on `activity`. Call before reading what it guards, so that
    /// a change made after the read is a signal after the noted generation.
    func watch(_ activity: Activity) {
        let key = ObjectIdentifier(activity)
        if watched[key] == nil { watched[key] = activity.mark }
    }

    static let current = ThreadLocal<AssertScope>()
}

/// The live testers of each running test, so that a `TestClock` advanced by the test can settle the
/// hierarchies it drives before it moves time.
enum LiveTesters {
    private struct WeakState: Sendable {
        weak var state: TesterState?
    }

    private static let byTest = Protected<[String: [WeakState]]>([:])

    static func add(_ state: TesterState) {
        byTest.withLock { $0[state.testKey, default: []].append(WeakState(state: state)) }
    }

    static func remove(_ state: TesterState) {
        byTest.withLock { tests in
            let remaining = (tests[state.testKey] ?? []).filter { $0.state != nil && $0.state !== state }
            tests[state.testKey] = remaining.isEmpty ? nil : remaining
        }
    }

    /// The live testers of the test running on this task.
    static var ofCurrentTest: [TesterState] {
        let key = FailureRecording.currentTestKey
        return byTest.withLock { ($0[key] ?? []).compactMap(\.state) }
    }
}
