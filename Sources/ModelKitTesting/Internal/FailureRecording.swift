import Foundation
import ModelKit
import Synchronization
import Testing
import XCTest

/// Sends a test failure to the framework running the test: Swift Testing when a `@Test` is running,
/// XCTest inside an XCTest run, and otherwise (a command-line harness) standard error, counted in
/// ``Tester/failuresOutsideTestFrameworks``. This is the only file of ModelKit's sources that imports
/// a test framework.
enum FailureRecording {
    /// Whether a Swift Testing test is running on this task.
    static var isSwiftTestingRunning: Bool {
        Test.current != nil
    }

    /// Identifies the running test: the Swift Testing test of this task, or "XCTest" outside one.
    static var currentTestKey: String {
        Test.current.map { String(describing: $0.id) } ?? "XCTest"
    }

    /// The name of the Swift Testing test running on this task (`incrementing()`), if any.
    static var currentTestName: String? {
        Test.current.map { $0.displayName ?? $0.name }
    }

    /// Whether this process is an XCTest runner (`swift test`'s test bundle, or Xcode's `xctest`).
    static let isXCTestProcess: Bool = {
        let executable = CommandLine.arguments.first ?? ""
        return executable.hasSuffix(".xctest") || executable.hasSuffix("/xctest")
    }()

    static let standaloneFailures = Atomic<Int>(0)

    static func record(_ message: String, at location: ModelKit.SourceLocation) {
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: Testing.SourceLocation(
                    fileID: location.fileID, filePath: location.filePath,
                    line: Int(location.line), column: Int(location.column)
                )
            )
        } else if isXCTestProcess {
            XCTFail(message, file: location.filePathStatic, line: location.line)
        } else {
            // Neither framework is running (a command-line harness): XCTFail would drop the failure.
            standaloneFailures.add(1, ordering: .relaxed)
            let text = "\(location.fileID):\(location.line): error: \(message)\n"
            FileHandle.standardError.write(Data(text.utf8))
        }
    }
}

extension FailureRecording {
    /// Records a failure and throws the error by which the framework knows it is already recorded:
    /// `#require`'s under Swift Testing, `XCTUnwrap`'s under XCTest; elsewhere an ``UnwrapError``
    /// after writing the failure to standard error.
    static func recordThrowing(_ message: String, at location: ModelKit.SourceLocation) throws -> Never {
        let unwrapped: Int? = nil
        if Test.current != nil {
            _ = try #require(
                unwrapped, Comment(rawValue: message),
                sourceLocation: Testing.SourceLocation(
                    fileID: location.fileID, filePath: location.filePath,
                    line: Int(location.line), column: Int(location.column)
                )
            )
        } else if isXCTestProcess {
            _ = try XCTUnwrap(unwrapped, message, file: location.filePathStatic, line: location.line)
        } else {
            record(message, at: location)
        }
        throw UnwrapError(description: message)
    }
}

extension Tester {
    /// How many failures were reported while no test framework was running (a command-line harness
    /// driving testers): they are written to standard error, and counted here so that the harness
    /// can exit with a failure status.
    ///
    /// ```swift
    /// await runAllScenarios()
    /// exit(Tester.failuresOutsideTestFrameworks == 0 ? 0 : 1)
    /// ```
    public static var failuresOutsideTestFrameworks: Int {
        FailureRecording.standaloneFailures.load(ordering: .relaxed)
    }
}
