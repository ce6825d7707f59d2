// Anchoring models into a hierarchy and keeping child slots in step with their values.
// Everything here runs with the hierarchy lock held for a section.

extension Hierarchy {
    /// Creates the context of `model`, binds its storage and anchors its subtree. Activation of the
    /// new contexts is queued, parents first, for the end of the section.
    func makeContext<M: Model>(
        for model: M,
        place: Place?,
        inherited: DependencyValues,
        isRoot: Bool = false
    ) -> Context {
        let schema = Schema<M>.shared(model)
        let box = model.node.box
        let modifiers = unboundLock.withShortLock { box.takeModifiers() }
        var dependencies = inherited
        for override in modifiers.dependencies {
            override(&dependencies)
        }
        let context = Context(
            hierarchy: self, schema: schema, dependencies: dependencies, state: .anchored, isRoot: isRoot, model: model
        )
        if let place { context.places.append(place) }
        // A `ModelID` is unique per instance: such models never need matching by id.
        context.idKey = schema.usesInstanceIdentity ? nil : AnyHashable(model.id)

        let cells = schema.cells(of: model)
        let conflict: Int? = unboundLock.withShortLock {
            if let index = cells.firstIndex(where: { $0.isClaimed }) { return index }
            box.bind(context)
            for (index, cell) in cells.enumerated() {
                cell.bind(to: context, index: index)
            }
            return nil
        }
        if let conflict {
            deferIssue(ModelIssue(
                "\(schema.typeName).\(schema.name(conflict)) shares its storage with another model instance; this \(schema.typeName) was not anchored.",
                fixes: ["Create each model with its initializer instead of copying another model and replacing its `node`."]
            ))
            context.state = .destructed
            return context
        }
        #if DEBUG
        checkRegistration(of: model, schema: schema)
        #endif
        for printer in modifiers.printers {
            hooks.append(ChangePrinter(root: context, printer: printer))
            hasHooks = true
            recordsEveryChange = true
        }
        pendingActions.append(.activate(context, modifiers.activations))
        for index in schema.childSlotIndices {
            context.reconcileSlot(index)
        }
        return context
    }
}

