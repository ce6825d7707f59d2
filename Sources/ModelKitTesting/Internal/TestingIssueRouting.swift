import ModelKit
import Synchronization

/// Turns ModelKit's runtime warnings into test failures while a tester is active.
enum TestingIssueRouting {
    static let activeTesters = Atomic<Int>(0)
    private static let installed = Atomic<Bool>(false)

    static func install() {
        guard !installed.exchange(true, ordering: .relaxed) else { return }
        IssueReporter.setTestingHandler { issue in
            guard activeTesters.load(ordering: .relaxed) > 0 else { return false }
            guard let location = issue.location else { return false }
            FailureRecording.record(issue.message, at: location)
            return true
        }
    }
}
