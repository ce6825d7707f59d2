/// A value that holds models: a model itself, an optional, array or dictionary of models, or a custom
/// enum or struct that visits the models it holds.
///
/// A tracked property whose value is a container is a *child slot*: models assigned to it are
/// anchored, activated and torn down automatically, matched by `id`.
///
/// ```swift
/// enum Destination: ModelContainer, Sendable {
///     case detail(StandupDetail)
///     case alert(AlertState)
///
///     func visit(_ visitor: inout ContainerVisitor) {
///         if case .detail(let model) = self { visitor.visit(model) }
///     }
/// }
/// ```
///
/// - Note: `ModelContainer` is not itself `Sendable`; a tracked container value must be.
public protocol ModelContainer {
    /// Calls `visitor.visit(_:)` for each model (or nested container) the value holds, in order.
    func visit(_ visitor: inout ContainerVisitor)

    /// ModelKit's own; do not implement it. The identity of a model, nil for other containers: it
    /// lets a collection recognise the children still in it without copying them.
    ///
    /// Only ModelKit can make a ``_ModelIdentity``, so an implementation can only return nil (which
    /// is always correct, just slower) or the identity of another model it holds.
    func _modelIdentity() -> _ModelIdentity?
}

extension ModelContainer {
    @inlinable
    public func _modelIdentity() -> _ModelIdentity? { nil }
}

/// The identity of one model instance (its storage box), for ModelKit's own use: it has no public
/// initializer, so only ``Model`` provides one.
public struct _ModelIdentity {
    @usableFromInline let box: Unmanaged<NodeBox>

    @inlinable
    init(_ box: Unmanaged<NodeBox>) {
        self.box = box
    }
}

extension Optional: ModelContainer where Wrapped: ModelContainer {
    @inlinable
    public func visit(_ visitor: inout ContainerVisitor) {
        if let wrapped = self {
            visitor.visit(wrapped)
        }
    }
}

extension Array: ModelContainer where Element: ModelContainer {
    @inlinable
    public func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(elementsOf: self)
    }
}

extension Dictionary: ModelContainer where Value: ModelContainer {
    public func visit(_ visitor: inout ContainerVisitor) {
        // Dictionaries have no order; visit in a stable order so that reconciliation and printed
        // paths do not depend on hashing.
        let entries = sorted { String(describing: $0.key) < String(describing: $1.key) }
        for (key, value) in entries {
            if visitor.tracksPath {
                visitor.withComponent("[\(String(reflecting: key))]") { $0.visit(value) }
            } else {
                visitor.visit(value)
            }
        }
    }
}

/// Containers whose path components ModelKit writes itself (the others get their enum case name).
protocol StandardContainer {
    /// The type of the values it holds.
    static var containedType: Any.Type { get }
}

extension Optional: StandardContainer {
    static var containedType: Any.Type { Wrapped.self }
}

extension Array: StandardContainer {
    static var containedType: Any.Type { Element.self }
}

extension Dictionary: StandardContainer {
    static var containedType: Any.Type { Value.self }
}
