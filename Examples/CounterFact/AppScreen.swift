import ExampleSupport
import ModelKit
import Synchronization

/// CounterFact in the terminal: draws ``AppModel`` and turns typed commands into its methods.
///
/// Rows are numbered from 0. The commands are those of ``help``.
@MainActor
struct AppScreen: TerminalScreen {
    let app: AppModel
    /// Prints the changes of `--print-changes`; scripted commands wait through it (see
    /// ``ChangePrintout``).
    var printout: ChangePrintout? = nil

    static let help = """
        Commands (N is a row number, from 0):
          add          add a counter            remove N     remove row N
          inc N        increment row N          dec N        decrement row N
          fact N       a fact about row N's count
          another      another fact             dismiss      close the alert, else the fact
          help         this list                quit         leave
        """

    func render() -> String {
        var lines = ["CounterFact", "───────────"]
        if app.counters.isEmpty {
            lines.append("No counters yet: type add.")
        }
        for (index, row) in app.counters.enumerated() {
            lines.append("[\(index)]  −  \(row.counter.count)  +")
        }
        lines.append("Sum: \(app.sum)")
        if let prompt = app.factPrompt {
            lines.append("")
            lines.append("Fact about \(prompt.count)\(prompt.isLoading ? " (loading another…)" : ""):")
            lines.append("  \(prompt.fact)")
            lines.append("  another · dismiss")
        }
        for (index, row) in app.counters.enumerated() {
            guard let alert = row.counter.alert else { continue }
            lines.append("")
            lines.append("⚠ \(alert.title) (row \(index)): \(alert.message)")
            lines.append("  dismiss")
        }
        return lines.joined(separator: "\n")
    }

    func perform(_ command: Command, settle: Bool) async -> CommandResult {
        switch command.name {
        case "add":
            app.addButtonTapped()
        case "remove", "inc", "dec", "fact":
            guard let number = command.number, app.counters.indices.contains(number) else {
                return .message(app.counters.isEmpty
                    ? "There are no counters: type add first."
                    : "Which row? Type \(command.name) N, with N from 0 to \(app.counters.count - 1).")
            }
            let row = app.counters[number]
            switch command.name {
            case "remove": row.removeButtonTapped()
            case "inc": row.counter.incrementTapped()
            case "dec": row.counter.decrementTapped()
            default: return await fetchFact(for: row.counter, settle: settle)
            }
        case "another":
            guard let prompt = app.factPrompt else { return .message("No fact is shown: type fact N first.") }
            return await fetchAnotherFact(in: prompt, settle: settle)
        case "dismiss", "ok":
            if let row = app.counters.first(where: { $0.counter.alert != nil }) {
                row.counter.alertDismissed()
            } else if let prompt = app.factPrompt {
                prompt.dismissTapped()
            } else {
                return .message("There is nothing to dismiss.")
            }
        case "help", "?":
            return .message(Self.help)
        case "quit", "exit", "q":
            return .quit
        default:
            return .message("Unknown command \"\(command.name)\". Type help for the commands.")
        }
        return .done
    }

    func finish() async {}

    /// Taps the counter's fact button; when settling, waits until a new fact prompt or a new alert.
    private func fetchFact(for counter: CounterModel, settle: Bool) async -> CommandResult {
        guard settle else {
            counter.factButtonTapped()
            return .done
        }
        let app = self.app
        let before = (prompt: app.factPrompt?.id, alert: counter.alert?.id)
        let arrived = await app.perform({ counter.factButtonTapped() }, thenWaitUntil: {
            app.factPrompt?.id != before.prompt || counter.alert?.id != before.alert
        }, printout: printout)
        return arrived ? .done : .message("No fact arrived in time; going on.")
    }

    /// Asks for another fact; when settling, waits until loading has started and ended.
    private func fetchAnotherFact(in prompt: FactPromptModel, settle: Bool) async -> CommandResult {
        guard settle else {
            prompt.getAnotherFactButtonTapped()
            return .done
        }
        let started = LoadingStarted()
        let finished = await prompt.perform({ prompt.getAnotherFactButtonTapped() }, thenWaitUntil: {
            if prompt.isLoading { started.note() }
            return !prompt.isLoading && started.happened
        }, printout: printout)
        return finished ? .done : .message("No fact arrived in time; going on.")
    }
}

/// Whether a fact prompt was seen loading: "another" is done once loading has started and ended.
nonisolated private final class LoadingStarted: Sendable {
    private let seen = Atomic(false)

    var happened: Bool { seen.load(ordering: .acquiring) }

    func note() {
        seen.store(true, ordering: .releasing)
    }
}
