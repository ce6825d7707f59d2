/// Collects a model type's tracked properties; the argument of ``Model/register(_:)``.
///
/// Registration replaces the code a macro would generate: each `@Tracked` property is listed once,
/// under its declared name, with the key path of its projected value.
///
/// ```swift
/// struct AppModel: Model {
///     var node = ModelNode<Self>()
///     @Tracked var counters: [CounterRowModel] = []   // a child slot
///     @Tracked var title = "Counters"                 // a plain value
///
///     static func register(_ r: inout ModelRegistrar<Self>) {
///         r.track("counters", \.$counters)
///         r.track("title", \.$title)
///     }
/// }
/// ```
///
/// In debug builds the first anchoring of each model type checks the registration against the
/// type's declared `@Tracked` properties and reports a forgotten, doubled or misnamed entry.
public struct ModelRegistrar<M: Model> {
    @usableFromInline var properties: [PropertyDescriptor<M>] = []

    init() {}

    /// Registers a tracked property holding a plain value.
    ///
    /// - Parameters:
    ///   - name: The property's declared name (`"count"` for `@Tracked var count`). It names the
    ///     property in printed changes and test failures.
    ///   - keyPath: The key path of the property's projected value: `\.$count`.
    public mutating func track<Value: Sendable>(_ name: String, _ keyPath: WritableKeyPath<M, Tracked<Value>>) {
        properties.append(PropertyDescriptor(name: name, keyPath: keyPath, visitChildren: nil))
    }

    /// Registers a tracked property holding models (a model, or an optional, array, dictionary or
    /// custom container of models): a *child slot*.
    ///
    /// Models assigned to a child slot of an anchored model are anchored and activated; models
    /// removed from it are torn down. A new instance with the `id` of a live child continues that child.
    @inlinable
    public mutating func track<Value: ModelContainer & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<M, Tracked<Value>>
    ) {
        // Inlined so that visiting a child slot's value is specialized for its type.
        properties.append(PropertyDescriptor(name: name, keyPath: keyPath) { cell, visitor in
            visitor.visit(unsafeDowncast(cell, to: Cell<Value>.self).peek)
        })
    }
}

/// One registered property of a model type.
@usableFromInline
struct PropertyDescriptor<M: Model>: @unchecked Sendable {
    // Safety: immutable after registration; key paths are immutable values.
    let name: String
    let cellOf: (M) -> AnyCell
    let replaceCell: (inout M, AnyCell) -> Void
    /// Visits the models in the cell's current value (child slots only). The caller holds the lock.
    let visitChildren: ((AnyCell, inout ContainerVisitor) -> Void)?
    /// Whether the property's values are plain data (kept when the model is destructed).
    let holdsPlainData: Bool

    @usableFromInline
    init<Value: Sendable>(
        name: String,
        keyPath: WritableKeyPath<M, Tracked<Value>>,
        visitChildren: ((AnyCell, inout ContainerVisitor) -> Void)?
    ) {
        self.name = name
        self.cellOf = { $0[keyPath: keyPath].cell }
        self.replaceCell = { model, cell in
            model[keyPath: keyPath] = Tracked(cell: unsafeDowncast(cell, to: Cell<Value>.self))
        }
        self.visitChildren = visitChildren
        self.holdsPlainData = isPlainData(Value.self)
    }
}
