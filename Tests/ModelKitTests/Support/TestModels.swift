import ModelKit

/// The simplest model: one count and a title.
struct CounterModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var title = ""

    func incrementTapped() { count += 1 }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("title", \.$title)
    }
}

/// A model of a tree, identified by name, with a child slot of every container kind. It logs its
/// life: `activate <id>` from `onActivate`, `cancel <id>` when its work is cancelled.
struct TreeModel: Model {
    enum Event: Sendable, Equatable {
        case ping(String)
    }

    var node = ModelNode<Self>()
    let id: String
    let log: Log
    let token: LifetimeTracker.Token?
    @Tracked var value = 0
    @Tracked var child: TreeModel? = nil
    @Tracked var children: [TreeModel] = []
    @Tracked var byKey: [String: TreeModel] = [:]
    @Tracked var destination: Destination = .none
    @Tracked var pair: Pair? = nil

    init(
        _ id: String, log: Log, token: LifetimeTracker.Token? = nil, value: Int = 0,
        child: TreeModel? = nil, children: [TreeModel] = []
    ) {
        self.id = id
        self.log = log
        self.token = token
        _value = Tracked(wrappedValue: value)
        _child = Tracked(wrappedValue: child)
        _children = Tracked(wrappedValue: children)
    }

    func onActivate() {
        log.add("activate \(id)")
        node.onCancel { [log, id] in log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("value", \.$value)
        r.track("child", \.$child)
        r.track("children", \.$children)
        r.track("byKey", \.$byKey)
        r.track("destination", \.$destination)
        r.track("pair", \.$pair)
    }
}

/// A custom enum container: only `.detail` holds a model.
enum Destination: ModelContainer, Sendable {
    case none
    case detail(TreeModel)
    case message(String)

    func visit(_ visitor: inout ContainerVisitor) {
        if case .detail(let model) = self { visitor.visit(model) }
    }
}

/// A custom struct container holding a model and an optional model.
struct Pair: ModelContainer, Sendable {
    var left: TreeModel
    var right: TreeModel?

    func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(left)
        visitor.visit(right)
    }
}
