import Foundation
import Observation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A screen of a terminal app: its text, drawn from models, and the commands it understands.
@MainActor
package protocol TerminalScreen {
    /// The whole screen, drawn from the models.
    ///
    /// The session calls it inside `withObservationTracking`: the model properties read here, and
    /// only those, make the session draw the screen again when they change.
    func render() -> String

    /// Runs one command.
    ///
    /// - Parameter settle: True in scripted runs: the command returns once the asynchronous work it
    ///   started has produced its result (or a timeout has passed), so the next command sees it.
    func perform(_ command: Command, settle: Bool) async -> CommandResult

    /// Called once when the session ends (`quit`, or the end of the input).
    func finish() async
}

/// One typed command: `inc 2` is named `inc` with the argument `2`.
package struct Command: Sendable, CustomStringConvertible {
    package let name: String
    package let argument: String

    /// The argument as a number, if it is one.
    package var number: Int? { Int(argument) }

    package var description: String { argument.isEmpty ? name : "\(name) \(argument)" }

    /// The commands of one line; `;` separates commands.
    package static func parse(_ line: String) -> [Command] {
        line.split(separator: ";").compactMap { part in
            let words = part.trimmingCharacters(in: .whitespaces)
            guard let name = words.split(separator: " ").first else { return nil }
            let argument = words.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
            return Command(name: name.lowercased(), argument: argument)
        }
    }
}

/// What a command tells the session.
package enum CommandResult: Sendable {
    case done
    /// A line to show the user (a mistake, or help).
    case message(String)
    case quit
}

/// Runs a ``TerminalScreen``: interactively (the screen is redrawn whenever what it shows changes) or
/// from a script (each command is followed by the screen, when it changed).
@MainActor
package final class TerminalSession<Screen: TerminalScreen> {
    private let screen: Screen
    private let invalidation = Invalidation()

    package init(screen: Screen) {
        self.screen = screen
    }

    /// Runs `script` if there is one; otherwise the commands on standard input: interactively at a
    /// terminal, else (piped) like a script.
    package func run(script: String?) async {
        if let script {
            await runScript(AsyncStream { $0.yield(script); $0.finish() })
        } else if StandardInput.isTerminal {
            await runInteractively()
        } else {
            await runScript(StandardInput.lines())
        }
    }

    /// Reads commands from standard input, redrawing the screen as the models change.
    package func runInteractively() async {
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        invalidation.setRedrawRequests(continuation)
        StandardInput.readLines { line in continuation.yield(line.map(Input.line) ?? .end) }
        var status = "Type help for the commands, quit to leave."
        redraw(status: status)
        for await input in inputs {
            switch input {
            case .redraw:
                if invalidation.isInvalid { redraw(status: status) }
            case .line(let line):
                let previousStatus = status
                status = ""
                for command in Command.parse(line) {
                    switch await screen.perform(command, settle: false) {
                    case .done: break
                    case .message(let text): status = text
                    case .quit: return await screen.finish()
                    }
                }
                if invalidation.isInvalid || status != previousStatus {
                    redraw(status: status)
                } else {
                    prompt()
                }
            case .end:
                return await screen.finish()
            }
        }
    }

    /// Runs `lines` one command at a time, printing the screen after each command that changed it.
    package func runScript<Lines: AsyncSequence>(_ lines: Lines) async where Lines.Element == String {
        var printed = draw()
        print(printed)
        do {
            for try await line in lines {
                for command in Command.parse(line) {
                    print("> \(command)")
                    let result = await screen.perform(command, settle: true)
                    if case .message(let text) = result { print(text) }
                    // The screen is drawn again after every command and compared too: a change made
                    // by another task may be visible before Observation has told `invalidation`.
                    let wasInvalid = invalidation.isInvalid
                    let current = draw()
                    if wasInvalid || current != printed {
                        print(current)
                        printed = current
                    }
                    if case .quit = result { return await screen.finish() }
                }
            }
        } catch {
            print("Could not read the commands: \(error)")
        }
        await screen.finish()
    }

    /// Draws the screen, subscribing to exactly what it read.
    private func draw() -> String {
        invalidation.reset()
        let invalidation = self.invalidation
        return withObservationTracking {
            screen.render()
        } onChange: {
            invalidation.invalidate()
        }
    }

    /// Clears the terminal and draws the screen, the status line and the prompt.
    private func redraw(status: String) {
        let text = draw()
        write("\u{1B}[H\u{1B}[2J" + text + (status.isEmpty ? "" : "\n" + status) + "\n> ")
    }

    private func prompt() {
        write("> ")
    }

    /// Writes straight to standard output. (Flushing C's buffered streams would not do: `fflush`
    /// locks every stream, stdin included, which the reading thread holds while it waits for a line.)
    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

/// What an interactive session waits for.
private enum Input: Sendable {
    case line(String)
    case end
    case redraw
}

/// Whether the screen shows stale state, and who to tell when it starts to.
private final class Invalidation: Sendable {
    private struct State {
        var isInvalid = true
        var redrawRequests: AsyncStream<Input>.Continuation?
    }

    private let state = Mutex(State())

    var isInvalid: Bool { state.withLock { $0.isInvalid } }

    func setRedrawRequests(_ continuation: AsyncStream<Input>.Continuation) {
        state.withLock { $0.redrawRequests = continuation }
    }

    func reset() {
        state.withLock { $0.isInvalid = false }
    }

    /// Called by Observation on the thread that changed the models.
    func invalidate() {
        let requests = state.withLock { state in
            state.isInvalid = true
            return state.redrawRequests
        }
        requests?.yield(.redraw)
    }
}

/// Standard input, read line by line on a thread of its own (reading blocks).
package enum StandardInput {
    /// Whether standard input is a terminal (someone typing) rather than a file or a pipe.
    package static var isTerminal: Bool { isatty(STDIN_FILENO) != 0 }

    /// Calls `deliver` with each line, then with nil at the end of the input.
    static func readLines(_ deliver: @escaping @Sendable (String?) -> Void) {
        let reader = Thread {
            while let line = readLine() { deliver(line) }
            deliver(nil)
        }
        reader.start()
    }

    /// The lines of standard input.
    package static func lines() -> AsyncStream<String> {
        let (lines, continuation) = AsyncStream<String>.makeStream()
        readLines { line in
            if let line { continuation.yield(line) } else { continuation.finish() }
        }
        return lines
    }
}
