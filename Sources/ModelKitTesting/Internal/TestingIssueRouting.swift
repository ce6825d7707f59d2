import ModelKit
import Synchronization

/// Turns ModelKit's runtime warnings into test failures while a tester is active in the running
/// test. Reports from a hierarchy under a tester go to that tester directly; this routes the others
/// (a `node` API used on an initial model, say), for the test whose task reports them.
enum TestingIssueRouting {
    private static let installed = Atomic<Bool>(false)
    /// The tests (by `FailureRecording.currentTestKey`) with active testers, and how many each.
    private static let activeTests = Protected<[String: Int]>([:])

    static func install() {
        guard !installed.exchange(true, ordering: .relaxed) else { return }
        IssueReporter.setTestingHandler { issue in
            let key = FailureRecording.currentTestKey
            guard activeTests.withLock({ ($0[key] ?? 0) > 0 }) else { return false }
            guard let location = issue.location else { return false }
            FailureRecording.record(issue.message, at: location)
            return true
        }
    }

    /// Registers a tester of the running test; returns the key to pass to ``testerEnded(_:)``.
    static func testerStarted() -> String {
        let key = FailureRecording.currentTestKey
        activeTests.withLock { $0[key, default: 0] += 1 }
        return key
    }

    static func testerEnded(_ key: String) {
        activeTests.withLock { tests in
            tests[key, default: 1] -= 1
            if tests[key] == 0 { tests[key] = nil }
        }
    }
}
