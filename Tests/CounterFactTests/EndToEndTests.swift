import ExampleTestSupport
import Foundation
import Testing

/// Runs the `CounterFact` executable in scripted mode and checks what it prints.
///
/// The executable is the one built next to the test bundle (`swift build --product CounterFact`, which
/// `swift test` does too). Each test waits for the process to exit; the app itself waits for the
/// results of asynchronous work (a fetched fact) before running the next command.
@Suite struct EndToEndTests {
    @Test func scriptedRunShowsTheCountersAndTheirSum() async throws {
        let run = try await CounterFactRun(["--script", "add; add; inc 0; inc 1; inc 1; dec 0; inc 0; quit"])

        #expect(run.status == 0)
        #expect(run.screens.count == 8)
        #expect(run.lastScreen.contains("[0]  −  1  +\n[1]  −  2  +\nSum: 3"))
        #expect(run.errors.isEmpty)
    }

    @Test func factIsShownThenReplacedThenDismissed() async throws {
        let run = try await CounterFactRun(["--script", "add; inc 0; fact 0; another; dismiss; quit"])

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

    @Test func removingARowRemovesItsCount() async throws {
        let run = try await CounterFactRun(["--script", "add; add; inc 1; inc 1; inc 0; remove 1; quit"])

        #expect(run.lastScreen.hasSuffix("[0]  −  1  +\nSum: 1"))
    }

    @Test func screenIsPrintedOnlyWhenWhatItShowsChanged() async throws {
        let run = try await CounterFactRun(["--script", "add; bogus; inc 7; dismiss; help; inc 0; quit"])

        #expect(run.screens.count == 3)
        #expect(run.output.contains("> bogus\nUnknown command \"bogus\". Type help for the commands.\n> inc 7\n"))
        #expect(run.output.contains("> dismiss\nThere is nothing to dismiss.\n"))
    }

    @Test func commandsOnStandardInputRunLikeAScript() async throws {
        let run = try await CounterFactRun([], input: "add\ninc 0; inc 0\nfact 0\n")

        #expect(run.status == 0)
        #expect(run.output.contains("> inc 0\n"))
        #expect(run.lastScreen.contains("Sum: 2\n\nFact about 2:\n  2 is a prime number."))
    }

    @Test func unreachableFactServiceShowsAnAlert() async throws {
        // Nothing listens on port 9 of the loopback interface: the connection is refused at once.
        let run = try await CounterFactRun([
            "--live", "--api-url", "http://127.0.0.1:9", "--script", "add; fact 0; dismiss; quit",
        ])

        #expect(run.status == 0)
        #expect(run.output.contains(
            "⚠ Error (row 0): Couldn't load fact. The network is unreachable: could not connect to 127.0.0.1"
        ))
        #expect(!run.lastScreen.contains("⚠"))
    }

    @Test func printChangesPrintsEachStateChange() async throws {
        let run = try await CounterFactRun(["--print-changes", "--script", "add; inc 0; inc 0; quit"])

        #expect(run.output.contains("AppModel.counters[0].counter.count: 0 → 1\n"))
        #expect(run.output.contains("AppModel.counters[0].counter.count: 1 → 2\n"))
    }

    @Test func printedChangesOfAFetchedFactComeBeforeTheNextCommand() async throws {
        // The fact is written by a task; its printed diff used to come, now and then, after the next
        // command's prompt. Several rounds make a misplaced one likely to show.
        let rounds = 6
        let script = "add; " + Array(repeating: "fact 0; inc 0", count: rounds).joined(separator: "; ")
            + "; another; quit"
        let run = try await CounterFactRun(["--print-changes", "--script", script])

        let lines = run.output.split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("> ") || $0.hasPrefix("AppModel.") }
        var expected = ["> add", "AppModel.counters:"]
        for round in 0..<rounds {
            expected += ["> fact 0", "AppModel.factPrompt:"]
            expected += ["> inc 0", "AppModel.counters[0].counter.count: \(round) → \(round + 1)"]
        }
        expected += ["> another", "AppModel.factPrompt.isLoading: false → true"]
        #expect(Array(lines.prefix(expected.count)) == expected)
        let last = Array(lines.suffix(3))
        #expect(last.count == 3 && last[0].hasPrefix("AppModel.factPrompt.fact: "), "\(last)")
        #expect(last.dropFirst() == ["AppModel.factPrompt.isLoading: true → false", "> quit"])
    }

    @Test func unknownOptionIsReportedWithTheUsage() async throws {
        let run = try await CounterFactRun(["--bogus"])

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
    init(_ arguments: [String], input: String = "") async throws {
        let run = try await ExecutableRun.run("CounterFact", arguments, input: input)
        self.status = run.status
        self.output = run.output
        self.errors = run.errors
    }
}
