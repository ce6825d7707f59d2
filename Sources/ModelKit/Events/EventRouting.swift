// Sending events: the targets are computed and the matching listeners collected under the
// hierarchy lock; the deliveries are performed after it, in send order.

/// A listener of the events sent to one model.
final class EventListener: Sendable {
    private let onEvent: @Sendable (_ event: Any, _ sender: Any) -> Void
    private let onFinish: @Sendable () -> Void

    init(onEvent: @escaping @Sendable (Any, Any) -> Void, onFinish: @escaping @Sendable () -> Void) {
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
        hierarchy.withSection {
            guard state.isLive, let sender = currentModel() else { return false }
            for target in targets(of: relation) {
                for listener in target.extras?.eventListeners ?? [] {
                    hierarchy.deliveries.append(.event(listener, event, sender))
                }
            }
            if hierarchy.hasHooks {
                let record = EventRecord(sender: self, event: event, path: path())
                for hook in hierarchy.hooks { hook.record(record) }
                hierarchy.hooksToNotify = true
            }
            return true
        }
    }

    /// The contexts `relation` names, each once, in a stable order. Caller holds the lock.
    final func targets(of relation: ModelRelation) -> [Context] {
        var result: [Context] = []
        var seen: Set<ObjectIdentifier> = []
        func add(_ context: Context) {
            if seen.insert(ObjectIdentifier(context)).inserted { result.append(context) }
        }
        if relation.contains(.self) { add(self) }
        if relation.contains(.parent) || relation.contains(.ancestors) {
            var queue = places.compactMap(\.parent)
            var visited: Set<ObjectIdentifier> = []
            var depth = 0
            while !queue.isEmpty {
                var next: [Context] = []
                for context in queue where visited.insert(ObjectIdentifier(context)).inserted {
                    if depth == 0 || relation.contains(.ancestors) { add(context) }
                    if relation.contains(.ancestors) { next.append(contentsOf: context.places.compactMap(\.parent)) }
                }
                queue = next
                depth += 1
            }
        }
        if relation.contains(.children) || relation.contains(.descendants) {
            var queue = children
            var visited: Set<ObjectIdentifier> = []
            var depth = 0
            while !queue.isEmpty {
                var next: [Context] = []
                for context in queue where visited.insert(ObjectIdentifier(context)).inserted {
                    if depth == 0 || relation.contains(.descendants) { add(context) }
                    if relation.contains(.descendants) { next.append(contentsOf: context.children) }
                }
                queue = next
                depth += 1
            }
        }
        return result
    }

    /// Adds a listener of the events sent to this model; nil if the model is not live.
    final func addEventListener(_ listener: EventListener) -> Bool {
        lock.withShortLock {
            guard state.isLive else { return false }
            ensuredExtras.eventListeners.append(listener)
            return true
        }
    }

    final func removeEventListener(_ listener: EventListener) {
        lock.withShortLock {
            extras?.eventListeners.removeAll { $0 === listener }
        }
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
    /// delivers nothing.
    public func send<Event: Sendable>(
        _ event: Event, to relation: ModelRelation = [.self, .ancestors],
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = context(for: "send", fileID: fileID, filePath: filePath, line: line, column: column) else { return }
        if !context.send(event, to: relation) {
            context.hierarchy.report(ModelIssue(
                "\(typeName(M.self)) sent \(event) after it was removed from its hierarchy; the event was not delivered.",
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
