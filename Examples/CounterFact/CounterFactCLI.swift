import Foundation
import ExampleSupport
import ModelKit

/// The `CounterFact` command: parses the options, anchors ``AppModel`` and runs it in the terminal.
///
/// ```
/// CounterFact [--script "add; inc 0; fact 0; quit"] [--live [--api-url URL]] [--print-changes]
/// ```
///
/// Commands come from `--script`, else from standard input: typed at a terminal (the screen is
/// redrawn as the models change), or piped (each command is followed by the screen, when it changed).
@MainActor
enum CounterFactCLI {
    static let usage = """
        Usage: CounterFact [options]
          --script "CMD; CMD; …"   run these commands, printing the screen after each one
          --live                   fetch facts from the Numbers API (default: computed offline)
          --api-url URL            the facts service used with --live (default: http://numbersapi.com)
          --print-changes          print every change of the models' state
          --help                   show this help
        Without --script, commands are read from standard input.

        """ + AppScreen.help

    struct Options: CommandLineOptions {
        var live = false
        var apiURL = URL(string: "http://numbersapi.com")!
        var common = CommonOptions()

        init(_ arguments: [String]) throws(UsageError) {
            var arguments = ArgumentList(arguments)
            while let argument = arguments.next() {
                switch argument {
                case "--live": live = true
                case "--api-url":
                    let text = try arguments.value(of: argument)
                    guard let url = URL(string: text), url.scheme != nil else {
                        throw UsageError(
                            description: "--api-url needs a URL such as http://numbersapi.com, not \"\(text)\"."
                        )
                    }
                    apiURL = url
                default:
                    guard try common.take(argument, from: &arguments) else {
                        throw UsageError(description: "Unknown option \(argument).")
                    }
                }
            }
        }
    }

    static func main(arguments: [String]) async -> Int32 {
        let options: Options
        switch Options.parse(arguments, usage: usage) {
        case .run(let parsed): options = parsed
        case .exit(let status): return status
        }

        var app = AppModel()
        let printout = options.common.printChanges ? ChangePrintout() : nil
        if let printout { app = app._withPrintChanges { printout.print($0) } }
        // `anchor` keeps the hierarchy alive; the screen uses `app`, the same model, which does not,
        // so the callbacks it hands to rows do not keep the hierarchy alive on their own.
        let anchor = app.withAnchor {
            if options.live { $0.factClient = .numbersAPI(baseURL: options.apiURL) }
        }
        await TerminalSession(screen: AppScreen(app: app, printout: printout)).run(script: options.common.script)
        withExtendedLifetime(anchor) {}
        return 0
    }
}
