import ModelKit

/// The text of every failure a Tester reports. Messages are API: tests pin them.
enum FailureMessages {
    // MARK: Exhaustivity

    static func unasserted(_ category: ExhaustivityCategory, _ lines: [String], ofRemovedModels: Bool = false) -> String {
        let removed = ofRemovedModels
            ? "  • A change of a model removed since is asserted before the removal: assert it between the two actions.\n"
            : ""
        let categoryFixes = switch category {
        case .state:
            """
              • Assert the new values in a `tester.assert { … }` after the action that changes them.
              • Or stop requiring state assertions: `tester.exhaustivity.remove(.state)`.
            """
        case .environment:
            """
              • Assert the value, read on that model or a descendant, in a `tester.assert { … }` after the action that sets it.
              • Or stop requiring environment assertions: `tester.exhaustivity.remove(.environment)`.
            """
        case .preferences:
            """
              • Assert the value, read on that model or an ancestor, in a `tester.assert { … }` after the action that sets it.
              • Or stop requiring preferences assertions: `tester.exhaustivity.remove(.preferences)`.
            """
        }
        let fixes = removed + categoryFixes
        return """
        \(category.title) were not asserted:

        \(indented(lines))

        To fix, either:
        \(fixes)
        """
    }

    static func unassertedEvents(_ lines: [String]) -> String {
        """
        Events were not asserted:

        \(indented(lines))

        To fix, either:
          • Assert each event with `model.didSend(…)` in a `tester.assert { … }`.
          • Or stop requiring event assertions: `tester.exhaustivity.remove(.events)`.
        """
    }

    static func unassertedProbeCalls(_ lines: [String]) -> String {
        """
        Probe calls were not asserted:

        \(indented(lines))

        To fix, either:
          • Assert each call with `probe.wasCalled(with: …)` in a `tester.assert { … }`.
          • Or stop requiring probe assertions: `tester.exhaustivity.remove(.probes)`.
        """
    }

    static func taskStillRunning(
        _ task: RunningWork, testerReleased: Bool = false, clockSleep: (deadline: Duration, now: Duration)? = nil
    ) -> String {
        if task.isCancelled {
            return """
            \(taskDescription(name: task.name, modelType: task.modelType)) started here was still running when the test ended, although it was cancelled.

            To fix, either:
              • Let cancellation end it: `try await` what it waits for, or check `Task.isCancelled` in its loops.
              • Or stop requiring finished tasks: `tester.exhaustivity.remove(.tasks)`.
            """
        }
        let clockParagraph = clockSleep.map {
            """
            A task of this hierarchy sleeps on a TestClock until \($0.deadline), and the clock is at \($0.now): \
            a TestClock moves only when the test advances it.


            """
        } ?? ""
        let clockFix = clockSleep.map {
            "  • Advance the clock past the sleep (by \($0.deadline - $0.now) or more): `await clock.advance(by: …)`, or `await clock.run()`.\n"
        } ?? ""
        if testerReleased {
            return """
            \(taskDescription(name: task.name, modelType: task.modelType)) started here was still running when the test ended.

            \(clockParagraph)The tester was released without `await tester.finish()`, so it did not wait for the task: \
            a released tester only runs the hierarchy's ready jobs, it does not wait for work outside it.

            To fix, either:
              • End the test with `await tester.finish()`, which waits for running tasks up to the timeout.
            \(clockFix)  • Wait for its work before the test ends, e.g. `await tester.assert { … }` on the state it changes.
              • Cancel it in the model (`node.cancelAll(for:)`), or start it from `onActivate`, whose work the tester cancels.
              • Or stop requiring finished tasks: `tester.exhaustivity.remove(.tasks)`.
            """
        }
        return """
        \(taskDescription(name: task.name, modelType: task.modelType)) started here was still running when the test ended.

        \(clockParagraph)To fix, either:
        \(clockFix)  • Wait for its work before the test ends, e.g. `await tester.assert { … }` on the state it changes.
          • Cancel it in the model (`node.cancelAll(for:)`), or start it from `onActivate`, whose work the tester cancels.
          • Or stop requiring finished tasks: `tester.exhaustivity.remove(.tasks)`.
        """
    }

    /// What relaxed exhaustivity let pass, naming the test (and where its tester was created).
    static func skipped(_ title: String, _ lines: [String], test: String?, at location: SourceLocation) -> String {
        let name = test.map { "\($0), tester at \(location)" } ?? "the test whose tester is at \(location)"
        return "Skipped assertions in \(name) (\(title), not required by exhaustivity):\n\(indented(lines))"
    }

