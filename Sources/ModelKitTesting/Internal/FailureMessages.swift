import ModelKit

/// The text of every failure a Tester reports. Messages are API: tests pin them.
enum FailureMessages {
    // MARK: Exhaustivity

    static func unassertedState(_ lines: [String]) -> String {
        """
        State changes were not asserted:

        \(indented(lines))

        To fix, either:
          • Assert the new values in a `tester.assert { … }` after the action that changes them.
          • Or stop requiring state assertions: `tester.exhaustivity.remove(.state)`.
        """
    }

    static func unassertedChanges(_ lines: [String], title: String, option: Exhaustivity) -> String {
        if option == .state { return unassertedState(lines) }
        let name = option == .environment ? "environment" : "preferences"
        let readers = option == .environment ? "that model or a descendant" : "that model or an ancestor"
        return """
        \(title) were not asserted:

        \(indented(lines))

        To fix, either:
          • Assert the value, read on \(readers), in a `tester.assert { … }` after the action that sets it.
          • Or stop requiring \(name) assertions: `tester.exhaustivity.remove(.\(name))`.
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

    static func taskStillRunning(_ task: RunningWork) -> String {
        """
        A task of \(task.modelType) started here was still running when the test ended.

        To fix, either:
          • Wait for its work before the test ends, e.g. `await tester.assert { … }` on the state it changes.
          • Cancel it in the model (`node.cancelAll(for:)`), or start it from `onActivate`, whose work the tester cancels.
          • Or stop requiring finished tasks: `tester.exhaustivity.remove(.tasks)`.
        """
    }

    static func skipped(_ title: String, _ lines: [String]) -> String {
        "Skipped assertions (\(title), not required by exhaustivity):\n\(indented(lines))"
    }

    // MARK: Assertions

    static func assertionFailed(_ evaluation: Tester.Evaluation, timeout: Duration) -> String {
        let failing = evaluation.results.indices.filter { !evaluation.results[$0] }
        let what: String
        if evaluation.results.count <= 1 {
            what = "the condition was still false"
        } else if failing.count == 1 {
            what = "condition \(failing[0] + 1) of \(evaluation.results.count) was still false"
        } else {
            let numbers = failing.map { "\($0 + 1)" }
            what = "conditions \(numbers.dropLast().joined(separator: ", ")) and \(numbers.last!) of \(evaluation.results.count) were still false"
        }
        let reads = failing.flatMap { evaluation.reads(ofCondition: $0) }
        return """
        Assertion failed: \(what) after \(formatted(timeout)).\(readSection(reads))\(probeSection(evaluation.consultedProbes))

        To fix, either:
          • Compare the expected values with the model's state shown above.
          • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
        """
    }

    static func unwrapFailed(_ evaluation: Tester.Evaluation, timeout: Duration) -> String {
        """
        Unwrap failed: the value was still nil after \(formatted(timeout)).\(readSection(evaluation.reads))

        To fix, either:
          • Trigger the action that sets the value before unwrapping it.
          • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
        """
    }

    private static func probeSection(_ probes: [TestProbe]) -> String {
        guard !probes.isEmpty else { return "" }
        let lines = probes.map { probe -> String in
            let calls = probe.unassertedCalls
            if calls.isEmpty { return "\(probe.name) has no unasserted calls" }
            return "\(probe.name) was called: " + calls.map { probeCallLine(probe, $0) }.joined(separator: ", ")
        }
        return "\n\nProbes it checked:\n\(indented(lines))"
    }

    private static func readSection(_ reads: some Sequence<ModelAccessRecorder.PropertyRead>) -> String {
        var seen: Set<String> = []
        var lines: [String] = []
        for read in reads {
            let key = "\(read.contextID.hashValue):\(read.index)"
            guard seen.insert(key).inserted else { continue }
            lines.append(read.currentDescription)
        }
        guard !lines.isEmpty else { return "" }
        return "\n\nIt read:\n\(indented(lines))"
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
                chains[key] = (record.propertyPath, [record.old, record.new])
            } else {
                chains[key]?.values.append(record.new)
            }
        }
        return order.compactMap { key in
            guard let chain = chains[key] else { return nil }
            let texts = chain.values.map { ValueDump.render($0) }
            if texts.allSatisfy({ !$0.contains("\n") }) {
                return "\(chain.path): \(texts.joined(separator: " → "))"
            }
            return zip(texts, texts.dropFirst()).map { old, new in
                ValueDiff.describe(path: chain.path, oldText: old, newText: new)
            }.joined(separator: "\n")
        }
    }

    static func eventLine(_ record: EventRecord) -> String {
        "\(record.path) sent \(ValueDump.render(record.event))"
    }

    static func probeCallLine(_ probe: TestProbe, _ call: TestProbe.Call) -> String {
        "\(probe.name)(\(call.arguments.map { ValueDump.render($0) }.joined(separator: ", ")))"
    }

    static func indented(_ lines: [String]) -> String {
        lines.map { "  " + $0.replacingOccurrences(of: "\n", with: "\n  ") }.joined(separator: "\n")
    }
}
