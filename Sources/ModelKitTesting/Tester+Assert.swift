import ModelKit

/// Collects the conditions of ``Tester/assert(timeout:fileID:filePath:line:column:isolation:_:)``:
/// one Boolean expression per line.
///
/// ```swift
/// await tester.assert {
///     row.counter.count == 1
///     onFact.wasCalled(with: 2, "2 is a good number.")
///     detail.didSend(.startMeeting)
/// }
/// ```
@resultBuilder
public enum AssertionBuilder {
    public static func buildExpression(_ condition: Bool) -> [Bool] {
        AssertScope.current.value?.readMarks.append(ModelAccessRecorder.currentReadCount)
        return [condition]
    }

    /// Accepts a check written without parentheses, such as `probe.wasCalled`.
    public static func buildExpression(_ check: () -> Bool) -> [Bool] {
        buildExpression(check())
    }

    public static func buildBlock(_ conditions: [Bool]...) -> [Bool] {
        conditions.flatMap { $0 }
    }

    public static func buildOptional(_ conditions: [Bool]?) -> [Bool] {
        conditions ?? []
    }

    public static func buildEither(first conditions: [Bool]) -> [Bool] {
        conditions
    }

    public static func buildEither(second conditions: [Bool]) -> [Bool] {
        conditions
    }

    public static func buildArray(_ conditions: [[Bool]]) -> [Bool] {
        conditions.flatMap { $0 }
    }
}

/// Thrown by ``Tester/unwrap(_:timeout:fileID:filePath:line:column:isolation:)`` when the value stays nil.
public struct UnwrapError: Error, CustomStringConvertible {
    public let description: String
}

extension Tester {
    /// Waits until every condition holds, then counts what they read as asserted and checks
    /// exhaustivity.
    ///
    /// ```swift
    /// appModel.addButtonTapped()
    /// await tester.assert {
    ///     appModel.counters.count == 1
    ///     appModel.sum == 0
    /// }
    /// ```
    ///
    /// The conditions are re-evaluated on the caller's task each time the model writes, sends an event
    /// or a probe is called, until they hold or `timeout` (default ``timeout``) passes; on timeout
    /// the failure shows which condition was false and the values of the state it read.
    public func assert(
        timeout: Duration? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation,
        @AssertionBuilder _ conditions: () -> [Bool]
    ) async {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        if let failure = await waitFor(conditions, timeout: timeout, location: location, kind: .assert, isolation: isolation) {
            state.fail(failure, at: location)
        }
    }

    /// Waits until `condition` holds. See ``assert(timeout:fileID:filePath:line:column:isolation:_:)``.
    ///
    /// ```swift
    /// await tester.assert(model.count == 1)
    /// ```
    public func assert(
        _ condition: @autoclosure () -> Bool,
        timeout: Duration? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        if let failure = await waitFor({ [condition()] }, timeout: timeout, location: location, kind: .assert, isolation: isolation) {
            state.fail(failure, at: location)
        }
    }

