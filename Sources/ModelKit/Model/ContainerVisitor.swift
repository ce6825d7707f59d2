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
    /// The box of the model ``visitElement(_:)`` is about to visit, whose identity the sink did
    /// not settle, so that ``visit(_:)-(Model)`` does not ask again. Only compared with a box's
    /// address, never dereferenced.
    @usableFromInline var identityAsked: UnsafeMutableRawPointer?

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
        // One reference to the sink for the calls below (each call through `self.sink` would
        // retain and release it: `self` is `inout`).
        let sink = self.sink
        let box = model.node.unretainedBox
        if identityAsked == box.toOpaque() {
            identityAsked = nil
        } else if sink.visitKnown(box) {
            return
        }
        // The refresh: a new instance with the id of the child expected here continues it. The
        // ids are compared here, in code specialized for `M`, without hashing; the continuation
        // reads the new instance's storage where the schema found it, without generics when it can.
        // The sink answers only for a child of type `M` with an id of its own, and keeps its
        // context alive during the visit.
        if let expected = sink.expectedChild(of: ObjectIdentifier(M.self)),
           expected._withUnsafeGuaranteedRef({ $0.modelHasID(model.id, as: M.self) }),
           withUnsafePointer(to: model, { sink.continueExpected(at: UnsafeRawPointer($0), box: box) })
            || sink.continueExpected(model) {
            return
        }
        sink.visit(model, visitor: &self)
    }

    /// Settles a model known by its identity (``ModelContainer/_modelIdentity()``) if the sink can.
    @inlinable
    func visitKnown(_ identity: _ModelIdentity) -> Bool {
        sink.visitKnown(identity.box)
    }

    /// Visits the elements of a collection in order. The leading run of models that the sink expects
    /// in that order (the children still in place, in the usual writes) is settled by identity checks
    /// in one loop, without a call per model.
    @inlinable
    mutating func visitInOrder<C: RandomAccessCollection>(_ elements: C) where C.Element: ModelContainer {
        sink.willVisit(count: elements.count)
        var position = elements.startIndex
        if let expected = sink.expectedNext() {
            let limit = Swift.min(elements.count, expected.count)
            var met = 0
            var base = expected.startIndex
            while met < limit, let identity = elements[position]._modelIdentity(),
                  NodeBox.isBound(identity, to: expected[base]) {
                elements.formIndex(after: &position)
                met += 1
                base += 1
            }
            if met > 0 { sink.metExpected(met) }
        }
        while position != elements.endIndex {
            visitElement(elements[position])
            elements.formIndex(after: &position)
        }
    }

    /// Visits one element of a collection: settled by its identity if the sink can, in full
    /// otherwise.
    @inlinable
    mutating func visitElement<E: ModelContainer>(_ element: E) {
        if let identity = element._modelIdentity() {
            if visitKnown(identity) { return }
            // A model (only models have an identity): its visit goes on from here.
            identityAsked = identity.box.toOpaque()
        }
        visit(element)
        identityAsked = nil
    }

    /// Visits the models (or containers) of a collection, in order; in printed paths each one is
    /// named by its position (`[2]`).
    ///
    /// A tracked collection of models needs no conformance; this is for a custom container that
    /// holds one:
    ///
    /// ```swift
    /// struct Board: ModelContainer, Sendable {
    ///     var pinned: CardModel?
    ///     var cards: IdentifiedArrayOf<CardModel>
    ///
    ///     func visit(_ visitor: inout ContainerVisitor) {
    ///         visitor.visit(pinned)
    ///         visitor.visit(elementsOf: cards)
    ///     }
    /// }
    /// ```
    @inlinable
    public mutating func visit<C: RandomAccessCollection>(elementsOf elements: C) where C.Element: ModelContainer {
        guard tracksPath else {
            visitInOrder(elements)
            return
        }
        for (offset, element) in elements.enumerated() {
            withComponent("[\(offset)]") { $0.visit(element) }
        }
    }

    /// Visits a nested container (an optional or array of models inside your own enum, say).
    @inlinable
    public mutating func visit<C: ModelContainer>(_ container: C) {
        // `tracksPath` first: the cast is a runtime check, with a copy of the value.
        if !tracksPath || container is any Model {
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
            return
        }
        // A struct (or class) container: each stored property that is a container is visited
        // under its name (`.left`), then the container's own visit, for models held where no
        // property shows them (a tuple, a computed property). The path's reader takes a model's
        // first path, so a model met twice keeps the named one.
        let mirror = Mirror(reflecting: container)
        if mirror.displayStyle == .struct || mirror.displayStyle == .class {
            for child in mirror.children {
                guard let label = child.label, let field = child.value as? any ModelContainer else { continue }
                withComponent(".\(label)") { $0.visitField(field) }
            }
        }
        container.visit(&self)
    }

    private mutating func visitField<C: ModelContainer>(_ field: C) {
        visit(field)
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

    /// The children the sink expects next, in order, while every model met so far was the one
    /// expected; nil when it expects nothing in particular.
    @usableFromInline
    func expectedNext() -> ArraySlice<Context>? { nil }

    /// Settles the next `count` expected children: they were met in place.
    @usableFromInline
    func metExpected(_ count: Int) {}

    /// A collection of `count` elements is about to be visited (a hint for sizing what the sink
    /// collects).
    @usableFromInline
    func willVisit(count: Int) {}

    /// Handles a model known by its identity alone, if the sink can; false to visit it in full.
    /// The box is the visited model's, which the container keeps alive during the call.
    @usableFromInline
    func visitKnown(_ box: Unmanaged<NodeBox>) -> Bool { false }

    /// The context of the live child the sink expects next, when it is a model of the type `type`
    /// identifies, with an id of its own (the sink keeps the context alive during the visit); nil
    /// otherwise. Asked for a model that ``visitKnown(_:)`` did not settle.
    @usableFromInline
    func expectedChild(of type: ObjectIdentifier) -> Unmanaged<Context>? { nil }

    /// Continues the child ``expectedChild(of:)`` described with `model`, a new instance with
    /// its id; false to visit the model in full.
    @usableFromInline
    func continueExpected<M: Model>(_ model: M) -> Bool { false }

    /// ``continueExpected(_:)`` for the model value at `model` (of the type `expectedChild(of:)`
    /// was asked about), whose box is `box`, when the sink can continue it without its type; false
    /// to call ``continueExpected(_:)``.
    @usableFromInline
    func continueExpected(at model: UnsafeRawPointer, box: Unmanaged<NodeBox>) -> Bool { false }

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
