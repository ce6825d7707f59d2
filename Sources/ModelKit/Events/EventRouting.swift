// Sending events: the targets are computed and the matching listeners collected under the
// hierarchy lock; the deliveries are performed after it, in send order.

/// A listener of the events sent to one model.
@usableFromInline
final class EventListener: Sendable {
    private let onEvent: @Sendable (_ event: Any, _ sender: Any) -> Void
    private let onFinish: @Sendable () -> Void
    /// Whether `onEvent` reads its sender. A listener that does not gets `()` in its place, which
    /// spares the send a copy of the sending model into an `Any` and its destruction.
    let wantsSender: Bool

    @usableFromInline
    init(wantsSender: Bool, onEvent: @escaping @Sendable (Any, Any) -> Void, onFinish: @escaping @Sendable () -> Void) {
        self.wantsSender = wantsSender
        self.onEvent = onEvent
        self.onFinish = onFinish
    }

    func deliver(_ event: Any, _ sender: Any) {
        onEvent(event, sender)
    }

    var finish: @Sendable () -> Void { onFinish }
}

extension Context {
    /// Sends `event` to the models in `relation`. Returns false when the sender is not live.
    final func send(_ event: any Sendable, to relation: ModelRelation) -> Bool {
        hierarchy.beginSection()
        defer { hierarchy.endSection() }
        guard state.isLive else { return false }
        // Nobody listens anywhere in the hierarchy: nothing to route.
        let hasListeners = hierarchy.eventListenerCount > 0
        guard hasListeners || hierarchy.hasHooks else { return true }
        if hasListeners {
            // A live context holds its model (from anchoring to destruct). It is copied only for a
            // listener that reads the sender.
            assert(model != nil, "ModelKit internal error: a live context without its model")
            forEachTarget(of: relation) { target in
                guard let listeners = target.extras?.eventListeners else { return }
                for listener in listeners {
                    if !listener.wantsSender {
                        hierarchy.deliveries.append(.event(listener, event, ()))
                    } else if let sender = model {
                        hierarchy.deliveries.append(.event(listener, event, sender))
                    }
                }
            }
        }
        if hierarchy.hasHooks {
            let record = EventRecord(sender: self, event: event, path: path())
            for hook in hierarchy.hooks { hook.record(record) }
            hierarchy.hooksToNotify = true
        }
        return true
    }

    /// Calls `body` with each context `relation` names, once each, in a stable order: the sender,
    /// its parents and ancestors (nearest first), its children and descendants (breadth first).
    /// Caller holds the lock.
    final func forEachTarget(of relation: ModelRelation, _ body: (Context) -> Void) {
        let upwards = relation.contains(.parent) || relation.contains(.ancestors)
        let downwards = relation.contains(.children) || relation.contains(.descendants)
        if relation.contains(.dependencies) {
            // The dependencies of every model visited (Environment/HierarchyQueries.swift).
            var visitedModels: [Context] = []
            forEachTarget(of: relation.subtracting(.dependencies)) { visitedModels.append($0); body($0) }
            // The sender is reached through `.self` only, not as a dependency of a dependency it
            // uses (two model dependencies that use each other).
            var visited = VisitedSet()
            _ = visited.insert(self)
            for context in visitedModels { _ = visited.insert(context) }
            for dependency in dependencies(of: [self] + visitedModels, &visited) { body(dependency) }
            return
        }
        // The usual case, a model sending to itself and its ancestors, each in one place: a walk up
        // the chain that needs no bookkeeping.
        if upwards, !downwards, walkUpSinglePlaces(all: relation.contains(.ancestors), including: relation.contains(.self), body) {
            return
        }
        var visited = VisitedSet()
        if relation.contains(.self), visited.insert(self) { body(self) }
        if upwards {
            walk(from: self, next: { $0.places.map { $0.parent } }, all: relation.contains(.ancestors), &visited, body)
        }
        if relation.contains(.children) || relation.contains(.descendants) {
            walk(from: self, next: { $0.children }, all: relation.contains(.descendants), &visited, body)
        }
    }

