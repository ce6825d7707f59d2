#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line: how long to measure, which scenarios, where to write JSON.
struct Configuration {
    /// Fewer rounds and shorter samples, for CI.
    var quick = false
    /// Rounds per scenario; each variant's reported value is the median of its rounds.
    var rounds = 9
    /// How long one sample should last after calibration.
    var sampleTime: Duration = .milliseconds(40)
    /// Only scenarios whose name contains this (case-insensitive); "scenario / row" also narrows the
    /// rows, to profile one of them.
    var filter: String?
    var jsonPath: String?
    /// A fixed iteration count instead of calibration (for profiling runs).
    var iterations: Int?

    static let usage = """
        usage: ModelKitBenchmarks [--quick] [--filter SUBSTRING] [--json PATH] [--rounds N] [--iterations N]

          --quick              fewer rounds and shorter samples (CI; under 30 s)
          --filter SUBSTRING   run only the scenarios whose name contains SUBSTRING;
                               "SCENARIO / ROW" also keeps only the rows whose name contains ROW
                               (or, with a trailing "$", whose name is ROW)
          --json PATH          also write the results as JSON to PATH
          --rounds N           interleaved rounds per scenario (default 9, quick 3)
          --iterations N       N iterations per sample instead of calibrating: for profilers, e.g.
                               valgrind --tool=callgrind ModelKitBenchmarks --rounds 1 \\
                                   --filter "tracked write / ModelKit" --iterations 100000
        """

    /// Parses the arguments; prints the usage and exits on `--help` or a malformed command line.
    static func parse(_ arguments: [String]) -> Configuration {
        var configuration = Configuration()
        var rounds: Int?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick":
                configuration.quick = true
                configuration.rounds = 3
                configuration.sampleTime = .milliseconds(4)
            case "--filter":
                guard let value = remaining.popFirst() else { fail("--filter needs a SUBSTRING") }
                configuration.filter = value
            case "--json":
                guard let value = remaining.popFirst() else { fail("--json needs a PATH") }
                configuration.jsonPath = value
            case "--rounds":
                rounds = positive(remaining.popFirst(), for: argument)
            case "--iterations":
                configuration.iterations = positive(remaining.popFirst(), for: argument)
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                fail("unknown argument \(argument)")
            }
        }
        if let rounds { configuration.rounds = rounds }
        return configuration
    }

    private static func positive(_ value: String?, for option: String) -> Int {
        guard let value, let number = Int(value), number > 0 else { fail("\(option) needs a positive number") }
        return number
    }

    /// Whether the filter selects the scenario: its name contains the filter, or the part of a
    /// "scenario / row" filter before the slash.
    func includes(scenario: String) -> Bool {
        guard let filter, !filter.isEmpty else { return true }
        let scenarioPart = filter.firstRange(of: " / ").map { filter[..<$0.lowerBound] } ?? filter[...]
        return scenario.lowercased().contains(scenarioPart.lowercased())
    }

    /// Whether the filter selects a row of a selected scenario: any row, unless the filter has a
    /// "/ row" part, which the row's name must contain.
    func includes(row: String) -> Bool {
        guard let filter, let slash = filter.firstRange(of: " / ") else { return true }
        let rowPart = filter[slash.upperBound...].lowercased()
        // A trailing "$" asks for the whole row name ("… / ModelKit: 1,000 children$" keeps the
        // default-id row without its " (Int id)" and " (UUID id)" siblings).
        if rowPart.hasSuffix("$") { return row.lowercased() == rowPart.dropLast() }
        return row.lowercased().contains(rowPart)
    }

    /// A description of the run for the report's header.
    var summary: String {
        let mode = quick ? "quick" : "full"
        let samples = iterations.map { "\($0) iterations per sample" } ?? "samples of ~\(Int(sampleTime.nanoseconds / 1e6)) ms"
        return "\(mode) run: \(rounds) interleaved rounds per scenario, \(samples), median reported"
    }

    private static func fail(_ message: String) -> Never {
        printError("ModelKitBenchmarks: \(message)\n\n\(usage)")
        exit(2)
    }
}

/// Writes a line to standard error (progress and diagnostics, kept out of the table).
func printError(_ message: String) {
    let line = message + "\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
