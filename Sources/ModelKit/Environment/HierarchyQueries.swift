extension ModelRelation {
    /// The models used as dependencies (`node[Settings.self]`) by the sender and by the models the
    /// rest of the relation visits.
    ///
    /// ```swift
    /// node.send(AppEvent.logout, to: [.descendants, .dependencies])
    /// ```
    public static let dependencies = ModelRelation(rawValue: 1 << 5)
}

extension ModelNode {
    /// The non-nil results of `transform` over the models in `relation`, each model once, in order:
    /// this model, then its ancestors from the parent up, then its descendants depth-first in child
    /// order, then the models used as dependencies.
    ///
    /// ```swift
    /// var dirtyTitles: [String] {
    ///     node.mapHierarchy(for: .descendants) { ($0 as? StandupForm)?.isDirty == true ? "\($0.id)" : nil }
    /// }
    /// ```
    ///
    /// Observed like tracked state: inside `observe`, `onChange`, `memoize` or
    /// `withObservationTracking`, adding or removing a model in the relation, or a change of what
    /// `transform` read, runs it again.
    ///
    /// - Returns: The results, in the order above; empty on a model that is not anchored.
    /// - Note: `transform` runs without the hierarchy's lock, on the calling thread.
    @inlinable
    public func mapHierarchy<T>(
        for relation: ModelRelation,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ transform: (any Model) throws -> T?
    ) rethrows -> [T] {
        let models = modelsInRelation(relation, "mapHierarchy", fileID: fileID, filePath: filePath, line: line, column: column)
        var results: [T] = []
        results.reserveCapacity(models.count)
        for index in models.indices {
            if let result = try transform(models[index]) { results.append(result) }
        }
        return results
    }

    /// The models of `relation` in query order (empty, with a report naming `api`, on a model that
    /// is not anchored).
    @usableFromInline
    func modelsInRelation(
        _ relation: ModelRelation, _ api: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) -> [any Model] {
        guard let context = context(for: api, fileID: fileID, filePath: filePath, line: line, column: column)
        else { return [] }
        return context.modelsInRelation(relation)
    }

    /// Folds the models in `relation` (in the order of ``mapHierarchy(for:fileID:filePath:line:column:_:)``)
    /// into a result.
    ///
    /// ```swift
    /// var attendeeCount: Int {
    ///     node.reduceHierarchy(for: .descendants, into: 0) { count, model in
    ///         if model is Attendee { count += 1 }
    ///     }
    /// }
    /// ```
    ///
    /// Observed like ``mapHierarchy(for:fileID:filePath:line:column:_:)``.
    @inlinable
    public func reduceHierarchy<Result>(
        for relation: ModelRelation, into initialResult: Result,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ updateAccumulatingResult: (inout Result, any Model) throws -> Void
    ) rethrows -> Result {
        var result = initialResult
        let models = modelsInRelation(relation, "reduceHierarchy", fileID: fileID, filePath: filePath, line: line, column: column)
        for index in models.indices {
            try updateAccumulatingResult(&result, models[index])
        }
        return result
    }

    /// Whether the model has at most one place in the hierarchy (it is not shared).
    ///
    /// ```swift
    /// func deleteTapped() {
    ///     if node.isUniquelyReferenced { cleanUpFiles() }
    /// }
    /// ```
    ///
    /// Observed like ``mapHierarchy(for:fileID:filePath:line:column:_:)``: the model gaining or
    /// losing a place runs an observer (or a memoized value) that read it again.
    public var isUniquelyReferenced: Bool {
        guard let context = anchoredContext else { return true }
        let isUnique = context.lock.withShortLock { context.places.count <= 1 }
        context.didRead(Context.placesIndex)
        return isUnique
    }
}

extension Context {
    /// The virtual property of a model's places (its parents, and the slots it sits in): a query
    /// up the tree reads it on each model whose places it walks, and a live model that gains or
    /// loses a place (shared into another slot, moved, or no longer shared) changes it, so that an
    /// observed `.parent` or `.ancestors` query runs again. (A model that loses its last place is
    /// torn down, with every model under it.) Far above tracked properties and memoized values,
    /// below the environment's and preferences' indices.
    static let placesIndex = 1 << 23

    /// The virtual property of the models a model used as dependencies: a `.dependencies` query
    /// reads it on each model whose dependencies it walks, and a first use changes it.
    static let usedDependenciesIndex = (1 << 23) + 1

    /// Notes that this live model gained or lost a place. Caller holds the lock for a section.
    final func placesDidChange() {
        hierarchy.record(PendingChange(context: self, index: Context.placesIndex, old: nil, new: nil))
    }