    /// Waits until `value` is not nil and returns it; what it read counts as asserted.
    ///
    /// ```swift
    /// let row = try await tester.unwrap(appModel.counters.first)
    /// try await tester.unwrap(detail.destination?.deleteStandup)()
    /// ```
    ///
    /// - Throws: When the value is still nil after the timeout. The failure is reported once: under
    ///   Swift Testing and XCTest the error thrown is their own "already recorded" error (that of
    ///   `#require` and `XCTUnwrap`); elsewhere it is an ``UnwrapError``.
    public func unwrap<Value>(
        _ value: @autoclosure () -> Value?,
        timeout: Duration? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Value {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        var result: Value?
        let failure = await waitFor({
            result = value()
            return [result != nil]
        }, timeout: timeout, location: location, kind: .unwrap, isolation: isolation)
        guard failure == nil, let result else {
            try state.failAndThrow(failure ?? "Unwrap failed.", at: location)
        }
        return result
    }

    enum WaitKind {
        case assert
        case unwrap
    }

    /// The waiting loop shared by `assert` and `unwrap`. Returns nil when the conditions held, else
    /// the failure message (what it shows then counts as reported, and is not reported again).
    func waitFor(
        _ conditions: () -> [Bool], timeout: Duration?, location: SourceLocation, kind: WaitKind,
        isolation: isolated (any Actor)?
    ) async -> String? {
        if state.log.withLock({ $0.isFinished }) {
            return FailureMessages.afterTheEnd(kind: kind)
        }
        let timeout = timeout ?? self.timeout
        let deadline = ContinuousClock.now + timeout
        var hadLastChance = false
        var settledForUnwrap = false
        // The activities of other testers' hierarchies the predicates read; marked before each
        // evaluation, so that a write after the read wakes this wait.
        var otherHierarchies: [ObjectIdentifier: Activity] = [:]
        while true {
            state.flushDeferredFailures()
            var marks = [state.activity.mark] + otherHierarchies.values.map(\.mark)
            let startSequence = Sequencer.current
            let evaluation = evaluate(conditions)
            if !evaluation.writes.isEmpty {
                // Not evaluated again: each evaluation would write again, and wake itself. What it
                // read is not counted as asserted: nothing was checked.
                return FailureMessages.predicateWrote(evaluation.writes, kind: kind)
            }
            if evaluation.results.allSatisfy({ $0 }) {
                // A value an unwrap returns may be a model that one of the hierarchy's tasks has just
                // added and is still activating (its `onActivate` has not yet started the listening
                // the test is about to rely on): let the running job end first (a job runs until its
                // task suspends, so the activation ends with it), then look again. One job at most
                // beyond it, not until the hierarchy is idle: a timer on an `ImmediateClock` never is.
                if kind == .unwrap && !settledForUnwrap && !state.executor.isIdle {
                    settledForUnwrap = true
                    await state.executor.settle(until: deadline, jobs: 1)
                    continue
                }
                markAsserted(evaluation)
                // An unwrap counts what it read as asserted, but does not demand the rest yet: the
                // value it returns is usually what the next assertion inspects.
                if kind == .assert {
                    checkExhaustivity(upTo: startSequence, at: location)
                    if let foreign = readsOfOtherHierarchiesOnly(evaluation) {
                        return FailureMessages.assertedAnotherHierarchy(foreign)
                    }
                }
                return nil
            }
            let timedOut = ContinuousClock.now >= deadline || Task.isCancelled
            if timedOut && !hadLastChance && !Task.isCancelled {
                // Before failing, run the hierarchy's jobs that are ready but were starved of a thread.
                hadLastChance = true
                await state.executor.settle(until: deadline)
                continue
            }
            if timedOut {
                return failure(of: evaluation, kind: kind, timeout: timeout, location: location)
            }
            if !state.executor.isIdle {
                // The hierarchy has work to do: let it run until it waits for something.
                await state.executor.settle(until: deadline)
                continue
            }
            let read = otherActivities(read: evaluation.reads)
            if read.keys.contains(where: { otherHierarchies[$0] == nil }) {
                // A hierarchy first read now: evaluate again with it marked, not to miss its writes.
                otherHierarchies.merge(read) { first, _ in first }
                continue
            }
            marks += evaluation.watched
            await Activity.wait(for: marks, until: deadline)
        }
    }

    /// What a passing evaluation read, when all of it belongs to hierarchies this tester does not
    /// drive (and it consulted no probe and no event): such an assertion asserts nothing here.
    /// Frozen copies are left out: they belong to no hierarchy, and a test may check one.
    private func readsOfOtherHierarchiesOnly(_ evaluation: Evaluation) -> [ModelAccessRecorder.PropertyRead]? {
        let reads = evaluation.reads.filter { !$0.isOfFrozenCopy }
        guard !reads.isEmpty, evaluation.consultedProbes.isEmpty, evaluation.eventChecks.isEmpty,
              reads.allSatisfy({ ($0.testingOwner as? TesterState) !== state })
        else { return nil }
        return reads
    }

    /// The activities of the hierarchies of other testers whose models `reads` read.
    private func otherActivities(read reads: [ModelAccessRecorder.PropertyRead]) -> [ObjectIdentifier: Activity] {
        var seenContexts: Set<ObjectIdentifier> = []
        var result: [ObjectIdentifier: Activity] = [:]
        for read in reads where seenContexts.insert(read.contextID).inserted {
            guard let other = read.testingOwner as? TesterState, other !== state else { continue }
            result[ObjectIdentifier(other.activity)] = other.activity
        }
        return result
    }

    struct Evaluation {
        let results: [Bool]
        let reads: [ModelAccessRecorder.PropertyRead]
        let readMarks: [Int]
        let matchedEvents: Set<UInt64>
        let matchedProbeCalls: Set<UInt64>
        let matchedProbes: [TestProbe]
        /// The probes each condition asked about, matched or not, for failure messages.
        let consultedProbes: [(predicate: Int, probe: TestProbe)]
        /// The conditions that asked whether an event was sent.
        let eventChecks: Set<Int>
        /// What else the conditions depend on (the probes they consulted), marked before they read it.
        let watched: [Activity.Mark]
        /// What the conditions wrote to a tested hierarchy's models (they must only read).
        let writes: [ChangeRecord]

        /// The reads made while evaluating condition `index`.
        func reads(ofCondition index: Int) -> ArraySlice<ModelAccessRecorder.PropertyRead> {
            guard readMarks.count == results.count else { return reads[...] }
            let start = index == 0 ? 0 : readMarks[index - 1]
            let end = readMarks[index]
            return reads[min(start, reads.count)..<min(end, reads.count)]
        }
    }

    private func evaluate(_ conditions: () -> [Bool]) -> Evaluation {
        let scope = AssertScope()
        let (results, reads) = AssertScope.current.withValue(scope) {
            ModelAccessRecorder.recording(conditions)
        }
        return Evaluation(
            results: results, reads: reads, readMarks: scope.readMarks,
            matchedEvents: scope.matchedEvents, matchedProbeCalls: scope.matchedProbeCalls,
            matchedProbes: scope.matchedProbes,
            consultedProbes: scope.consultedProbes, eventChecks: scope.eventChecks,
            watched: Array(scope.watched.values), writes: scope.writes
        )
    }

    /// The message of a failed evaluation. What it shows (the state read, the events and probe calls
    /// listed) counts as asserted from then on, so that the end of the test does not report it again.
    private func failure(of evaluation: Evaluation, kind: WaitKind, timeout: Duration, location: SourceLocation) -> String {
        markAsserted(evaluation)
        switch kind {
        case .unwrap:
            let source = PredicateSource.predicates(at: location, count: 1)?.first
            return FailureMessages.unwrapFailed(evaluation, source: source, timeout: timeout)
        case .assert:
            let failing = evaluation.results.indices.filter { !evaluation.results[$0] }
            var events: [TesterState.Entry<EventRecord>] = []
            if failing.contains(where: evaluation.eventChecks.contains) {
                events = state.log.withLock { log in
                    defer { log.events.removeAll { !evaluation.matchedEvents.contains($0.sequence) } }
                    return log.events.filter { !evaluation.matchedEvents.contains($0.sequence) }
                }
            }
            let probes = failing.flatMap { index in
                evaluation.consultedProbes.filter { $0.predicate == index }.map(\.probe)
            }
            let probeLines = Dictionary(probes.map { probe in
                (ObjectIdentifier(probe), FailureMessages.probeLine(probe))
            }, uniquingKeysWith: { first, _ in first })
            for probe in probes { _ = probe.takeUnasserted(upTo: .max) }
            return FailureMessages.assertionFailed(
                evaluation, sources: PredicateSource.predicates(at: location, count: evaluation.results.count),
                unassertedEvents: events.map { FailureMessages.eventLine($0.record) },
                probeLines: probeLines, timeout: timeout
            )
        }
    }

    /// Counts what a successful evaluation read and matched as asserted.
    private func markAsserted(_ evaluation: Evaluation) {
        let readKeys = Set(evaluation.reads.map { ReadKey(context: $0.contextID, index: $0.index) })
        state.log.withLock { log in
            log.changes.removeAll { readKeys.contains(ReadKey(context: $0.record.contextID, index: $0.record.index)) }
            log.events.removeAll { evaluation.matchedEvents.contains($0.sequence) }
        }
        for probe in evaluation.matchedProbes {
            probe.markAsserted(evaluation.matchedProbeCalls)
        }
    }

    private struct ReadKey: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }
}

func formatted(_ duration: Duration) -> String {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
    return "\(seconds) s"
}
