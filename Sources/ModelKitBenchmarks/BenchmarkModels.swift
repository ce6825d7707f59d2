import ModelKit
import Observation

// The models the scenarios measure, and the `@Observable` classes they are compared to. Node APIs
// are called from the models' own methods, as model authors do.

/// Two tracked Ints: the workhorse of the read, write, observer and memory scenarios.
struct Pair: Model {
    var node = ModelNode<Self>()
    @Tracked var a = 0
    @Tracked var b = 0

    /// Counts each change of `a` with `onChange`.
    func countChangesOfA(into counter: Counter) {
        node.onChange(of: \.a) { _, _ in counter.increment() }
    }

    /// Counts each value of `a` delivered by `change(of:)`, consumed with `forEach`.
    func countStreamedValuesOfA(into counter: Counter) {
        node.forEach(change(of: \.a, initial: false)) { _ in counter.increment() }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("a", \.$a)
        r.track("b", \.$b)
    }
}

/// The smallest model: one tracked property.
struct Single: Model {
    var node = ModelNode<Self>()
    @Tracked var value = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("value", \.$value)
    }
}

/// A parent of any number of `Pair`s.
struct Parent: Model {
    var node = ModelNode<Self>()
    @Tracked var children: [Pair] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("children", \.$children)
    }
}

/// The event the event scenarios send.
struct Ping: Sendable {}

/// Sends `Ping`s to itself and its ancestors.
struct Sender: Model {
    var node = ModelNode<Self>()

    func ping() {
        node.send(Ping())
    }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// The parent of a `Sender`; listens to its pings when asked to.
struct Listener: Model {
    var node = ModelNode<Self>()
    @Tracked var sender = Sender()

    /// Counts each `Ping` that reaches this model, consumed with `forEach`.
    func countPings(into counter: Counter) {
        node.forEach(node.event(ofType: Ping.self)) { _ in counter.increment() }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("sender", \.$sender)
    }
}

/// A dependency holding an Int.
enum Answer: DependencyKey {
    static let liveValue = 42
}

extension DependencyValues {
    var answer: Int {
        get { self[Answer.self] }
        set { self[Answer.self] = newValue }
    }
}

/// Reads the `Answer` dependency both ways.
struct DependencyReader: Model {
    var node = ModelNode<Self>()

    /// `node.answer`, through dynamic member lookup.
    func answerByMember() -> Int { node.answer }

    /// `node[Answer.self]`.
    func answerByKey() -> Int { node[Answer.self] }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// Does `work`, then sets `isDone`, in a task: what a Tester's assert waits for.
struct Worker: Model {
    var node = ModelNode<Self>()
    @Tracked var isDone = false

    func start(work: Duration) {
        node.task {
            spin(for: work)
            isDone = true
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("isDone", \.$isDone)
    }
}

/// The `@Observable` counterpart of `Pair`. Main-actor isolated, so that its observation handlers
/// (which must be `Sendable`) may capture it; the benchmarks run on the main actor.
@MainActor @Observable
final class ObservablePair {
    var a = 0
    var b = 0
}

/// A `Pair` identified by its own `Int`, as apps identify rows: a new instance with the same id
/// continues the live child.
struct IdentifiedRow: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var a = 0
    @Tracked var b = 0

    init(id: Int, a: Int = 0) {
        self.id = id
        _a = Tracked(wrappedValue: a)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("a", \.$a)
        r.track("b", \.$b)
    }
}

/// A parent of any number of `IdentifiedRow`s.
struct RowList: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [IdentifiedRow] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
    }
}
