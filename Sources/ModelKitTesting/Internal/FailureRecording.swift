import ModelKit
import Testing
import XCTest

/// Sends a test failure to the framework running the test: Swift Testing when a `@Test` is running,
/// otherwise XCTest. This is the only file of ModelKit's sources that imports a test framework.
enum FailureRecording {
    /// Whether a Swift Testing test is running on this task.
    static var isSwiftTestingRunning: Bool {
        Test.current != nil
    }

    /// Identifies the running test: the Swift Testing test of this task, or "XCTest" outside one.
    static var currentTestKey: String {
        Test.current.map { String(describing: $0.id) } ?? "XCTest"
    }

    static func record(_ message: String, at location: ModelKit.SourceLocation) {
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: Testing.SourceLocation(
                    fileID: location.fileID, filePath: location.filePath,
                    line: Int(location.line), column: Int(location.column)
                )
            )
        } else {
            XCTFail(message, file: location.filePathStatic, line: location.line)
        }
    }
}