    /// The models of `relation`, in query order, with what the walk went through read (the child
    /// slots walked down, the places walked up, the dependencies used), so that an observer runs
    /// again when models are added to the relation or removed from it.
    final func modelsInRelation(_ relation: ModelRelation) -> [any Model] {
        if relation.isSubset(of: [.self, .parent, .ancestors]), let models = singlePlaceChain(relation) {
            return models
        }
        var slotReads: [(Context, Int)] = []
        var models: [any Model] = []
        withReadLock {
            guard state.isLive else { return }
            let contexts = relationContexts(relation, slotReads: &slotReads)
            models.reserveCapacity(contexts.count)
            for context in contexts {
                if let model = context.model { models.append(model) }
            }
        }
        for (context, index) in slotReads {
            context.didRead(index)
        }
        return models
    }

    /// The contexts of `relation` in query order, each once. Caller holds the lock.
    final func relationContexts(_ relation: ModelRelation, slotReads: inout [(Context, Int)]) -> [Context] {
        var result: [Context] = []
        var visited = VisitedSet()
        if relation.contains(.self), visited.insert(self) { result.append(self) }
        if relation.contains(.parent) || relation.contains(.ancestors) {
            let all = relation.contains(.ancestors)
            var level: [Context] = [self]
            var walked = VisitedSet()
            while !level.isEmpty {
                var next: [Context] = []
                for context in level where walked.insert(context) {
                    // Its places, rather than the slots it sits in: a place gained changes them too.
                    slotReads.append((context, Context.placesIndex))
                    for place in context.places {
                        if visited.insert(place.parent) { result.append(place.parent) }
                        if all { next.append(place.parent) }
                    }
                }
                level = next
            }
        }
        if relation.contains(.children) || relation.contains(.descendants) {
            appendDescendants(of: self, all: relation.contains(.descendants), &visited, &result, &slotReads)
        }
        if relation.contains(.dependencies) {
            // The model itself is in the relation through `.self` only, not as a dependency of a
            // dependency it uses (two model dependencies that use each other).
            _ = visited.insert(self)
            result.append(contentsOf: dependencies(of: [self] + result, &visited, slotReads: &slotReads))
        }
        return result
    }

    /// The usual query, up a chain of models in one place each, collected in one pass: nil when
    /// some model on the way has several places (the general walk then answers).
    ///
    /// The places walked are read under the lock as they are walked, rather than collected for
    /// after it: a read takes no lock (it lands in this thread's recording or Observation's
    /// per-thread access list), and a bail-out's extra reads are a subset of the general walk's.
    private final func singlePlaceChain(_ relation: ModelRelation) -> [any Model]? {
        let all = relation.contains(.ancestors)
        let upwards = all || relation.contains(.parent)
        return withReadLock { () -> [any Model]? in
            guard state.isLive else { return [] }
            var models: [any Model] = []
            models.reserveCapacity(all ? 12 : 2)
            if relation.contains(.self), let model { models.append(consume model) }
            var context = self
            var depth = 0
            while upwards {
                context.didRead(Context.placesIndex)
                guard !context.places.isEmpty else { break }
                let place = context.places[0]
                if context.places.count > 1 || depth > 64 || place.parent === self { return nil }
                context = place.parent
                depth += 1
                if let model = context.model { models.append(consume model) }
                if !all { break }
            }
            return models
        }
    }

    /// Depth-first, in child order: `context`'s children and, when `all`, their descendants.
    private final func appendDescendants(
        of context: Context, all: Bool, _ visited: inout VisitedSet, _ result: inout [Context],
        _ slotReads: inout [(Context, Int)]
    ) {
        for index in context.schema.childSlotIndices {
            slotReads.append((context, index))
            for child in context.slots[index]?.list ?? [] {
                let isNew = visited.insert(child)
                if isNew { result.append(child) }
                if all && isNew { appendDescendants(of: child, all: true, &visited, &result, &slotReads) }
            }
        }
    }

    /// The models used as dependencies by `users` and, in turn, by those models, each once and not in
    /// `visited`. Caller holds the lock.
    final func dependencies(of users: [Context], _ visited: inout VisitedSet) -> [Context] {
        var slotReads: [(Context, Int)] = []
        return dependencies(of: users, &visited, slotReads: &slotReads)
    }

    /// ``dependencies(of:_:)``, noting in `slotReads` the models whose dependencies it walked.
    final func dependencies(of users: [Context], _ visited: inout VisitedSet, slotReads: inout [(Context, Int)]) -> [Context] {
        var result: [Context] = []
        var queue = users
        var position = 0
        while position < queue.count {
            let user = queue[position]
            position += 1
            slotReads.append((user, Context.usedDependenciesIndex))
            for dependency in user.extras?.values?.usedDependencies ?? [] where dependency.state.isLive {
                if visited.insert(dependency) {
                    result.append(dependency)
                    queue.append(dependency)
                }
            }
        }
        return result
    }
}
