import Foundation

/// The options of an example's command line, parsed before it runs.
///
/// ```swift
/// let options: Options
/// switch Options.parse(arguments, usage: usage) {
/// case .run(let parsed): options = parsed
/// case .exit(let status): return status
/// }
/// ```
package protocol CommandLineOptions {
    init(_ arguments: [String]) throws(UsageError)
    /// The options every example takes (`--help` among them).
    var common: CommonOptions { get }
}

/// The options both examples take: `--script`, `--print-changes` and `--help`.
///
/// ```swift
/// default:
///     guard try common.take(argument, from: &arguments) else {
///         throw UsageError(description: "Unknown option \(argument).")
///     }
/// ```
package struct CommonOptions {
    /// Commands to run instead of reading standard input.
    package var script: String?
    package var printChanges = false
    /// `--help` was given: print the usage and stop.
    package var showHelp = false

    package init() {}

    /// Takes `argument`, and its value, if it is one of the common options; false if it is not.
    package mutating func take(_ argument: String, from arguments: inout ArgumentList) throws(UsageError) -> Bool {
        switch argument {
        case "--script": script = try arguments.value(of: argument)
        case "--print-changes": printChanges = true
        case "--help", "-h": showHelp = true
        default: return false
        }
        return true
    }
}

/// What a command line asks for: a run with these options, or to stop at once with a status.
package enum ParsedCommandLine<Options> {
    case run(Options)
    case exit(Int32)
}

extension CommandLineOptions {
    /// The options in `arguments`, or the end of the program: after saying what is wrong and showing
    /// `usage` on standard error (status 2), or after printing `usage` for `--help` (status 0).
    package static func parse(_ arguments: [String], usage: String) -> ParsedCommandLine<Self> {
        let options: Self
        do {
            options = try Self(arguments)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n\n\(usage)\n".utf8))
            return .exit(2)
        }
        if options.common.showHelp {
            print(usage)
            return .exit(0)
        }
        return .run(options)
    }
}
