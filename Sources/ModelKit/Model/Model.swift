import Observation

/// An app model: a struct whose tracked state lives in a hierarchy of models.
///
/// A model is a plain struct with a `node`, some ``Tracked`` properties, and a ``register(_:)``
/// function listing them. All copies of a model share one identity and one state, so `let model`
/// is fully usable and methods never need `mutating`.
///
/// ```swift
/// struct CountModel: Model {
///     var node = ModelNode<Self>()
///     @Tracked var count = 0
///
///     func incrementTapped() { count += 1 }
///
///     static func register(_ r: inout ModelRegistrar<Self>) {
///         r.track("count", \.$count)
///     }
/// }
///
/// let model = CountModel().withAnchor()
/// model.incrementTapped()
/// ```
///
/// Anchoring a root (``withAnchor()``) gives every model of its hierarchy a context: dependencies,
/// tasks tied to the model's life, events and observation. See `Documentation/Models.md`.
///
/// - Note: Models are `Sendable` and safe to use from any thread or task.
public protocol Model: ModelContainer, Identifiable, Sendable, Observable {
    /// The type of the events this model sends with `node.send(_:)`. `Never` by default.
    associatedtype Event: Sendable = Never

    /// The model's handle to its context. Declare it as `var node = ModelNode<Self>()`.
    var node: ModelNode<Self> { get set }

    /// Lists the model's tracked properties, once per type.
    ///
    /// ```swift
    /// static func register(_ r: inout ModelRegistrar<Self>) {
    ///     r.track("count", \.$count)
    ///     r.track("rows", \.$rows)      // an array of models: a child slot
    /// }
    /// ```
    static func register(_ r: inout ModelRegistrar<Self>)

    /// Called once when the model joins an anchored hierarchy, after its parent's `onActivate`.
    ///
    /// Start the model's long-running work here (`node.forEach`, `node.task`): it is cancelled when
    /// the model is removed.
    func onActivate()
}

extension Model {
    public func onActivate() {}

    /// Visits the model itself: a model is the simplest container of models.
    @inlinable
    public func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(self)
    }

    /// ModelKit's own: the model's storage box, read without retaining it.
    @inlinable
    public func _modelIdentity() -> _ModelIdentity? {
        _ModelIdentity(node.unretainedBox)
    }
}

extension Model where ID == ModelID {
    /// The model's identity, shared by all copies of this instance.
    public var id: ModelID { node.box.id }
}

extension Model where Self: Equatable {
    /// Two values are equal when they are the same model: copies of one instance, or instances that
    /// same-id continuity made one live model (the earlier instance and the one that continued it).
    ///
    /// A frozen copy, a model removed before another with its id was added, and two instances
    /// never anchored are different models.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.node.box === rhs.node.box || lhs.node.box.sharesContext(with: rhs.node.box)
    }
}

extension Model where Self: Hashable {
    /// Hashes the model's `id`, consistent with `==`: the instances of one model have one id, and
    /// the hash of an instance does not change when it is anchored.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}
