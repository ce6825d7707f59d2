import Foundation

/// A place in source code, captured at a public call site.
package struct SourceLocation: Sendable, CustomStringConvertible {
    package let fileIDStatic: StaticString
    package let filePathStatic: StaticString
    package let line: UInt
    package let column: UInt

    package init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        self.fileIDStatic = fileID
        self.filePathStatic = filePath
        self.line = line
        self.column = column
    }

    package var fileID: String { "\(fileIDStatic)" }
    package var filePath: String { "\(filePathStatic)" }

    package var description: String { "\(fileID):\(line)" }
}

/// A misuse of the API or a failure ModelKit reports: what happened, and how to fix it.
package struct ModelIssue: Sendable, CustomStringConvertible {
    /// One line naming the model and property involved.
    package let summary: String
    /// One to three concrete ways to fix it.
    package let fixes: [String]
    package let location: SourceLocation?

    package init(_ summary: String, fixes: [String] = [], location: SourceLocation? = nil) {
        self.summary = summary
        self.fixes = fixes
        self.location = location
    }

    package init(
        _ summary: String, fixes: [String] = [],
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) {
        self.init(summary, fixes: fixes, location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// The full text: the summary, a blank line, then "To fix" with the options.
    package var message: String {
        guard !fixes.isEmpty else { return summary }
        if fixes.count == 1 {
            return "\(summary)\n\nTo fix: \(fixes[0])"
        }
        return "\(summary)\n\nTo fix, either:\n" + fixes.map { "  • \($0)" }.joined(separator: "\n")
    }

    package var description: String { message }
}

/// Where reports go. ModelKitTesting installs a handler that turns them into test failures while a
/// test runs; otherwise they are runtime warnings on standard error.
package enum IssueReporter {
    /// Returns true when it handled the issue.
    package typealias Handler = @Sendable (ModelIssue) -> Bool

    private static let handler = Protected<Handler?>(nil)
    private static let testingHandler = Protected<Handler?>(nil)

    /// Sets the primary handler (tools and tests capturing reports), asked first.
    package static func setHandler(_ newHandler: Handler?) {
        handler.withLock { $0 = newHandler }
    }

    /// Sets ModelKitTesting's handler, asked after the primary one.
    package static func setTestingHandler(_ newHandler: Handler?) {
        testingHandler.withLock { $0 = newHandler }
    }

    static func report(_ issue: ModelIssue) {
        if let handler = handler.withLock({ $0 }), handler(issue) { return }
        if let handler = testingHandler.withLock({ $0 }), handler(issue) { return }
        writeWarning(issue)
    }

    private static func writeWarning(_ issue: ModelIssue) {
        let prefix = issue.location.map { "\($0.fileID):\($0.line): " } ?? ""
        let text = "\(prefix)ModelKit warning: \(issue.message)\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// The one entry point for reporting misuse and unhandled failures.
func reportIssue(_ issue: ModelIssue) {
    IssueReporter.report(issue)
}