extension Context {
    /// Brings child slot `index` in step with the cell's current value: anchors new models, keeps
    /// live ones, continues a live child from a new instance with its id, and removes the rest.
    final func reconcileSlot(_ index: Int) {
        guard state.isLive, let cell = cell(index) else { return }
        hierarchy.structureVersion &+= 1
        let stamp = hierarchy.nextStamp()
        // Taken out of `slots` so that the sink holds the only reference to the children's list and
        // can edit it in place.
        var existing = slots.removeValue(forKey: index) ?? SlotChildren()
        let sink = ReconcileSink(parent: self, slot: index, stamp: stamp, previous: existing.list)
        existing.list = []
        var visitor = ContainerVisitor(sink: sink)
        schema.visitChildren(index, cell: cell, &visitor)

        // The kept children are already in order; place the others (shared, new, continued) among
        // them. Every decision that reads this pass's stamps is taken first: continuing a child or
        // anchoring a new one reconciles *their* slots, with stamps of their own, which overwrite the
        // marks of any context met there too (a model shared between this slot and a new child's).
        let (keptList, unmatched) = sink.takeKept()
        var list = keptList
        var addedIDs: Set<AnyHashable> = []
        var anchoring: Set<ObjectIdentifier> = []
        var pending: [(position: Int, work: PendingPlacement)] = []
        for (position, entry) in sink.others {
            switch entry {
            case .shared(let child):
                if let key = child.idKey, let other = existing.byID[key], other !== child {
                    reportDuplicate(key, slot: index)
                    continue
                }
                child.places.append(Place(parent: self, slot: index))
                child.keptStamp = stamp
                pending.append((position, .ready(child)))
                if let key = child.idKey { existing.byID[key] = child }
            case .initial(let initial):
                if let context = initial.box.context {
                    // Anchored earlier in this same write (it appears twice, or also inside a new
                    // sibling): it is now a live model like any other.
                    if context.keptStamp == stamp || context.places.contains(where: { $0.parent === self && $0.slot == index }) {
                        sink.reportTwice(typeName: context.typeName)
                        continue
                    }
                    guard context.hierarchy === hierarchy, context.state.isLive else { continue }
                    context.places.append(Place(parent: self, slot: index))
                    context.keptStamp = stamp
                    pending.append((position, .ready(context)))
                    continue
                }
                if let id = initial.id {
                    if let live = existing.byID[id], live.markStamp == stamp, live.keptStamp != stamp,
                       live.schema === initial.schema {
                        live.keptStamp = stamp
                        pending.append((position, .continue(initial, live)))
                        continue
                    }
                    if existing.byID[id] != nil || !addedIDs.insert(id).inserted {
                        reportDuplicate(id, slot: index)
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

        for child in unmatched where child.keptStamp != stamp {
            if let key = child.idKey, existing.byID[key] === child {
                existing.byID[key] = nil
            }
            child.removePlace(parent: self, slot: index)
        }

        var placed: [(position: Int, child: Context)] = []
        placed.reserveCapacity(pending.count)
        for (position, work) in pending {
            switch work {
            case .ready(let child):
                placed.append((position, child))
            case .continue(let initial, let live):
                initial.adopt(live)
                placed.append((position, live))
            case .anchor(let initial):
                if let context = initial.box.context {
                    // Anchored meanwhile, inside a new sibling: a live model like any other.
                    guard context.hierarchy === hierarchy, context.state.isLive else { continue }
                    context.places.append(Place(parent: self, slot: index))
                    placed.append((position, context))
                    continue
                }
                let child = initial.anchor(hierarchy, Place(parent: self, slot: index), dependencies)
                guard child.state.isLive else { continue }
                placed.append((position, child))
                if let id = initial.id { existing.byID[id] = child }
            }
        }
        insert(placed, into: &list)
        existing.list = list
        if !list.isEmpty { slots[index] = existing }
        childrenDidChange()
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

    private final func reportDuplicate(_ id: AnyHashable, slot index: Int) {
        hierarchy.deferIssue(ModelIssue(
            "\(typeName).\(schema.name(index)) holds two different models with the id \(id); the second was not anchored.",
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
        }
        if places.isEmpty && !isRoot {
            hierarchy.orphans.append(self)
        }
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
    final func path() -> String {
        let version = hierarchy.structureVersion
        if let cached = extras?.cachedPath, cached.version == version { return cached.path }
        let path = uncachedPath()
        ensuredExtras.cachedPath = (version, path)
        return path
    }

    private final func uncachedPath() -> String {
        guard let place = places.first else {
            return typeName
        }
        let parent = place.parent
        var components = ""
        if let cell = parent.cell(place.slot) {
            let sink = CollectingSink(tracksPath: true)
            var visitor = ContainerVisitor(sink: sink)
            parent.schema.visitChildren(place.slot, cell: cell, &visitor)
            if let entry = sink.entries.first(where: { $0.box.context === self }) {
                components = entry.path.joined()
            }
        }
        return "\(parent.path()).\(parent.schema.name(place.slot))\(components)"
    }

    /// All children, in slot order.
    final var children: [Context] {
        schema.childSlotIndices.flatMap { slots[$0]?.list ?? [] }
    }
}

extension Context {
    /// Continues this live context with `newModel`, a new instance with the same id (API.md
    /// section 8): the new instance's storage becomes the live storage, each of its values that
    /// differs from the live one counts as a change, its child slots are reconciled against the live
    /// children (recursively continuing those with matching ids), and the older instance's cells
    /// forward to the new ones, so that every copy of either instance reaches the one live model.
    func adopt<M: Model>(_ newModel: M) {
        guard let oldModel = model else { return }
        // The caller matched the schemas: this context's model is an `M` too.
        let typedSchema = unsafeDowncast(schema, to: Schema<M>.self)
        let newCells = typedSchema.cells(of: newModel)
        let oldCells = schema.cells(of: oldModel)
        let newBox = newModel.node.box
        let hasChildSlots = !typedSchema.childSlotIndices.isEmpty
        // Without child slots, binding, applying the values and forwarding take one hold of
        // `unboundLock` (which also guards the new cells until they are bound).
        let adopted = unboundLock.withShortLock { () -> Bool in
            if newBox.context != nil || newCells.contains(where: { $0.isClaimed }) { return false }
            _ = newBox.takeModifiers()
            newBox.bind(self)
            for (index, cell) in newCells.enumerated() where cell !== oldCells[index] {
                cell.bind(to: self, index: index)
            }
            if !hasChildSlots {
                for index in newCells.indices where newCells[index] !== oldCells[index] {
                    applyContinued(index, old: oldCells[index], new: newCells[index], schema: typedSchema)
                    oldCells[index].forward(to: newCells[index])
                }
            }
            return true
        }
        guard adopted else { return }
        model = newModel
        if replacedInstances < .max { replacedInstances += 1 }
        guard hasChildSlots else { return }
        for index in newCells.indices where newCells[index] !== oldCells[index] {
            applyContinued(index, old: oldCells[index], new: newCells[index], schema: typedSchema)
        }
        unboundLock.withShortLock {
            for index in newCells.indices where newCells[index] !== oldCells[index] {
                oldCells[index].forward(to: newCells[index])
            }
        }
    }

    /// Records property `index` of a continued model as a change if the new instance's value
    /// differs; a child slot is reconciled first. Caller holds the section.
    private func applyContinued(_ index: Int, old oldCell: AnyCell, new newCell: AnyCell, schema: AnySchema) {
        if schema.isChildSlot(index) {
            // The slot is a change when its children changed, or when it may hold more than its
            // models (a key, an enum case): continued children alone are no change to it, their
            // own differences being changes of their own.
            let before = slots[index]?.list ?? []
            reconcileSlot(index)
            let after = slots[index]?.list ?? []
            let value = newCell.anyValue
            if !(value is any OnlyModels || value is any Model) || !before.elementsEqual(after, by: ===) {
                recordBoxedChangeInSection(index, old: oldCell.anyValue, new: value)
            }
        } else if newCell.differs(fromSameProperty: oldCell) {
            recordBoxedChangeInSection(index, old: oldCell.anyValue, new: newCell.anyValue)
        }
    }
}

/// Matches the models of a child slot's new value against the slot's live children.
final class ReconcileSink: VisitSink {
    /// A model met that is not simply kept.
    enum Entry {
        case shared(Context)
        case initial(InitialModel)
    }

    /// A model not anchored yet (a reference, so that entries stay one word). The typed subclass
    /// anchors or continues it.
    class InitialModel {
        let box: NodeBox
        /// The id to match live children with; nil for `ModelID`s, which no other instance shares.
        let id: AnyHashable?
        let schema: AnySchema

        init(box: NodeBox, id: AnyHashable?, schema: AnySchema) {
            self.box = box
            self.id = id
            self.schema = schema
        }

        /// Anchors the model at `place`. Caller holds the section.
        func anchor(_ hierarchy: Hierarchy, _ place: Place, _ dependencies: DependencyValues) -> Context {
            fatalError("abstract")
        }

        /// Continues the live child `live` (same id, same type) with this instance.
        func adopt(_ live: Context) {}
    }

    final class TypedInitialModel<M: Model>: InitialModel {
        let model: M

        init(_ model: M, box: NodeBox, schema: Schema<M>) {
            self.model = model
            super.init(box: box, id: schema.usesInstanceIdentity ? nil : AnyHashable(model.id), schema: schema)
        }

        override func anchor(_ hierarchy: Hierarchy, _ place: Place, _ dependencies: DependencyValues) -> Context {
            hierarchy.makeContext(for: model, place: place, inherited: dependencies)
        }

        override func adopt(_ live: Context) {
            live.adopt(model)
        }
    }

    /// The schema of the last type of new model met (a slot's models are usually of one type).
    @exclusivity(unchecked) private var lastSchema: AnySchema?

    private func schema<M: Model>(for model: M) -> Schema<M> {
        if let lastSchema, lastSchema.modelTypeID == ObjectIdentifier(M.self) {
            return unsafeDowncast(lastSchema, to: Schema<M>.self)
        }
        let schema = Schema<M>.shared(model)
        lastSchema = schema
        return schema
    }

    let parent: Context
    let slot: Int
    let stamp: UInt64
    // Safety (exclusivity): only this sink's own visits change these, one call at a time.
    /// The slot's children before this write, in order.
    @exclusivity(unchecked) private var previous: [Context]
    /// How many of the models met first were `previous`'s first children, in order: the usual
    /// writes (appending, removing at the end, changing nothing) keep a prefix, checked by identity
    /// alone, and the list is edited in place.
    @exclusivity(unchecked) private var prefixCount = 0
    /// Whether a model met did not continue that prefix.
    @exclusivity(unchecked) private var diverged = false
    /// The children still in the slot met after the prefix, in their new order.
    @exclusivity(unchecked) private var kept: [Context] = []
    /// The other models met, each with its position among the kept ones.
    @exclusivity(unchecked) private(set) var others: [(position: Int, entry: Entry)] = []
    @exclusivity(unchecked) private(set) var issues: [ModelIssue] = []

    init(parent: Context, slot: Int, stamp: UInt64, previous: [Context]) {
        self.parent = parent
        self.slot = slot
        self.stamp = stamp
        self.previous = previous
    }

    /// How many children are kept so far.
    private var keptCount: Int { prefixCount + kept.count }

    /// The children kept, in their new order, and the previous children after the prefix (those
    /// not kept among them are removed). Call once, after the visit.
    func takeKept() -> (kept: [Context], unmatched: [Context]) {
        var list = previous
        previous = []
        // A copy of the (usually short) tail, so that `list` stays uniquely referenced.
        let unmatched = Array(list[prefixCount...])
        if prefixCount < list.count { list.removeSubrange(prefixCount...) }
        list.append(contentsOf: kept)
        return (list, unmatched)
    }

    override func expectedNext() -> ArraySlice<Context>? {
        diverged ? nil : previous[prefixCount...]
    }

    override func metExpected(_ count: Int) {
        for child in previous[prefixCount..<(prefixCount + count)] { child.keptStamp = stamp }
        prefixCount += count
    }

    /// A child still in this slot: kept, known by its box alone.
    override func visitKnown(_ unretainedBox: Unmanaged<NodeBox>) -> Bool {
        if !diverged {
            if prefixCount < previous.count,
               unretainedBox._withUnsafeGuaranteedRef({ $0.isBound(to: previous[prefixCount]) }) {
                previous[prefixCount].keptStamp = stamp
                prefixCount += 1
                return true
            }
            diverge()
        }
        let box = unretainedBox.takeUnretainedValue()
        guard let context = box.context, context.markStamp == stamp, context.keptStamp != stamp,
              context.hierarchy === parent.hierarchy
        else { return false }
        context.keptStamp = stamp
        kept.append(context)
        return true
    }

    /// Ends the prefix: marks the previous children after it, so that the rest of the visit can
    /// recognise them wherever they are met.
    private func diverge() {
        diverged = true
        for child in previous[prefixCount...] { child.markStamp = stamp }
    }

    override func visit<M: Model>(_ model: M, visitor: inout ContainerVisitor) {
        let box = model.node.box
        guard let context = box.context else {
            others.append((keptCount, .initial(TypedInitialModel(model, box: box, schema: schema(for: model)))))
            return
        }
        classify(context, typeName: context.schema.typeName)
    }

    /// Sorts a live model met in the new value: kept, shared from elsewhere, or rejected.
    private func classify(_ context: Context, typeName: String) {
        // The common case: a child still in this slot. This pass marked exactly the slot's live
        // children with `stamp` (stamps are never reused within a hierarchy), so the mark and the
        // hierarchy are all it takes.
        if context.markStamp == stamp && context.keptStamp != stamp && context.hierarchy === parent.hierarchy {
            context.keptStamp = stamp
            kept.append(context)
            return
        }
        let property = "\(parent.typeName).\(parent.schema.name(slot))"
        if context.state == .frozen {
            return reject(ModelIssue(
                "A frozen copy of \(typeName) was added to \(property); frozen copies cannot be anchored.",
                fixes: ["Add a new \(typeName) built from the frozen copy's values."]
            ))
        }
        if context.hierarchy !== parent.hierarchy {
            return reject(ModelIssue(
                "A \(typeName) anchored in another hierarchy was added to \(property); it was not anchored here.",
                fixes: ["Create a new \(typeName) for this hierarchy, or share state through a dependency."]
            ))
        }
        if !context.state.isLive {
            return reject(ModelIssue(
                "A destructed \(typeName) was added to \(property); destructed models cannot be anchored again.",
                fixes: [
                    "Create a new \(typeName) instead of re-inserting a removed one.",
                    "To move a model, add it to its new place before removing it from the old one, or do both in one `node.transaction`.",
                ]
            ))
        }
        if context.keptStamp == stamp {
            return reject(ModelIssue(
                "\(property) holds the same \(typeName) twice; it was anchored once.",
                fixes: ["Store each model once per collection."]
            ))
        }
        if parent.isSelfOrAncestor(context) {
            return reject(ModelIssue(
                "A \(typeName) was added to \(property), which is inside that same \(typeName); a model cannot be its own descendant.",
                fixes: ["Remove the model from its current place first, or add a new instance."]
            ))
        }
        others.append((keptCount, .shared(context)))
    }

    private func reject(_ issue: ModelIssue) {
        issues.append(issue)
    }

    /// Reports a model met twice in this slot's new value.
    func reportTwice(typeName: String) {
        issues.append(ModelIssue(
            "\(parent.typeName).\(parent.schema.name(slot)) holds the same \(typeName) twice; it was anchored once.",
            fixes: ["Store each model once per collection."]
        ))
    }

    func clearIssues() {
        issues = []
    }
}

/// A container whose value is nothing but its models, in order: a model, an optional model, an
/// array of models. Two such values holding the same live children are the same value.
private protocol OnlyModels {}
extension Optional: OnlyModels where Wrapped: Model {}
extension Array: OnlyModels where Element: Model {}
