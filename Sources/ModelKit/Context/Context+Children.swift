// Anchoring models into a hierarchy and keeping child slots in step with their values.
// Everything here runs with the hierarchy lock held for a section.

extension Hierarchy {
    /// Creates the context of `model`, binds its storage and anchors its subtree. Activation of the
    /// new contexts is queued, parents first, for the end of the section.
    @inline(__always)
    func makeContext<M: Model>(
        for model: M,
        place: Place?,
        inherited: DependencyValues.Storage,
        isRoot: Bool = false
    ) -> Context {
        var activation: DeferredActivation?
        return makeContext(
            for: model, place: place, inherited: inherited, isRoot: isRoot, deferring: false, &activation
        )
    }

    /// An activation `makeContext` left to its caller: the action, and where in `pendingActions`
    /// it would have been queued.
    struct DeferredActivation {
        var action: SectionAction
        var position: Int
    }

    /// `makeContext`; with `deferring`, the activation of a model without child slots is not
    /// queued but handed back in `activation` (nil if it was queued, or the model was not
    /// anchored), so that a caller with nothing else to do after the section can perform it
    /// without an action list. (A model with children queues its own activation before theirs.)
    func makeContext<M: Model>(
        for model: M,
        place: Place?,
        inherited: DependencyValues.Storage,
        isRoot: Bool,
        deferring: Bool,
        _ activation: inout DeferredActivation?
    ) -> Context {
        let schema = ModelKit.schema(of: model)
        let box = model.node.box
        let (modifiers, keptValues) = box.mayHaveModifiers
            ? unboundLock.withShortLock { box.takeModifiers() }
            : (NodeBox.Modifiers(), nil)
        var storage = inherited
        if !modifiers.dependencies.isEmpty {
            var dependencies = DependencyValues(storage: inherited, hierarchy: self)
            for override in modifiers.dependencies {
                override(&dependencies)
            }
            storage = dependencies.storage
        }
        let context = Context(
            hierarchy: self, schema: schema, dependencyStorage: storage, state: .anchored, isRoot: isRoot, model: model
        )
        if let place { context.places.append(place) }

        let conflict: Int? = unboundLock.withShortLock {
            let conflict = schema.bindCells(of: model, to: context)
            if conflict == nil { box.bind(context) }
            return conflict
        }
        if let conflict {
            deferIssue(ModelIssue(
                "\(schema.typeName).\(schema.name(conflict)) shares its storage with another model instance; this \(schema.typeName) was not anchored.",
                fixes: ["Create each model with its initializer instead of copying another model and replacing its `node`."]
            ))
            context.state = .destructed
            return context
        }
        if !schema.registrationErrors.isEmpty, !schema.registrationErrorsReported.exchange(true, ordering: .relaxed) {
            schema.registrationErrors.forEach(deferIssue)
        }
        #if DEBUG
        checkRegistration(of: model, schema: schema)
        #endif
        // Kept for a detached copy undo may make of the model (see `anchoredModifiers`) when the
        // hierarchy records undo, or may start to: the parent is being anchored with it, and its
        // `onActivate` has yet to run. Otherwise released once applied, with what they captured.
        keptValues?.restore(into: context)
        if !modifiers.isEmpty && (undo != nil || place?.parent.state == .anchored) {
            context.ensuredExtras.anchoredModifiers = modifiers
        }
        for printer in modifiers.printers {
            let hook = ChangePrinter(root: context, printer: printer)
            extras.hooks.append(hook)
            context.ensuredExtras.printers.append(hook)
            hasHooks = true
            recordsEveryChange = true
        }
        let action: SectionAction = modifiers.activations.isEmpty
            ? .activate(context)
            : .activateWithHandlers(context, modifiers.activations)
        if deferring && schema.childSlotIndices.isEmpty {
            activation = DeferredActivation(action: action, position: pendingActions.count)
        } else {
            pendingActions.append(action)
        }
        if !schema.childSlotIndices.isEmpty {
            nested(.reconcileSlots(context))
        }
        return context
    }

    /// Work on a model nested in the one being reconciled: its slots to reconcile once it is
    /// anchored, or its continuation by a new instance, each of which reconciles the next level.
    enum NestedWork {
        case reconcileSlots(Context)
        case adopt(ReconcileSink.InitialModel, Context)
        case continuation(ReconcileSink.Continuation)

