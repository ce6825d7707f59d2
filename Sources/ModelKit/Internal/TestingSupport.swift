/// What a tester provides to the hierarchy it anchors: where reports go, and a signal when work ends.
/// The presence of a `TestingSupport` also switches dependencies to their test values.
package final class TestingSupport: Sendable {
    private let issueHandler: @Sendable (ModelIssue) -> Bool
    private let workHandler: @Sendable () -> Void
    /// The tester's own state, for looking it up from a model (`didSend`).
    package let owner: any Sendable

    package init(
        owner: any Sendable,
        reportIssue: @escaping @Sendable (ModelIssue) -> Bool,
        workDidFinish: @escaping @Sendable () -> Void
    ) {
        self.owner = owner
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
