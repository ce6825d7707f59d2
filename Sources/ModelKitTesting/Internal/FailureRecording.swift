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
        if Test.current != nil || isOutsideXCTestCases {
            // Outside a test (a tester made in a detached task of a `@Test`, which has no current
            // test), Swift Testing still records the issue, for the run: XCTFail would drop it.
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
        if isOutsideXCTestCases {
            record(message, at: location)
            throw UnwrapError(description: message)
        }
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


extension FailureRecording {
    /// Whether this is an XCTest process in which no XCTest test case is running now, and no Swift
    /// Testing test on this task: XCTest drops a failure recorded then (a tester made in a detached
    /// task of a `@Test`, which has no current test, during the Swift Testing part of the run).
    static var isOutsideXCTestCases: Bool {
        isXCTestProcess && Test.current == nil && XCTestCaseTracking.isTestCaseRunning == false
    }
}

/// Follows XCTest's test cases (through its observation center) to know whether one is running, and
/// ends, at the teardown of each, the testers created during it and still alive: a test case that
/// keeps its tester in a property (made in `setUp`) and never calls `finish()` releases it only
/// when XCTest releases the test case, after the whole run, when no test is there to fail.
enum XCTestCaseTracking {
    private struct State: Sendable {
        var isObserving = false
        /// Whether a test case is running: nil until the first start or end seen, when the
        /// observation began without a Swift Testing test on the task (maybe inside a test case).
        var isTestCaseRunning: Bool?
        /// The testers created outside a Swift Testing test since the running test case started.
        var testers: [WeakTester] = []
    }

    private struct WeakTester: Sendable {
        weak var tester: Tester?
    }

    private static let state = Protected(State())

    static var isTestCaseRunning: Bool? {
        state.withLock { $0.isTestCaseRunning }
    }

    /// Starts following XCTest's test cases, in an XCTest process, once.
    static func startObserving() {
        guard FailureRecording.isXCTestProcess else { return }
        let isNew = state.withLock { state -> Bool in
            guard !state.isObserving else { return false }
            state.isObserving = true
            state.isTestCaseRunning = Test.current != nil ? false : nil
            return true
        }
        if isNew { XCTestObservationCenter.shared.addTestObserver(Observer()) }
    }

    /// Notes a tester made outside a Swift Testing test, to end at the running test case's teardown.
    static func add(_ tester: Tester) {
        guard FailureRecording.isXCTestProcess, Test.current == nil else { return }
        state.withLock { $0.testers.append(WeakTester(tester: tester)) }
    }

    fileprivate static func testCaseWillStart() {
        state.withLock { state in
            state.isTestCaseRunning = true
            state.testers = []
        }
    }

    fileprivate static func testCaseDidFinish() {
        state.withLock { $0.isTestCaseRunning = false }
    }

    /// Ends the testers of the test case that is ending and still alive, as their release would.
    fileprivate static func endTesters() {
        let testers = state.withLock { state in
            defer { state.testers = [] }
            return state.testers.compactMap(\.tester)
        }
        for tester in testers { tester.endAtTestCaseTeardown() }
    }

    private final class Observer: NSObject, XCTestObservation {
        func testCaseWillStart(_ testCase: XCTestCase) {
            XCTestCaseTracking.testCaseWillStart()
            testCase.addTeardownBlock { XCTestCaseTracking.endTesters() }
        }

        func testCaseDidFinish(_ testCase: XCTestCase) {
            XCTestCaseTracking.testCaseDidFinish()
        }
    }
}