        func perform() {
            switch self {
            case .reconcileSlots(let context):
                for index in context.schema.childSlotIndices {
                    context.reconcileSlot(index)
                }
            case .adopt(let initial, let live):
                initial.adopt(live)
            case .continuation(let continuation):
                continuation.perform()
            }
        }
    }

    /// How many levels of nested models are reconciled recursively, on the caller's stack, before
    /// the deeper ones wait for the outermost level (see `nested(_:)`).
    @usableFromInline static let maxNesting: UInt16 = 32

    /// Performs `work` at once; past `maxNesting` enclosing levels, queues it for the outermost
    /// level, which performs the queue once its own work is done. So anchoring, continuing or
    /// refreshing a hierarchy uses stack for at most `maxNesting` levels at a time, however deep
    /// the models are nested (a chain of 10,000 would overflow a thread's stack), and each model
    /// still has its slots reconciled after its own context exists, in the same section: parents
    /// still activate before their children. Trees shallower than the limit are reconciled as
    /// before, depth first. Caller holds the section.
    @inline(__always)
    func nested(_ work: NestedWork) {
        guard nesting < Self.maxNesting else {
            extras.deferredNestedWork.append(work)
            return
        }
        nesting += 1
        work.perform()
        nesting -= 1
        if nesting == 0, let extras = extrasIfAny, !extras.deferredNestedWork.isEmpty {
            performDeferredNestedWork(extras)
        }
    }

    /// Performs the work `nested(_:)` queued, in the order it was queued, each from the outermost
    /// level again (its own nested work may queue more). Caller holds the section.
    private func performDeferredNestedWork(_ extras: HierarchyExtras) {
        var position = 0
        while position < extras.deferredNestedWork.count {
            let work = extras.deferredNestedWork[position]
            position += 1
            nesting = 1
            work.perform()
            nesting = 0
        }
        extras.deferredNestedWork = []
    }
}

