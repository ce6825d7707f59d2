/// What a tester provides to the hierarchy it anchors: where reports go, and a signal when work ends.
/// The presence of a `TestingSupport` also switches dependencies to their test values.
package final class TestingSupport: Sendable {
    private let issueHandler: @Sendable (ModelIssue) -> Bool
    private let workHandler: @Sendable () -> Void

    package init(
        reportIssue: @escaping @Sendable (ModelIssue) -> Bool,
        workDidFinish: @escaping @Sendable () -> Void
    ) {
        self.issueHandler = reportIssue
        self.workHandler = workDidFinish
    }

    /// Returns true when the tester took the report.
    func reportIssue(_ issue: ModelIssue) -> Bool {
        issueHandler(issue)
    }

    func workDidFinish() {
        workHandler()
    }
}
