import Foundation
import ExampleSupport
import ModelKit

/// The `Standups` command: parses the options, anchors ``AppFeature`` and runs it in the terminal.
///
/// ```
/// Standups [--script "add; title Daily; attendee Ana; save; quit"] [--data PATH] [--speech STATUS]
///          [--print-changes]
/// ```
///
/// Commands come from `--script`, else from standard input: typed at a terminal (the screen is
/// redrawn as the models change), or piped (each command is followed by the screen, when it changed).
/// Quitting saves changes not saved yet; when they cannot be saved, it says why on standard error
/// and exits with status 1.
@MainActor
enum StandupsCLI {
    static let usage = """
        Usage: Standups [options]
          --script "CMD; CMD; …"   run these commands, printing the screen after each one
          --data PATH              the JSON file of the standups (default: \(URL.standups.path))
          --speech STATUS          speech recognition's authorization at launch: notDetermined (the
                                   default; starting a meeting grants it), authorized, denied, restricted
          --print-changes          print every change of the models' state
          --help                   show this help
        Without --script, commands are read from standard input.

        """ + StandupsScreen.help

    struct Options: CommandLineOptions {
        var dataFile: URL?
        var speech = SpeechAuthorizationStatus.notDetermined
        var common = CommonOptions()

        init(_ arguments: [String]) throws(UsageError) {
            var arguments = ArgumentList(arguments)
            while let argument = arguments.next() {
                switch argument {
                case "--data":
                    let file = URL(fileURLWithPath: try arguments.value(of: argument))
                    // A folder is never a standups file: offering to move it aside, as an unreadable
                    // file is, would rename the user's folder.
                    var isFolder: ObjCBool = false
                    if FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), isFolder.boolValue {
                        let inside = file.appendingPathComponent("standups.json").path
                        throw UsageError(description: """
                            --data needs the path of a file; \(file.path) is a folder. To keep the standups \
                            in it, give \(inside).
                            """)
                    }
                    dataFile = file
                case "--speech":
                    let text = try arguments.value(of: argument)
                    guard let status = SpeechAuthorizationStatus(rawValue: text) else {
                        let statuses = SpeechAuthorizationStatus.allCases.map(\.rawValue).joined(separator: ", ")
                        throw UsageError(description: "--speech takes one of \(statuses), not \"\(text)\".")
                    }
                    speech = status
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

        let speech = TypedSpeech(status: options.speech)
        var app = AppFeature()
        let printout = options.common.printChanges ? ChangePrintout() : nil
        if let printout { app = app._withPrintChanges { printout.print($0) } }
        // `anchor` keeps the hierarchy alive; the screen uses `app`, the same model, which does not.
        let anchor = app.withAnchor {
            $0.speechClient = speech.client
            if let file = options.dataFile { $0.standupsFile = file }
        }
        await TerminalSession(screen: StandupsScreen(app: app, speech: speech, printout: printout)).run(script: options.common.script)
        let status: Int32
        do {
            try await app.saveChanges()
            status = 0
        } catch {
            let message = "\(error)\nStandups quit without saving your latest changes.\n"
            FileHandle.standardError.write(Data(message.utf8))
            status = 1
        }
        // Tear the app down (cancelling a debounced save) and let a save already writing finish:
        // exiting in the middle of a write would leave its temporary file behind.
        withExtendedLifetime(anchor) {}
        DataManager.finishLiveWrites()
        return status
    }
}