extension Context {
    /// Brings child slot `index` in step with the cell's current value: anchors new models, keeps
    /// live ones, continues a live child from a new instance with its id, and removes the rest.
    /// Returns whether the slot holds the same children as before, in the same order.
    @discardableResult
    final func reconcileSlot(_ index: Int) -> Bool {
        guard state.isLive, let cell = cell(index) else { return false }
        hierarchy.structureVersion &+= 1
        let stamp = hierarchy.nextStamp()
        // Taken out of `slots` so that the sink holds the only reference to the children's list and
        // can edit it in place.
        var existing = slots.removeValue(forKey: index) ?? SlotChildren()
        let sink = ReconcileSink(parent: self, slot: index, stamp: stamp, previous: existing.list, index: existing.byID)
        existing.list = []
        existing.byID = IDIndex()
        var visitor = ContainerVisitor(sink: sink)
        schema.visitChildren(index, cell: cell, &visitor)
        let holdsSameChildren = sink.metOnlyThePreviousChildren
        #if DEBUG
        checkUnvisitedModels(inSlot: index, cell: cell)
        #endif

        // The kept children are already in order; place the others (shared, new, continued) among
        // them. Every decision that reads this pass's stamps is taken first: continuing a child or
        // anchoring a new one reconciles *their* slots, with stamps of their own, which overwrite the
        // marks of any context met there too (a model shared between this slot and a new child's).
        let (keptList, unmatched) = sink.takeKept()
        var list = keptList
        var addedIDs: Set<IDKey> = []
        var anchoring: Set<ObjectIdentifier> = []
        var pending: [(position: Int, work: PendingPlacement)] = []
        // Children anchored during the visit that no waiting model precedes go straight to their
        // place (the usual write adds only such children: no second list of them is built).
        var placed: [(position: Int, child: Context)] = []
        var removedChildren = RemovedChildren()
        existing.byID = sink.takeIndex()
        for (position, entry) in sink.others {
            switch entry {
            case .anchored(let child):
                if pending.isEmpty {
                    if placed.isEmpty { placed.reserveCapacity(sink.others.count) }
                    placed.append((position, child))
                } else {
                    pending.append((position, .ready(child)))
                }
            case .shared(let child):
                let key = child.idKey
                // A previous child with the id that nothing kept so far leaves the slot in this
                // write (were it continued later in the value, that would be the duplicate).
                if let key, let other = existing.byID[key], other !== child, !other.isMarked(in: stamp) {
                    reportDuplicate(key, of: child.typeName, slot: index)
                    continue
                }
                let moved = child.places.isEmpty
                // A shared model put back in the first place it lost in this section (the tree
                // as it was, say, after `items = []; items = [shared]` in a transaction) is first
                // there again.
                let regained = !moved && child.regainsFirstPlace(parent: self, slot: index)
                if regained {
                    child.places.insertFirst(Place(parent: self, slot: index))
                } else {
                    child.places.append(Place(parent: self, slot: index))
                }
                child.placesDidChange()
                // Removed from its place earlier in this section (a move): it inherits from here.
                if moved || regained { child.firstPlaceDidChange() }
                child.keep(in: stamp)
                pending.append((position, .ready(child)))
                if let key { existing.byID[key] = child }
            case .initial(let initial):
                if let context = initial.box.context {
                    // Anchored earlier in this same write (it appears twice, or also inside a new
                    // sibling): it is now a live model like any other.
                    if context.isKept(in: stamp) || context.places.contains(where: { $0.parent === self && $0.slot == index }) {
                        sink.reportTwice(typeName: context.typeName)
                        continue
                    }
                    guard context.hierarchy === hierarchy, context.state.isLive else { continue }
                    context.places.append(Place(parent: self, slot: index))
                    context.keep(in: stamp)
                    pending.append((position, .ready(context)))
                    continue
                }
                if let id = initial.id {
                    if let live = existing.byID[id], live.isMarked(in: stamp),
                       live.schema === initial.schema {
                        live.keep(in: stamp)
                        pending.append((position, .continue(initial, live)))
                        continue
                    }
                    if existing.byID[id] == nil, !hierarchy.orphans.isEmpty,
                       let removed = removedChildren.take(id, schema: initial.schema, from: self, slot: index) {
                        // Removed from this slot earlier in the transaction (`items.removeAll()`,
                        // then an `append` per refreshed item): it is still live, and continues.
                        removed.places.append(Place(parent: self, slot: index))
                        removed.placesDidChange()
                        removed.keep(in: stamp)
                        existing.byID[id] = removed
                        pending.append((position, .continue(initial, removed)))
                        continue
                    }
                    if existing.byID[id] != nil || !addedIDs.insert(id).inserted {
                        reportDuplicate(id, of: initial.schema.typeName, slot: index)
                        continue
                    }
                }
                if !anchoring.insert(ObjectIdentifier(initial.box)).inserted {
                    sink.reportTwice(typeName: initial.schema.typeName)
                    continue
                }
                pending.append((position, .anchor(initial)))
            }
        }
        for issue in sink.issues {
            hierarchy.deferIssue(issue)
        }
        sink.clearIssues()

        for child in unmatched where !child.isKept(in: stamp) {
            existing.byID.forget(child)
            child.removePlace(parent: self, slot: index)
        }

        // Children of the kept prefix continued by new instances, which have child slots of their
        // own to reconcile (see `ReconcileSink.continueExpected`).
        for continuation in sink.deferredContinuations {
            hierarchy.nested(.continuation(continuation))
        }
        placed.reserveCapacity(placed.count + pending.count)
        for (position, work) in pending {
            switch work {
            case .ready(let child):
                placed.append((position, child))
            case .continue(let initial, let live):
                if live.schema.childSlotIndices.isEmpty {
                    initial.adopt(live)
                } else {
                    hierarchy.nested(.adopt(initial, live))
                }
                placed.append((position, live))
            case .anchor(let initial):
                if let context = initial.box.context {
                    // Anchored meanwhile, inside a new sibling: a live model like any other.
                    guard context.hierarchy === hierarchy, context.state.isLive else { continue }
                    context.places.append(Place(parent: self, slot: index))
                    placed.append((position, context))
                    continue
                }
                let child = initial.anchor(hierarchy, Place(parent: self, slot: index), dependencyStorage)
                guard child.state.isLive else { continue }
                placed.append((position, child))
                if let id = initial.id { existing.byID[id] = child }
            }
        }
        insert(placed, into: &list)
        existing.list = list
        if !list.isEmpty { slots[index] = existing }
        childrenDidChange()
        return holdsSameChildren
    }

