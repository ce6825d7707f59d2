/// What a tester provides to the hierarchy it anchors: where reports go, and a signal when work ends.
/// The presence of a `TestingSupport` also switches dependencies to their test values.
package final class TestingSupport: Sendable {
    private let issueHandler: @Sendable (ModelIssue) -> Bool
    private let workHandler: @Sendable () -> Void
    /// The tester's own state, for looking it up from a model (`didSend`).
    package let owner: any Sendable
    /// Where the hierarchy's tasks run, so that the tester knows when none of them can run (nil: the
    /// global concurrent executor, as without a tester).
    package let taskExecutor: (any TaskExecutor)?

    package init(
        owner: any Sendable,
        taskExecutor: (any TaskExecutor)? = nil,
        reportIssue: @escaping @Sendable (ModelIssue) -> Bool,
        workDidFinish: @escaping @Sendable () -> Void
    ) {
        self.owner = owner
        self.taskExecutor = taskExecutor
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

extension TestingSupport {
    /// The task executor of the tested hierarchy whose work is running on this task, for the helper
    /// tasks that work starts (`forEach(cancelPrevious:)`, `debounce`): unstructured tasks do not
    /// inherit an executor preference. Nil outside a tester.
    static var currentTaskExecutor: (any TaskExecutor)? {
        CurrentWork.owner?.hierarchy.testing?.taskExecutor
    }
}