    // MARK: Assertions

    /// `Assertion failed: predicate 2 of 3 was still false after 1 s.`, then for each false predicate
    /// its source text (or its number), the expected side of a `==`, and what it read.
    static func assertionFailed(
        _ evaluation: Tester.Evaluation, sources: [String]?, unassertedEvents: [String],
        probeLines: [ObjectIdentifier: String], timeout: Duration
    ) -> String {
        let count = evaluation.results.count
        let failing = evaluation.results.indices.filter { !evaluation.results[$0] }
        let what: String
        if count <= 1 {
            what = "the predicate was still false"
        } else if failing.count == 1 {
            what = "predicate \(failing[0] + 1) of \(count) was still false"
        } else {
            let numbers = failing.map { "\($0 + 1)" }
            what = "predicates \(numbers.dropLast().joined(separator: ", ")) and \(numbers.last!) of \(count) were still false"
        }
        let blocks = failing.map { index -> String in
            var lines: [String] = []
            let source = sources?[index]
            lines.append(source ?? (count <= 1 ? "the predicate" : "predicate \(index + 1) of \(count)"))
            if let source, let expected = PredicateSource.expectedSide(of: source) {
                lines.append("  expected: \(expected)")
            }
            // A value over several lines continues under its first line's value, not under `read:`.
            lines += readLines(evaluation.reads(ofCondition: index)).map {
                "  read: " + $0.replacingOccurrences(of: "\n", with: "\n        ")
            }
            var probes: Set<ObjectIdentifier> = []
            for (predicate, probe) in evaluation.consultedProbes where predicate == index {
                guard probes.insert(ObjectIdentifier(probe)).inserted, let line = probeLines[ObjectIdentifier(probe)] else { continue }
                lines.append("  \(line)")
            }
            if evaluation.eventChecks.contains(index) {
                if unassertedEvents.isEmpty {
                    lines.append("  no event was sent that is not asserted yet")
                } else {
                    lines.append("  events sent and not asserted:")
                    lines += unassertedEvents.map { "    " + $0 }
                }
            }
            return indented(lines)
        }
        return """
        Assertion failed: \(what) after \(formatted(timeout)).

        \(blocks.joined(separator: "\n\n"))

        To fix, either:
          • Compare what each predicate expects with the values it read.
          • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
        """
    }

    static func unwrapFailed(_ evaluation: Tester.Evaluation, source: String?, timeout: Duration) -> String {
        let reads = readLines(evaluation.reads)
        let readSection = reads.isEmpty ? "" : "\n\nIt read:\n\(indented(reads))"
        return """
        Unwrap failed: \(source.map { "`\($0)`" } ?? "the value") was still nil after \(formatted(timeout)).\(readSection)

        To fix, either:
          • Trigger the action that sets the value before unwrapping it.
          • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
        """
    }

    /// `onFact was called: onFact(1, "x")`, or `onFact has no unasserted calls`; with the number of
    /// calls in all when some were asserted before (`callCount` counts them).
    static func probeLine(_ probe: TestProbe) -> String {
        let calls = probe.unassertedCalls
        let total = probe.calls.withLock { $0.count }
        let inAll = total > calls.count ? " (\(total) \(total == 1 ? "call" : "calls") in all)" : ""
        if calls.isEmpty { return "\(probe.name) has no unasserted calls\(inAll)" }
        return "\(probe.name) was called: " + calls.map { probeCallLine(probe, $0) }.joined(separator: ", ") + inAll
    }

    /// One line per property read (its current value), each property once.
    private static func readLines(_ reads: some Sequence<ModelAccessRecorder.PropertyRead>) -> [String] {
        var seen: Set<String> = []
        var lines: [String] = []
        for read in reads {
            let key = "\(read.contextID.hashValue):\(read.index)"
            guard seen.insert(key).inserted else { continue }
            lines.append(read.currentDescription)
        }
        return lines
    }

    // MARK: Lines