    /// The children removed from a slot earlier in the current section, still live and without a
    /// place, by id: a new instance with the id of one of them continues it. Built on first use.
    private struct RemovedChildren {
        private var byID: [IDKey: Context]?

        /// The removed child of `parent`'s slot `slot` with the id `id` and the schema `schema`, if
        /// there is one; it is taken (a second instance with the id is a duplicate).
        mutating func take(_ id: IDKey, schema: AnySchema, from parent: Context, slot: Int) -> Context? {
            if byID == nil {
                var found: [IDKey: Context] = [:]
                for orphan in parent.hierarchy.orphans
                where orphan.slot == slot && orphan.parent == ObjectIdentifier(parent) {
                    let context = orphan.context
                    guard context.places.isEmpty, context.state.isLive, let key = context.idKey else { continue }
                    found[key] = context
                }
                byID = found
            }
            guard let context = byID?[id], context.schema === schema else { return nil }
            byID?[id] = nil
            return context
        }
    }

    /// What a reconciliation does with a model of the new value that is not simply kept.
    private enum PendingPlacement {
        /// A live model placed here (shared from elsewhere, or anchored earlier in this write).
        case ready(Context)
        /// A new instance continuing the live child with its id.
        case `continue`(ReconcileSink.InitialModel, Context)
        /// A new model to anchor here.
        case anchor(ReconcileSink.InitialModel)
    }

    /// Puts the placed children among the kept ones in `list`: each goes before the kept child at
    /// its position (after every kept one when its position is the count), placed children at one
    /// position in the order they were met. Linear, and in place when all go at the end.
    private final func insert(_ placed: [(position: Int, child: Context)], into list: inout [Context]) {
        guard let first = placed.first else { return }
        if first.position == list.count {
            // Positions never decrease: every placed child goes after the kept ones.
            list.append(contentsOf: placed.lazy.map(\.child))
            return
        }
        var result: [Context] = []
        result.reserveCapacity(list.count + placed.count)
        var next = 0
        for (position, child) in list.enumerated() {
            while next < placed.count, placed[next].position == position {
                result.append(placed[next].child)
                next += 1
            }
            result.append(child)
        }
        result.append(contentsOf: placed[next...].lazy.map(\.child))
        list = result
    }

    /// Reports a second model of type `modelType` with the id of one the slot holds. Ids are scoped
    /// by type, so the message names it: a slot of an enum may hold several model types.
    private final func reportDuplicate(_ key: IDKey, of modelType: String, slot index: Int) {
        let id = key.id
        hierarchy.deferIssue(ModelIssue(
            "\(typeName).\(schema.name(index)) holds two different \(modelType) models with the id \(id); "
                + "the second was not anchored.",
            fixes: [
                "Give each model in a collection its own id.",
                "To replace a model, remove the old instance in the same write that adds the new one.",
            ]
        ))
    }

    /// Removes one place; a context left without places is destructed when the section ends.
    final func removePlace(parent: Context, slot: Int) {
        if let position = places.firstIndex(where: { $0.parent === parent && $0.slot == slot }) {
            places.remove(at: position)
            // Still live elsewhere (a model left without a place is torn down).
            if !places.isEmpty { placesDidChange() }
            if position == 0 && !places.isEmpty {
                // A shared model that lost its first place inherits from its next one now.
                if places[0].parent !== parent { firstPlaceDidChange() }
                // Listed for the rest of the section, so that the place is first again if the model
                // is put back there (see `regainsFirstPlace`).
                hierarchy.orphans.append(Orphan(context: self, parent: parent, slot: slot))
            }
        }
        if places.isEmpty && !isRoot {
            hierarchy.orphans.append(Orphan(context: self, parent: parent, slot: slot))
        }
    }

    /// Whether the place `parent`, `slot` is one this model lost as its first (or only) place in
    /// the current section: the hierarchy's orphans list it. If so the entry is used up. Caller
    /// holds the lock for a section.
    final func regainsFirstPlace(parent: Context, slot: Int) -> Bool {
        let parentID = ObjectIdentifier(parent)
        guard let index = hierarchy.orphans.lastIndex(where: {
            $0.context === self && $0.parent == parentID && $0.slot == slot
        }) else { return false }
        hierarchy.orphans.remove(at: index)
        return true
    }

