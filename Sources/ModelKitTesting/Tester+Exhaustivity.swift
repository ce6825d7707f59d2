import ModelKit

extension Tester {
    /// Reports, as failures at `location`, what was recorded up to `sequence` and not asserted, in
    /// the categories of ``exhaustivity``; prints the rest when ``showSkippedAssertions`` is set.
    /// Reported and skipped items are forgotten.
    func checkExhaustivity(upTo sequence: UInt64, at location: SourceLocation) {
        let (changes, events, probes, exhaustivity, showSkipped) = state.log.withLock { log in
            // `.private` properties' changes need no assertion (API.md section 11).
            let changes = log.changes.filter { $0.sequence <= sequence && !$0.record.isPrivate }
            let events = log.events.filter { $0.sequence <= sequence }
            log.changes.removeAll { $0.sequence <= sequence }
            log.events.removeAll { $0.sequence <= sequence }
            return (changes, events, log.probes, log.exhaustivity, log.showSkippedAssertions)
        }
        let probeCalls = probes.flatMap { probe in probe.takeUnasserted(upTo: sequence).map { (probe, $0) } }

        for (category, option, title) in Self.changeCategories {
            let changes = changes.filter { $0.record.category == category }
            guard !changes.isEmpty else { continue }
            let lines = FailureMessages.changeLines(changes.map(\.record))
            if exhaustivity.contains(option) {
                state.fail(FailureMessages.unassertedChanges(lines, title: title, option: option), at: location)
            } else if showSkipped {
                print(FailureMessages.skipped(title, lines))
            }
        }
        if !events.isEmpty {
            let lines = events.map { FailureMessages.eventLine($0.record) }
            if exhaustivity.contains(.events) {
                state.fail(FailureMessages.unassertedEvents(lines), at: location)
            } else if showSkipped {
                print(FailureMessages.skipped("Events", lines))
            }
        }
        if !probeCalls.isEmpty {
            let lines = probeCalls.map { FailureMessages.probeCallLine($0.0, $0.1) }
            if exhaustivity.contains(.probes) {
                state.fail(FailureMessages.unassertedProbeCalls(lines), at: location)
            } else if showSkipped {
                print(FailureMessages.skipped("Probe calls", lines))
            }
        }
    }
}

extension Tester {
    /// Each kind of change, with the exhaustivity that requires it and its title in messages.
    static let changeCategories: [(ChangeCategory, Exhaustivity, String)] = [
        (.state, .state, "State changes"),
        (.environment, .environment, "Environment changes"),
        (.preference, .preferences, "Preference changes"),
    ]
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