    /// Calls `body` with this context (if `including`), then its parent and, when `all`, each further
    /// ancestor, provided that every one of them sits in exactly one place (or is the root) within a
    /// short chain. Otherwise calls nothing and returns false, for the general walk. Caller holds the lock.
    ///
    /// The chain is walked through unretained references: every context on it is alive while the
    /// lock is held (`self` is the caller's, and a place's parent is alive while the place is in its
    /// child's list, which changes only under the lock: see Place.swift). `body` must not change the
    /// tree: the one caller, `send`, only collects deliveries.
    private final func walkUpSinglePlaces(all: Bool, including: Bool, _ body: (Context) -> Void) -> Bool {
        var steps = 0
        var context = Unmanaged.passUnretained(self)
        chain: while true {
            switch context._withUnsafeGuaranteedRef({ $0.places.shape }) {
            case .none:
                break chain
            case .several:
                return false
            case .one(let place):
                context = Unmanaged.passUnretained(place.parent)
                steps += 1
                // A model in its own ancestry, or a very deep tree: the general walk handles both.
                if context.toOpaque() == Unmanaged.passUnretained(self).toOpaque() || steps > 64 { return false }
                if !all { break chain }
            }
        }
        if including { body(self) }
        context = Unmanaged.passUnretained(self)
        for _ in 0..<steps {
            context = Unmanaged.passUnretained(context._withUnsafeGuaranteedRef { $0.places.onlyParent })
            context._withUnsafeGuaranteedRef { body($0) }
        }
        return true
    }

    /// Breadth-first from `start` along `next`: the first level, or every level when `all`.
    private final func walk(
        from start: Context, next: (Context) -> [Context], all: Bool,
        _ visited: inout VisitedSet, _ body: (Context) -> Void
    ) {
        var walked = VisitedSet()
        var level = next(start)
        while !level.isEmpty {
            var following: [Context] = []
            for context in level where walked.insert(context) {
                if visited.insert(context) { body(context) }
                if all { following.append(contentsOf: next(context)) }
            }
            level = following
        }
    }

    /// Adds a listener of the events sent to this model; nil if the model is not live.
    @usableFromInline
    final func addEventListener(_ listener: EventListener) -> Bool {
        lock.withShortLock {
            guard state.isLive else { return false }
            ensuredExtras.eventListeners.append(listener)
            hierarchy.extras.eventListenerCount += 1
            return true
        }
    }

    @usableFromInline
    final func removeEventListener(_ listener: EventListener) {
        lock.withShortLock {
            guard let extras, let index = extras.eventListeners.firstIndex(where: { $0 === listener }) else { return }
            extras.eventListeners.remove(at: index)
            hierarchy.extras.eventListenerCount -= 1
        }
    }
}

/// Contexts seen by a walk: a short list searched linearly (walks are usually a few ancestors),
/// switching to a set when it grows.
struct VisitedSet {
    private var few: [ObjectIdentifier] = []
    private var many: Set<ObjectIdentifier>?

    /// Inserts `context`; false if it was already there.
    mutating func insert(_ context: Context) -> Bool {
        let id = ObjectIdentifier(context)
        if many != nil { return many!.insert(id).inserted }
        if few.contains(id) { return false }
        few.append(id)
        if few.count > 16 {
            many = Set(few)
            few = []
        }
        return true
    }
}

extension ModelNode {
    /// Sends `event` to the models in `relation` (by default the sender and its ancestors).
    ///
    /// ```swift
    /// node.send(AppEvent.logout)
    /// node.send(AppEvent.refresh, to: .descendants)
    /// ```
    ///
    /// Listeners (``event(of:fileID:filePath:line:column:)``, ``event(ofType:fileID:filePath:line:column:)``)
    /// receive events from one sender in send order. Sending from a removed model is reported and
    /// delivers nothing, except from the model's own work as it ends (its `onCancel` handlers, its
    /// cancelled tasks unwinding), which delivers nothing quietly.
    public func send<Event: Sendable>(
        _ event: Event, to relation: ModelRelation = [.self, .ancestors],
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = context(for: "send", fileID: fileID, filePath: filePath, line: line, column: column) else { return }
        if !context.send(event, to: relation) {
            // The model's own work as it ends (an `onCancel` handler, a cancelled task's `defer`)
            // may send after the removal, as it may write: the event is dropped without a report.
            let (state, quiet) = context.lock.withShortLock { (context.state, context.writeRefusal == nil) }
            if quiet { return }
            let what = state == .frozen ? "from a frozen copy" : "after it was removed from its hierarchy"
            context.hierarchy.report(ModelIssue(
                "\(typeName(M.self)) sent \(event) \(what); the event was not delivered.",
                fixes: ["Send events from models that are still anchored; check `lifetime == .anchored` in long-lived callbacks."],
                fileID: fileID, filePath: filePath, line: line, column: column
            ))
        }
    }

    /// Sends one of the model's own events.
    ///
    /// ```swift
    /// struct StandupDetail: Model {
    ///     enum Event { case deleteStandup, startMeeting }
    ///     func deleteConfirmed() { node.send(.deleteStandup) }
    /// }
    /// ```
    public func send(
        _ event: M.Event, to relation: ModelRelation = [.self, .ancestors],
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        send(event as any Sendable, to: relation, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
