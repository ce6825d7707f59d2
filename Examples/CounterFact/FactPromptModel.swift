import ModelKit

/// The fact shown for a count, with "get another fact" (showing a loading flag while it fetches)
/// and "dismiss".
struct FactPromptModel: Model {
    var node = ModelNode<Self>()
    /// The count the fact is about.
    let count: Int
    @Tracked private(set) var fact: String
    @Tracked private(set) var isLoading = false
    /// Asks the owner to close the prompt.
    let onDismiss: @Sendable () -> Void

    init(count: Int, fact: String, isLoading: Bool = false, onDismiss: @escaping @Sendable () -> Void) {
        self.count = count
        self.fact = fact
        self.isLoading = isLoading
        self.onDismiss = onDismiss
    }

    func dismissTapped() {
        onDismiss()
    }

    func getAnotherFactButtonTapped() {
        node.task {
            isLoading = true
            defer { isLoading = false }
            fact = try await node.factClient.fetch(count)
        } catch: { _ in }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("fact", \.$fact)
        r.track("isLoading", \.$isLoading)
    }
}