    /// Whether `other` is this context or one of its ancestors.
    final func isSelfOrAncestor(_ other: Context) -> Bool {
        // The usual chain: one place per model up to the root.
        var current = self
        while true {
            if current === other { return true }
            if current.places.isEmpty { return false }
            if current.places.count > 1 { break }
            current = current.places[0].parent
        }
        var visited: Set<ObjectIdentifier> = []
        var queue: [Context] = [self]
        while let context = queue.popLast() {
            if context === other { return true }
            guard visited.insert(ObjectIdentifier(context)).inserted else { continue }
            queue.append(contentsOf: context.places.map(\.parent))
        }
        return false
    }

    /// The model's path from its root, as printed: `AppModel.counters[0].counter`. Cached until the
    /// hierarchy's structure changes (see `Hierarchy.structureVersion`).
    ///
    /// Built by walking up to the nearest ancestor with a valid cached path (or the root), not
    /// recursively: a chain of 10,000 models would overflow the thread's stack. The model and its
    /// parent keep what was built (siblings named in one commit find their parent's path); the
    /// ancestors in between do not, so that naming the bottom of a deep chain keeps one path, not one
    /// per level.
    final func path() -> String {
        let version = hierarchy.structureVersion
        if let cached = extras?.cachedPath, cached.version == version { return cached.path }
        // The components from this model up, each its parent's slot name and the child's place in it.
        var components: [String] = []
        var context = self
        var prefix: String?
        var parentPath: String?
        while true {
            guard let place = context.places.first else {
                prefix = context.typeName
                break
            }
            let parent = place.parent
            components.append(".\(parent.schema.name(place.slot))\(parent.childPathComponent(of: context, slot: place.slot))")
            if let cached = parent.extras?.cachedPath, cached.version == version {
                prefix = cached.path
                break
            }
            context = parent
        }
        var path = prefix.unsafelyUnwrapped
        for (level, component) in components.reversed().enumerated() {
            if level == components.count - 1 { parentPath = path }
            path += component
        }
        if let parentPath, let parent = places.first?.parent, parent.extras?.cachedPath?.version != version {
            parent.ensuredExtras.cachedPath = (version, parentPath)
        }
        ensuredExtras.cachedPath = (version, path)
        return path
    }

    /// The path component (`[2]`, `.detail`) of `child` in slot `slot`. One visit of the slot names
    /// all of its children and is kept until the hierarchy's structure changes: a commit that names
    /// many siblings (a refresh under a Tester or `_printChanges`, a `modifications` listener) visits
    /// the slot once, not once per sibling. A child the kept visit did not name (bound to its
    /// context since) is looked up by a new visit. Caller holds the lock.
    private final func childPathComponent(of child: Context, slot: Int) -> String {
        let version = hierarchy.structureVersion
        if let cache = extras?.childPaths, cache.version == version,
           let component = cache.bySlot[slot]?[ObjectIdentifier(child)] {
            return component
        }
        return childPathComponents(slot: slot, version: version)[ObjectIdentifier(child)] ?? ""
    }

    /// Visits slot `slot` and keeps the path component of each child in it (see
    /// `childPathComponent(of:slot:)`). Caller holds the lock.
    private final func childPathComponents(slot: Int, version: UInt64) -> [ObjectIdentifier: String] {
        var components: [ObjectIdentifier: String] = [:]
        if let cell = cell(slot) {
            let sink = CollectingSink(tracksPath: true)
            var visitor = ContainerVisitor(sink: sink)
            schema.visitChildren(slot, cell: cell, &visitor)
            // A model met twice keeps its first path.
            for entry in sink.entries {
                guard let child = entry.box.context else { continue }
                let key = ObjectIdentifier(child)
                if components[key] == nil { components[key] = entry.path.joined() }
            }
        }
        let extras = ensuredExtras
        if let cache = extras.childPaths, cache.version == version {
            cache.bySlot[slot] = components
        } else {
            let cache = ContextExtras.ChildPathCache(version: version)
            cache.bySlot[slot] = components
            extras.childPaths = cache
        }
        return components
    }

    /// All children, in slot order.
    final var children: [Context] {
        schema.childSlotIndices.flatMap { slots[$0]?.list ?? [] }
    }
}