    /// One line (or diff) per changed property: the whole chain of values since it was last
    /// asserted, in order (`count: 0 → 1 → 0`).
    static func changeLines(_ records: [ChangeRecord]) -> [String] {
        var order: [String] = []
        var chains: [String: (path: String, values: [Any])] = [:]
        for record in records {
            let key = "\(record.contextID.hashValue):\(record.index)"
            if chains[key] == nil {
                order.append(key)
                let path = record.modelWasRemoved ? "\(record.propertyPath) (of a model removed since)" : record.propertyPath
                chains[key] = (path, [record.old, record.new])
            } else {
                chains[key]?.values.append(record.new)
            }
        }
        return order.compactMap { key in
            guard let chain = chains[key] else { return nil }
            // A long chain (a loop writing the property) shows its first and last values only.
            let values = chain.values
            let elided = values.count > 2 * chainEnds + 2 ? values.count - 2 * chainEnds : 0
            let segments = elided == 0 ? [values[...]] : [values.prefix(chainEnds), values.suffix(chainEnds)]
            let texts = segments.map { $0.map { ValueDump.render($0) } }
            let gap = "… \(elided) more values …"
            if texts.joined().allSatisfy({ !$0.contains("\n") }) {
                return "\(chain.path): \(texts.map { $0.joined(separator: " → ") }.joined(separator: " → \(gap) → "))"
            }
            return texts.map { segment in
                zip(segment, segment.dropFirst()).map { old, new in
                    ValueDiff.describe(path: chain.path, oldText: old, newText: new)
                }.joined(separator: "\n")
            }.joined(separator: "\n\(chain.path): \(gap)\n")
        }
    }

    /// How many values a long chain of changes shows at each of its ends.
    static let chainEnds = 5

    /// An assertion made after the tester finished: its hierarchy is torn down.
    static func afterTheEnd(kind: Tester.WaitKind) -> String {
        afterTheEnd(call: kind == .assert ? "assert" : "unwrap")
    }

    /// A tester's method that checks something (`assert`, `unwrap`, `withExhaustivity`, `install`)
    /// called after it finished.
    static func afterTheEnd(call: String) -> String {
        let what = call == "install" ? "the probe's calls will not be checked" : "nothing was checked"
        let fix = call == "install" ? "Install the probe before `await tester.finish()`, when its calls can still be asserted." : "Move the assertion before `await tester.finish()`."
        return """
        `\(call)` was called after `tester.finish()`: the test has ended and its models are torn down, so \(what).

        To fix: \(fix)
        """
    }

    /// An assertion or unwrap whose predicates wrote to a model: predicates must only read.
    static func predicateWrote(_ writes: [ChangeRecord], kind: Tester.WaitKind) -> String {
        var names: [String] = []
        for write in writes where !names.contains(write.propertyPath) { names.append(write.propertyPath) }
        let shown = names.count > 3 ? names.prefix(3).joined(separator: ", ") + ", …" : names.joined(separator: ", ")
        let call = kind == .assert ? "assert" : "unwrap"
        return """
        The predicate of this `\(call)` wrote to \(shown); a predicate runs again on every state the model passes through, so it must only read. Nothing was checked.

        To fix: Make the change before the `\(call)` (call the action that makes it), and keep the predicate to reading and comparing.
        """
    }

    /// A probe installed in a second tester while the first still checks its calls.
    static func probeInstalledTwice(_ probe: TestProbe, firstTesterAt location: SourceLocation) -> String {
        """
        The probe "\(probe.name)" is already installed in the tester created at \(location); a probe's calls are asserted by one tester, so it was not installed in this one.

        To fix: Give each tester its own probe (`TestProbe("\(probe.name)")`), and pass each hierarchy its own probe's `call`.
        """
    }

    /// A passing assertion that read only models of hierarchies its tester does not drive.
    static func assertedAnotherHierarchy(_ reads: [ModelAccessRecorder.PropertyRead]) -> String {
        var names: [String] = []
        for read in reads {
            let name = read.propertyPath
            if !names.contains(name) { names.append(name) }
        }
        let shown = names.count > 3 ? names.prefix(3).joined(separator: ", ") + ", …" : names.joined(separator: ", ")
        return """
        The assertion read only models of another hierarchy (\(shown)), not of the one this tester drives, so it asserted nothing.

        To fix, either:
          • Assert them with the tester that drives their hierarchy (`otherTester.assert { … }`); a model anchored with `withAnchor()` has none: anchor it with `andTester()`.
          • Or assert the state of this tester's models.
        """
    }

    static func eventLine(_ record: EventRecord) -> String {
        // As for state lines: the path of a removed sender may now lead to another model.
        let path = record.senderWasRemoved ? "\(record.path) (a model removed since)" : record.path
        return "\(path) sent \(ValueDump.render(record.event))"
    }

    static func probeCallLine(_ probe: TestProbe, _ call: TestProbe.Call) -> String {
        "\(probe.name)(\(call.arguments.map { ValueDump.render($0) }.joined(separator: ", ")))"
    }

    static func indented(_ lines: [String]) -> String {
        lines.map { "  " + $0.replacingOccurrences(of: "\n", with: "\n  ") }.joined(separator: "\n")
    }
}
