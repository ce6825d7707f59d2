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
    let sink: VisitSink
    private(set) var path: [String]

    init(sink: VisitSink) {
        self.sink = sink
        self.path = []
    }

    var tracksPath: Bool { sink.tracksPath }

    /// Visits one model.
    public mutating func visit<M: Model>(_ model: M) {
        sink.visit(model, visitor: &self)
    }

    /// Visits a nested container (an optional or array of models inside your own enum, say).
    public mutating func visit<C: ModelContainer>(_ container: C) {
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
class VisitSink {
    /// Whether the visitor keeps the path of container components (`[2]`, `.detail`).
    var tracksPath: Bool { false }

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
