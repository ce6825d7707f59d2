/// The arguments of a command line, taken one at a time by an option parser.
///
/// ```swift
/// var arguments = ArgumentList(CommandLine.arguments.dropFirst())
/// while let argument = arguments.next() {
///     switch argument {
///     case "--script": script = try arguments.value(of: argument)
///     default: throw UsageError(description: "Unknown option \(argument).")
///     }
/// }
/// ```
package struct ArgumentList {
    private var remaining: ArraySlice<String>

    package init<Arguments: Collection<String>>(_ arguments: Arguments) {
        remaining = ArraySlice(arguments)
    }

    /// The next argument, or nil after the last.
    package mutating func next() -> String? {
        remaining.popFirst()
    }

    /// The argument after `option`, which is its value.
    package mutating func value(of option: String) throws(UsageError) -> String {
        guard let value = remaining.popFirst() else {
            throw UsageError(description: "\(option) needs a value.")
        }
        return value
    }
}

/// A command line the program cannot run, and why (shown above the usage).
package struct UsageError: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}
