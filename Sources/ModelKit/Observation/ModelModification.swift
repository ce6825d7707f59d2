/// One commit that changed tracked state of the models a ``ModelNode/modifications(of:)`` stream
/// listens to: a write, or a whole transaction.
///
/// ```swift
/// for await modification in node.modifications() {
///     print(modification.paths)   // ["StandupsList.standups[0].title"]
/// }
/// ```
public struct ModelModification: Sendable, Hashable, CustomStringConvertible {
    /// What changed, each once, in the format of printed changes: the model's path from its root
    /// and the property (`"StandupsList.standups[0].title"`). A child added or removed shows as
    /// its parent's property (`"StandupsList.standups"`).
    public let paths: [String]

    /// Creates a modification (for tests and previews).
    public init(paths: [String]) {
        self.paths = paths
    }

    public var description: String { paths.joined(separator: ", ") }
}

extension ModelNode {
    /// A stream with one element per commit (a write, or a whole transaction) that changed tracked
    /// state of a model in `relation`, children added or removed included.
    ///
    /// Built for autosave and "unsaved changes" flags: it says *that* something changed, and where,
    /// without asking the listener to observe each property. Properties registered `.transient`
    /// never produce an element.
    ///
    /// ```swift
    /// func onActivate() {
    ///     node.forEach(node.modifications().debounce(for: .seconds(1), clock: node.continuousClock)) { _ in
    ///         try await node.dataManager.save(standups)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter relation: Whose changes count, relative to this model: by default the model
    ///   itself and every model below it.
    /// - Note: Like every stream of ModelKit, it listens from the moment it is created, delivers in
    ///   commit order, and ends when the model is removed.
    public func modifications(
        of relation: ModelRelation = [.self, .descendants],
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<ModelModification> {
        guard let context = context(for: "modifications(of:)", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return .finished() }
        return context.modificationStream(relation)
    }
}

/// Listens to the commits that change a model's relation; owned by the listening model's context
/// (so its teardown ends the stream), and listed in its hierarchy's `modificationListeners`.
final class ModificationListener: PropertyObserver, @unchecked Sendable {
    // Safety: immutable, or (the storage) a `Sendable` stream storage.
    let relation: ModelRelation
    let storage: StreamStorage<ModelModification>

    init(hierarchy: Hierarchy, relation: ModelRelation, storage: StreamStorage<ModelModification>) {
        self.relation = relation
        self.storage = storage
        super.init(hierarchy: hierarchy)
    }

    override func deliver(_ change: ObservedPayload) {
        // `collectModifications` queues a `PathList` for this listener, and nothing else (checked
        // in debug builds).
        let list = unsafeDowncast(change.box.unsafelyUnwrapped, to: PathList.self)
        storage.yield(ModelModification(paths: list.paths))
    }

    override func finish() {
        storage.finish()
    }

    /// Leaves `modificationListeners` as the stream ends or its model is destructed, so that the
    /// list holds live listeners only and is empty once the hierarchy is torn down.
    override func leaveHierarchy() {
        guard let extras = hierarchy.extrasIfAny,
              let position = extras.modificationListeners.firstIndex(where: { $0 === self })
        else { return }
        extras.modificationListeners.remove(at: position)
        if extras.modificationListeners.isEmpty { hierarchy.updateRecordsEveryChange() }
    }

    /// Whether a change of `context` belongs to the relation, relative to the listening `owner`.
    /// Caller holds the lock.
    func covers(_ context: Context, owner: Context) -> Bool {
        if context === owner { return relation.contains(.self) }
        if relation.contains(.descendants) || relation.contains(.children) {
            if context.places.contains(where: { $0.parent === owner }) { return true }
            if relation.contains(.descendants), context.isSelfOrAncestor(owner) { return true }
        }
        if relation.contains(.parent) || relation.contains(.ancestors) {
            if owner.places.contains(where: { $0.parent === context }) { return true }
            if relation.contains(.ancestors), owner.isSelfOrAncestor(context) { return true }
        }
        return false
    }

    /// The paths of a commit's changes, delivered as one element.
    final class PathList {
        let paths: [String]

        init(_ paths: [String]) {
            self.paths = paths
        }
    }
}

extension Context {
    /// A stream of the commits that change this model's `relation`.
    final func modificationStream(_ relation: ModelRelation) -> ModelStream<ModelModification> {
        let (stream, storage) = ModelStream<ModelModification>.make()
        let listener = ModificationListener(hierarchy: hierarchy, relation: relation, storage: storage)
        storage.onTermination { listener.cancel() }
        let started: Bool = hierarchy.withSection {
            guard state.isLive else { return false }
            ensuredExtras.ownedObservers.append(listener)
            listener.owner = self
            hierarchy.extras.modificationListeners.append(listener)
            hierarchy.recordsEveryChange = true
            return true
        }
        if !started { storage.finish() }
        return stream
    }
}

extension Hierarchy {
    /// Queues one element for each modification listener whose relation a commit's `changes`
    /// touched. Caller holds the lock.
    func collectModifications(_ changes: [PendingChange]) {
        // Listed listeners are live: one leaves the list when it is cancelled or its owner destructed.
        for listener in self.extras.modificationListeners {
            guard let owner = listener.owner else { continue }
            var paths: [String] = []
            for change in changes where !change.context.schema.isTransient(change.index) {
                // A derived environment value or preference fold: the change is where it was set.
                // A memoized value is derived too: its inputs' changes are the modifications.
                let kind = KeyedKind.of(change.index)
                if kind != nil && change.old == nil { continue }
                if kind == nil && change.index >= change.context.schema.count { continue }
                guard listener.covers(change.context, owner: owner) else { continue }
                let path = "\(change.context.path()).\(change.context.propertyName(change.index))"
                if !paths.contains(path) { paths.append(path) }
            }
            if !paths.isEmpty {
                deliveries.append(.property(listener, ObservedPayload(box: ModificationListener.PathList(paths))))
            }
        }
    }
}

extension ModelNode {
    /// Notifies every observer of `keyPath` as if it had changed, without changing it.
    ///
    /// For state that changes where ModelKit cannot see it, such as a reference type held in a
    /// tracked property and mutated in place. Observation, `observe`, `onChange(of:)`,
    /// `change(of:)` and `modifications(of:)` see the current value again; a Tester records no
    /// change, since no value changed.
    ///
    /// ```swift
    /// func appendToLog(_ line: String) {
    ///     buffer.lines.append(line)   // `buffer` is a class instance in `@Tracked var buffer`
    ///     node.touch(\.buffer)
    /// }
    /// ```
    ///
    /// - Parameter keyPath: A tracked property, or any key path over the model: every tracked
    ///   property it reads is touched.
    /// - Note: Inside a transaction, observers hear of it once, when the transaction ends.
    public func touch<Value>(
        _ keyPath: KeyPath<M, Value> & Sendable,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = context(for: "touch", fileID: fileID, filePath: filePath, line: line, column: column),
              let model = context.liveModel(M.self)
        else { return }
        let (_, reads) = AccessRecording.recording { _ = model[keyPath: keyPath] }
        context.touch(reads)
    }
}

extension Context {
    /// Queues a touch of each property in `reads` for the end of a section.
    final func touch(_ reads: [AccessRecording.Read]) {
        hierarchy.withSection {
            for read in reads where read.context.hierarchy === hierarchy && read.context.state.isLive {
                var change = PendingChange(context: read.context, index: read.index, old: nil, new: nil)
                change.isTouch = true
                hierarchy.record(change)
            }
        }
    }
}
