import Foundation
import Testing

/// Runs the `CounterFact` executable in scripted mode and checks what it prints.
///
/// The executable is the one built next to the test bundle (`swift build --product CounterFact`, which
/// `swift test` does too). Each test waits for the process to exit; the app itself waits for the
/// results of asynchronous work (a fetched fact) before running the next command.
@Suite struct EndToEndTests {
    @Test func scriptedRunShowsTheCountersAndTheirSum() throws {
        let run = try CounterFactRun(["--script", "add; add; inc 0; inc 1; inc 1; dec 0; inc 0; quit"])

        #expect(run.status == 0)
        #expect(run.screens.count == 8)
        #expect(run.lastScreen.contains("[0]  −  1  +\n[1]  −  2  +\nSum: 3"))
        #expect(run.errors.isEmpty)
    }

    @Test func factIsShownThenReplacedThenDismissed() throws {
        let run = try CounterFactRun(["--script", "add; inc 0; fact 0; another; dismiss; quit"])

        #expect(run.status == 0)
        #expect(run.output.contains("""
            > fact 0
            CounterFact
            ───────────
            [0]  −  1  +
            Sum: 1

            Fact about 1:
              1 is neither prime nor composite: its only divisor is itself.
            """))
        #expect(run.output.contains("""
            > another
            CounterFact
            ───────────
            [0]  −  1  +
            Sum: 1

            Fact about 1:
              1 has 1 divisor (1); its proper divisors add up to 0, so it is deficient.
            """))
        #expect(!run.lastScreen.contains("Fact about"))
    }

    @Test func removingARowRemovesItsCount() throws {
        let run = try CounterFactRun(["--script", "add; add; inc 1; inc 1; inc 0; remove 1; quit"])

        #expect(run.lastScreen.hasSuffix("[0]  −  1  +\nSum: 1"))
    }

    @Test func screenIsPrintedOnlyWhenWhatItShowsChanged() throws {
        let run = try CounterFactRun(["--script", "add; bogus; inc 7; dismiss; help; inc 0; quit"])

        #expect(run.screens.count == 3)
        #expect(run.output.contains("> bogus\nUnknown command \"bogus\". Type help for the commands.\n> inc 7\n"))
        #expect(run.output.contains("> dismiss\nThere is nothing to dismiss.\n"))
    }

    @Test func commandsOnStandardInputRunLikeAScript() throws {
        let run = try CounterFactRun([], input: "add\ninc 0; inc 0\nfact 0\n")

        #expect(run.status == 0)
        #expect(run.output.contains("> inc 0\n"))
        #expect(run.lastScreen.contains("Sum: 2\n\nFact about 2:\n  2 is a prime number."))
    }

    @Test func unreachableFactServiceShowsAnAlert() throws {
        // Nothing listens on port 9 of the loopback interface: the connection is refused at once.
        let run = try CounterFactRun([
            "--live", "--api-url", "http://127.0.0.1:9", "--script", "add; fact 0; dismiss; quit",
        ])

        #expect(run.status == 0)
        #expect(run.output.contains(
            "⚠ Error (row 0): Couldn't load fact. The network is unreachable: could not connect to 127.0.0.1"
        ))
        #expect(!run.lastScreen.contains("⚠"))
    }

    @Test func printChangesPrintsEachStateChange() throws {
        let run = try CounterFactRun(["--print-changes", "--script", "add; inc 0; inc 0; quit"])

        #expect(run.output.contains("AppModel.counters[0].counter.count: 0 → 1\n"))
        #expect(run.output.contains("AppModel.counters[0].counter.count: 1 → 2\n"))
    }

    @Test func unknownOptionIsReportedWithTheUsage() throws {
        let run = try CounterFactRun(["--bogus"])

        #expect(run.status == 2)
        #expect(run.errors.hasPrefix("Unknown option --bogus.\n\nUsage: CounterFact [options]"))
    }
}

/// One finished run of the `CounterFact` executable.
struct CounterFactRun {
    let status: Int32
    let output: String
    let errors: String

    /// The screens printed, in order (each starts with the app's title).
    var screens: [Substring] {
        output.split(separator: "> ").compactMap { chunk in
            chunk.range(of: "CounterFact\n───").map { chunk[$0.lowerBound...] }
        }
    }

    /// The last screen printed, without the trailing newline.
    var lastScreen: String {
        String(screens.last ?? "").trimmingCharacters(in: .newlines)
    }

    /// Runs the executable with `arguments`, `input` as its standard input, and waits for it to exit.
    init(_ arguments: [String], input: String = "") throws {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        let standardInput = Pipe()
        let standardOutput = Pipe()
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("CounterFact-\(UUID()).stderr")
        try Data().write(to: errorsFile)
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        let standardError = try FileHandle(forWritingTo: errorsFile)
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        // A hung app would hang the test run: stop it after a minute (its own waits are shorter).
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        standardInput.fileHandleForWriting.write(Data(input.utf8))
        try standardInput.fileHandleForWriting.close()
        // Reading to the end first: the process cannot block on a full pipe while we wait for it.
        let output = standardOutput.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try standardError.close()
        self.status = process.terminationStatus
        self.output = String(decoding: output, as: UTF8.self)
        self.errors = try String(contentsOf: errorsFile, encoding: .utf8)
    }

    /// The `CounterFact` executable in the build directory holding this test bundle.
    static func executable() throws -> URL {
        let starts = [URL(fileURLWithPath: CommandLine.arguments[0])]
            + Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        for start in starts {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            while directory.pathComponents.count > 1 {
                let candidate = directory.appendingPathComponent("CounterFact")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory.deleteLastPathComponent()
            }
        }
        throw MissingExecutable()
    }

    struct MissingExecutable: Error, CustomStringConvertible {
        let description = "No CounterFact executable next to the tests: `swift build --product CounterFact`."
    }
}
