import ModelKit

extension Tester {
    /// Reports, as failures at `location`, what was recorded up to `sequence` and not asserted, in
    /// the categories of the exhaustivity in force when each was recorded (probe calls: of the
    /// current ``exhaustivity``); prints the rest when ``showSkippedAssertions`` is set. Reported
    /// and skipped items are forgotten.
    func checkExhaustivity(after start: UInt64 = 0, upTo sequence: UInt64, at location: SourceLocation) {
        let (changes, events, probes, exhaustivity, showSkipped) = state.log.withLock { log in
            let isChecked = { (entrySequence: UInt64) in entrySequence > start && entrySequence <= sequence }
            // `.private` properties' changes need no assertion (API.md section 11).
            let changes = log.changes.filter { isChecked($0.sequence) && !$0.record.isPrivate }
            let events = log.events.filter { isChecked($0.sequence) }
            log.changes.removeAll { isChecked($0.sequence) }
            log.events.removeAll { isChecked($0.sequence) }
            return (changes, events, log.probes, log.exhaustivity, log.showSkippedAssertions)
        }
        let probeCalls = probes.flatMap { probe in
            probe.takeUnasserted(after: start, upTo: sequence).map { (probe, $0) }
        }

        for category in ExhaustivityCategory.allCases {
            let entries = changes.filter { ExhaustivityCategory(of: $0.record) == category }
            guard !entries.isEmpty else { continue }
            let (required, skipped) = entries.split { $0.exhaustivity.contains(category.exhaustivity) }
            if !required.isEmpty {
                let records = required.map(\.record)
                let message = FailureMessages.unasserted(
                    category, FailureMessages.changeLines(records), ofRemovedModels: records.contains { $0.modelWasRemoved }
                )
                state.fail(message, at: location)
            }
            if !skipped.isEmpty && showSkipped {
                let lines = FailureMessages.changeLines(skipped.map(\.record))
                state.printSkipped(FailureMessages.skipped(category.title, lines, test: state.testName, at: state.location))
            }
        }
        let (requiredEvents, skippedEvents) = events.split { $0.exhaustivity.contains(.events) }
        if !requiredEvents.isEmpty {
            state.fail(FailureMessages.unassertedEvents(requiredEvents.map { FailureMessages.eventLine($0.record) }), at: location)
        }
        if !skippedEvents.isEmpty && showSkipped {
            let lines = skippedEvents.map { FailureMessages.eventLine($0.record) }
            state.printSkipped(FailureMessages.skipped("Events", lines, test: state.testName, at: state.location))
        }
        if !probeCalls.isEmpty {
            let lines = probeCalls.map { FailureMessages.probeCallLine($0.0, $0.1) }
            if exhaustivity.contains(.probes) {
                state.fail(FailureMessages.unassertedProbeCalls(lines), at: location)
            } else if showSkipped {
                state.printSkipped(FailureMessages.skipped("Probe calls", lines, test: state.testName, at: state.location))
            }
        }
    }
}

extension Tester {
    /// Runs `body` with ``exhaustivity`` set to `exhaustivity`, then settles the hierarchy, checks
    /// what happened in the scope against `exhaustivity` (reporting at this call) and restores the
    /// previous exhaustivity.
    ///
    /// ```swift
    /// await tester.withExhaustivity(.off) {
    ///     list.importTapped()                  // many changes this test is not about
    ///     await tester.assert(list.items.count == 3)
    /// }
    /// list.deleteTapped(at: 0)                 // exhaustive again from here
    /// ```
    ///
    /// - Returns: What `body` returns.
    public func withExhaustivity<Result>(
        _ exhaustivity: Exhaustivity,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        if state.log.withLock({ $0.isFinished }) {
            // Nothing is recorded any more: the body runs, and its assertions say the same.
            state.fail(FailureMessages.afterTheEnd(call: "withExhaustivity"), at: location)
            return try await body()
        }
        // What happened before the scope is left to the next assertion or the end of the test.
        let start = Sequencer.current
        let previous = state.log.withLock { log in
            defer { log.exhaustivity = exhaustivity }
            return log.exhaustivity
        }
        func end() async {
            await settle()
            checkExhaustivity(after: start, upTo: Sequencer.current, at: location)
            state.log.withLock { $0.exhaustivity = previous }
        }
        do {
            let result = try await body()
            await end()
            return result
        } catch {
            await end()
            throw error
        }
    }
}

/// The exhaustivity category of a recorded change: tracked state, an environment value or a
/// preference. The one place that sorts changes into categories, so that new kinds of change plug
/// in here and in ``FailureMessages/unasserted(_:_:)``.
enum ExhaustivityCategory: CaseIterable {
    case state
    case environment
    case preferences

    init(of record: ChangeRecord) {
        switch record.category {
        case .state: self = .state
        case .environment: self = .environment
        case .preference: self = .preferences
        }
    }

    var exhaustivity: Exhaustivity {
        switch self {
        case .state: .state
        case .environment: .environment
        case .preferences: .preferences
        }
    }

    /// How skipped-assertion output names the category.
    var title: String {
        switch self {
        case .state: "State changes"
        case .environment: "Environment changes"
        case .preferences: "Preference changes"
        }
    }
}

extension Model where Event: Equatable {
    /// Whether this model sent `event` (and it was not asserted yet). Use it inside an assertion,
    /// where a matching event counts as asserted.
    ///
    /// ```swift
    /// detail.startMeetingButtonTapped()
    /// await tester.assert(detail.didSend(.startMeeting))
    /// ```
    public func didSend(_ event: Event) -> Bool {
        didSendEvent(event)
    }
}

extension Model {
    /// Whether this model sent `event`, an event of any `Equatable` type (`node.send(AppEvent.logout)`).
    ///
    /// ```swift
    /// await tester.assert(settings.didSend(AppEvent.logout))
    /// ```
    public func didSend<OtherEvent: Equatable & Sendable>(_ event: OtherEvent) -> Bool {
        didSendEvent(event)
    }

    private func didSendEvent<E: Equatable>(_ event: E) -> Bool {
        guard let state = hierarchy?.testingSupport?.owner as? TesterState, let sender = contextID else {
            return false
        }
        let scope = AssertScope.current.value
        if let scope { scope.eventChecks.insert(scope.currentPredicate) }
        let match = state.log.withLock { log -> UInt64? in
            log.events.first { entry in
                entry.record.senderID == sender
                    && !(scope?.matchedEvents.contains(entry.sequence) ?? false)
                    && (entry.record.event as? E) == event
            }?.sequence
        }
        guard let match else { return false }
        scope?.matchedEvents.insert(match)
        return true
    }
}

extension Array {
    /// The elements for which `isIncluded` holds, and the others, each in order.
    fileprivate func split(_ isIncluded: (Element) -> Bool) -> (included: [Element], excluded: [Element]) {
        var included: [Element] = []
        var excluded: [Element] = []
        for element in self {
            if isIncluded(element) { included.append(element) } else { excluded.append(element) }
        }
        return (included, excluded)
    }
}
