import ModelKit
import Synchronization

/// Turns ModelKit's runtime warnings into test failures while a tester is active in the running
/// test. Reports from a hierarchy under a tester go to that tester directly; this routes the others
/// (a `node` API used on an initial model, say), for the test whose task reports them.
enum TestingIssueRouting {
    private static let installed = Atomic<Bool>(false)
    /// The tests (by `FailureRecording.currentTestKey`) with active testers: how many, and where
    /// the first was created (reports without a call site are shown there).
    private static let activeTests = Protected<[String: (count: Int, location: SourceLocation)]>([:])

    static func install() {
        guard !installed.exchange(true, ordering: .relaxed) else { return }
        XCTestCaseTracking.startObserving()
        IssueReporter.setTestingHandler { issue in
            let key = FailureRecording.currentTestKey
            guard let active = activeTests.withLock({ $0[key] }), active.count > 0 else { return false }
            FailureRecording.record(issue.message, at: issue.location ?? active.location)
            return true
        }
    }

    /// Registers a tester of the running test; returns the key to pass to ``testerEnded(_:)``.
    static func testerStarted(at location: SourceLocation) -> String {
        let key = FailureRecording.currentTestKey
        activeTests.withLock { tests in
            if let existing = tests[key] {
                tests[key] = (existing.count + 1, existing.location)
            } else {
                tests[key] = (1, location)
            }
        }
        return key
    }

    static func testerEnded(_ key: String) {
        activeTests.withLock { tests in
            guard let existing = tests[key] else { return }
            tests[key] = existing.count > 1 ? (existing.count - 1, existing.location) : nil
        }
    }
}
