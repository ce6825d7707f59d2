/// Walks the models held in a ``ModelContainer``. Containers call ``visit(_:)-(Model)`` for each model.
///
/// You only meet a visitor when writing a custom container:
///
/// ```swift
/// struct Pair: ModelContainer, Sendable {
///     var left: CountModel
///     var right: CountModel?
///
///     func visit(_ visitor: inout ContainerVisitor) {
///         visitor.visit(left)
///         visitor.visit(right)    // an optional is a container too
///     }
/// }
/// ```
public struct ContainerVisitor {
    @usableFromInline let sink: VisitSink
    @usableFromInline private(set) var path: [String]

    init(sink: VisitSink) {
        self.sink = sink
        self.path = []
    }

    @inlinable
    var tracksPath: Bool { sink.tracksPath }

    /// Visits one model.
    @inlinable
    public mutating func visit<M: Model>(_ model: M) {
        // The common case (a child still in its slot) needs only the model's identity, which is
        // handed over without going through generics.
        if sink.visitKnown(model.node.box) { return }
        sink.visit(model, visitor: &self)
    }

    /// Visits a nested container (an optional or array of models inside your own enum, say).
    @inlinable
    public mutating func visit<C: ModelContainer>(_ container: C) {
        if container is any Model || !tracksPath {
            container.visit(&self)
        } else {
            visitLabeled(container)
        }
    }

    /// Visits a container for a printed path: custom containers add their enum case name.
    @usableFromInline
    mutating func visitLabeled<C: ModelContainer>(_ container: C) {
        guard tracksPath, !(container is StandardContainer), !(container is any Model) else {
            container.visit(&self)
            return
        }
        if let label = Self.caseLabel(of: container) {
            withComponent(".\(label)") { container.visit(&$0) }
        } else {
            container.visit(&self)
        }
    }

    @usableFromInline
    mutating func withComponent(_ component: String, _ body: (inout ContainerVisitor) -> Void) {
        path.append(component)
        body(&self)
        path.removeLast()
    }

    /// The case name of an enum value (`detail` for `.detail(model)`), for printed paths.
    private static func caseLabel(of value: Any) -> String? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else { return nil }
        if let label = mirror.children.first?.label { return label }
        let text = String(describing: value)
        return text.isEmpty ? nil : text
    }
}

/// What a ``ContainerVisitor`` does with each model it meets.
@usableFromInline
class VisitSink {
    /// Whether the visitor keeps the path of container components (`[2]`, `.detail`).
    @usableFromInline
    var tracksPath: Bool { false }

    /// Handles a model known by its identity alone, if the sink can; false to visit it in full.
    @usableFromInline
    func visitKnown(_ box: NodeBox) -> Bool { false }

    @usableFromInline
    func visit<M: Model>(_ model: M, visitor: inout ContainerVisitor) {}
}

/// Collects the models a container holds, with their path components.
final class CollectingSink: VisitSink {
    struct Entry {
        let box: NodeBox
        let path: [String]
    }

    private let wantsPath: Bool
    private(set) var entries: [Entry] = []

    init(tracksPath: Bool) {
        self.wantsPath = tracksPath
    }

    override var tracksPath: Bool { wantsPath }

    override func visit<M: Model>(_ model: M, visitor: inout ContainerVisitor) {
        entries.append(Entry(box: model.node.box, path: visitor.path))
    }
}
