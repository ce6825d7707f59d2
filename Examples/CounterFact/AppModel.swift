import ModelKit

/// The root of CounterFact: a list of counter rows, their sum, and the fact prompt shown when a
/// counter's fact arrives.
///
/// The callbacks of each row are wired here: a counter's `onFact` opens the fact prompt, a row's
/// `onRemove` removes it. They capture `self`, a struct sharing this model's state, so no retain
/// cycle keeps a removed row alive.
///
/// ```swift
/// let app = AppModel().withAnchor()
/// app.addButtonTapped()
/// app.counters[0].counter.incrementTapped()
/// print(app.sum)   // 1
/// ```
struct AppModel: Model {
    var node = ModelNode<Self>()
    @Tracked private(set) var counters: [CounterRowModel] = []
    @Tracked private(set) var factPrompt: FactPromptModel?

    init(counters: [CounterRowModel] = [], factPrompt: FactPromptModel? = nil) {
        self.counters = counters
        self.factPrompt = factPrompt
    }

    /// The sum of all counts.
    var sum: Int {
        counters.reduce(0) { $0 + $1.counter.count }
    }

    func addButtonTapped() {
        counters.append(CounterRowModel(
            counter: CounterModel(onFact: { count, fact in
                factPrompt = FactPromptModel(count: count, fact: fact, onDismiss: { factPrompt = nil })
            }),
            onRemove: { row in
                counters.removeAll { $0.id == row.id }
            }
        ))
    }

    func factDismissTapped() {
        factPrompt = nil
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("counters", \.$counters)
        r.track("factPrompt", \.$factPrompt)
    }
}
