import ModelKit

/// A row of the counters list: a ``CounterModel`` and a way to remove the row.
///
/// The row does not remove itself: it asks its owner through `onRemove`, which ``AppModel`` wires to
/// removing the row from its `counters`.
struct CounterRowModel: Model {
    var node = ModelNode<Self>()
    @Tracked private(set) var counter: CounterModel
    /// Asks the owner to remove this row.
    let onRemove: @Sendable (Self) -> Void

    init(counter: CounterModel, onRemove: @escaping @Sendable (Self) -> Void) {
        self.counter = counter
        self.onRemove = onRemove
    }

    func removeButtonTapped() {
        onRemove(self)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("counter", \.$counter)
    }
}
