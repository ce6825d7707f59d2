import ModelKit

/// One counter: its count, buttons to change it, and a "fact" button that asks ``FactClient`` for a
/// fact about the count.
///
/// The fact itself is not shown here: it goes to whoever created the counter, through `onFact`. When
/// fetching fails, the counter shows an ``Alert``.
///
/// ```swift
/// let counter = CounterModel(count: 2) { count, fact in print(fact) }
/// ```
struct CounterModel: Model {
    /// An alert shown over the counter: a model held in an optional, so it is a child of the counter.
    struct Alert: Model {
        var node = ModelNode<Self>()
        @Tracked var message: String
        @Tracked var title: String

        init(message: String, title: String) {
            self.message = message
            self.title = title
        }

        static func register(_ r: inout ModelRegistrar<Self>) {
            r.track("message", \.$message)
            r.track("title", \.$title)
        }
    }

    var node = ModelNode<Self>()
    @Tracked fileprivate(set) var alert: Alert?
    @Tracked private(set) var count: Int
    /// Receives the count and the fact fetched for it.
    let onFact: @Sendable (Int, String) -> Void

    init(alert: Alert? = nil, count: Int = 0, onFact: @escaping @Sendable (Int, String) -> Void) {
        self.alert = alert
        self.count = count
        self.onFact = onFact
    }

    func decrementTapped() {
        count -= 1
    }

    func incrementTapped() {
        count += 1
    }

    func factButtonTapped() {
        node.task {
            onFact(count, try await node.factClient.fetch(count))
        } catch: { error in
            alert = Alert(message: Self.failureMessage(for: error), title: "Error")
        }
    }

    /// Closes the alert (what a dialog's OK button does).
    func alertDismissed() {
        alert = nil
    }

    /// "Couldn't load fact.", followed by the reason when the error describes itself.
    private static func failureMessage(for error: any Error) -> String {
        guard let reason = (error as? FactClientError)?.description else { return "Couldn't load fact." }
        return "Couldn't load fact. \(reason)"
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("alert", \.$alert)
        r.track("count", \.$count)
    }
}
