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
/// (so its teardown ends the stream). A listener of the model itself and of models below it
/// (`isIndexed`) is listed in its owner's `ContextExtras.modificationListeners`, where a commit finds
/// it by walking up from each change; any other in its hierarchy's `modificationListeners`, which a
/// commit offers every change.
final class ModificationListener: PropertyObserver, @unchecked Sendable {
    // Safety: `relation`, `isIndexed` and `storage` are immutable (the storage a `Sendable` stream
    // storage); `listPosition`, `collectedStamp` and `collectedPosition` are guarded by the lock
    // of `hierarchy`.
    let relation: ModelRelation
    let storage: StreamStorage<ModelModification>
    /// Whether the relation is made of `.self`, `.children` and `.descendants` only.
    let isIndexed: Bool
    /// The listener's position in the list it is in, or -1 once it left (or before it joined).
    @exclusivity(unchecked) var listPosition = -1
    /// The stamp of the last commit that collected paths for the listener, and the position of
    /// its element among that commit's (valid during that commit only).
    @exclusivity(unchecked) var collectedStamp: UInt64 = 0
    @exclusivity(unchecked) var collectedPosition = 0

    init(hierarchy: Hierarchy, relation: ModelRelation, storage: StreamStorage<ModelModification>) {
        self.relation = relation
        self.storage = storage
        self.isIndexed = relation.isSubset(of: [.self, .children, .descendants])
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

    /// Joins the list of its owner (indexed) or of the hierarchy. Caller holds the lock.
    func join(owner: Context) {
        let extras = hierarchy.extras
        if isIndexed {
            let ownerExtras = owner.ensuredExtras
            listPosition = ownerExtras.modificationListeners.count
            ownerExtras.modificationListeners.append(self)
            owner.flags.insert(.hasModificationListeners)
        } else {
            listPosition = extras.modificationListeners.count
            extras.modificationListeners.append(self)
        }
        extras.modificationListenerCount += 1
        hierarchy.recordsEveryChange = true
    }

    /// Leaves its list as the stream ends or its model is destructed, in O(1): the last listener of
    /// the list takes its position. So the lists hold live listeners only, and none is left once
    /// the hierarchy is torn down. Caller holds the lock.
    override func leaveHierarchy() {
        guard listPosition >= 0, let extras = hierarchy.extrasIfAny else { return }
        if isIndexed {
            // The owner is still set here (cancel and destruct clear it after), and live.
            if let owner, let ownerExtras = owner.extras {
                Self.remove(self, from: &ownerExtras.modificationListeners)
                if ownerExtras.modificationListeners.isEmpty { owner.flags.remove(.hasModificationListeners) }
            }
        } else {
            Self.remove(self, from: &extras.modificationListeners)
        }
        listPosition = -1
        extras.modificationListenerCount -= 1
        if extras.modificationListenerCount == 0 { hierarchy.updateRecordsEveryChange() }
    }

    private static func remove(_ listener: ModificationListener, from list: inout [ModificationListener]) {
        let position = listener.listPosition
        guard position < list.count, list[position] === listener else {
            assertionFailure("ModelKit internal error: a modifications listener is not where it was listed")
            return
        }
        let last = list.removeLast()
        if last !== listener {
            list[position] = last
            last.listPosition = position
        }
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
            listener.join(owner: self)
            return true
        }
        if !started { storage.finish() }
        return stream
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
