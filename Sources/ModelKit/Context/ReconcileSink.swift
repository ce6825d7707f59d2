/// Matches the models of a child slot's new value against the slot's live children.
final class ReconcileSink: VisitSink {
    /// A model met that is not simply kept.
    enum Entry {
        case shared(Context)
        case initial(InitialModel)
        /// A new model the visit anchored at once (see `anchorAtOnce`), already in this slot.
        case anchored(Context)
    }

    /// A model not anchored yet (a reference, so that entries stay one word). The typed subclass
    /// anchors or continues it.
    class InitialModel {
        let box: NodeBox
        /// The id to match live children with; nil for `ModelID`s, which no other instance shares.
        let id: IDKey?
        let schema: AnySchema

        init(box: NodeBox, id: IDKey?, schema: AnySchema) {
            self.box = box
            self.id = id
            self.schema = schema
        }

        /// Anchors the model at `place`. Caller holds the section.
        func anchor(_ hierarchy: Hierarchy, _ place: Place, _ dependencies: DependencyValues.Storage) -> Context {
            fatalError("abstract")
        }

        /// Continues the live child `live` (same id, same type) with this instance.
        func adopt(_ live: Context) {}
    }

    final class TypedInitialModel<M: Model>: InitialModel {
        let model: M

        init(_ model: M, box: NodeBox, id: IDKey?, schema: Schema<M>) {
            self.model = model
            super.init(box: box, id: id, schema: schema)
        }

        override func anchor(_ hierarchy: Hierarchy, _ place: Place, _ dependencies: DependencyValues.Storage) -> Context {
            hierarchy.makeContext(for: model, place: place, inherited: dependencies)
        }

        override func adopt(_ live: Context) {
            live.adopt(model)
        }
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
    /// How many children of the prefix are marked kept (see `markPrefixKept()`).
    @exclusivity(unchecked) private var keptPrefixCount = 0
    /// Whether a model met did not continue that prefix.
    @exclusivity(unchecked) private var diverged = false
    /// The children still in the slot met after the prefix, in their new order.
    @exclusivity(unchecked) private var kept: [Context] = []
    /// The other models met, each with its position among the kept ones.
    @exclusivity(unchecked) private(set) var others: [(position: Int, entry: Entry)] = []
    @exclusivity(unchecked) private(set) var issues: [ModelIssue] = []

    /// The slot's index of its children by id, handed over for the visit (see `takeIndex()`), so
    /// that a model anchored at once is indexed (and a second model with its id found) in one step.
    @exclusivity(unchecked) private var index: IDIndex
    /// Whether a new model met earlier waits for the end of the visit: from then on every new
    /// model does, so that new models are still activated in the order they were met.
    @exclusivity(unchecked) private var defersAnchoring = false
    /// A slot that had no children (its first value, or one replacing them all): the children
    /// anchored at once before any other model was met, in order. They are the front of the new
    /// list as they are, recorded nowhere else (a million new children take 8 MB here, instead of
    /// an entry each in `others` and in the placements).
    @exclusivity(unchecked) private var anchoredInOrder: [Context] = []
    /// How many models the collections visited so far hold (see `willVisit(count:)`).
    @exclusivity(unchecked) private var expectedCount = 0

    init(parent: Context, slot: Int, stamp: UInt64, previous: [Context], index: IDIndex) {
        self.parent = parent
        self.slot = slot
        self.stamp = stamp
        self.previous = previous
        self.index = index
    }

    /// The slot's index by id, with the models anchored at once. Call once, after the visit.
    func takeIndex() -> IDIndex {
        defer { index = IDIndex() }
        return index
    }

    /// Sizes the lists a slot without children fills with new children, from the collection's
    /// count: no regrowth while a million children are anchored, and no spare capacity after.
    override func willVisit(count: Int) {
        expectedCount += count
        // Once: reserving again for each of many small collections would copy the list each time.
        if previous.isEmpty && others.isEmpty && anchoredInOrder.isEmpty {
            anchoredInOrder.reserveCapacity(count)
        }
    }

    /// Whether the models met are the slot's previous children, in their order, and nothing else:
    /// the write left the slot holding the same children (those continued by new instances
    /// included). Call after the visit, before `takeKept()`.
    var metOnlyThePreviousChildren: Bool {
        !diverged && prefixCount == previous.count && kept.isEmpty && others.isEmpty && anchoredInOrder.isEmpty
    }

    /// How many children are kept so far (the children anchored in order count as kept).
    private var keptCount: Int { prefixCount + kept.count + anchoredInOrder.count }

    /// The children kept, in their new order, and the previous children after the prefix (those
    /// not kept among them are removed). Call once, after the visit.
    func takeKept() -> (kept: [Context], unmatched: [Context]) {
        var list = previous
        previous = []
        if list.isEmpty && kept.isEmpty {
            defer { anchoredInOrder = [] }
            return (anchoredInOrder, [])
        }
        // A copy of the (usually short) tail, so that `list` stays uniquely referenced.
        let unmatched = Array(list[prefixCount...])
        if prefixCount < list.count { list.removeSubrange(prefixCount...) }
        list.append(contentsOf: kept)
        list.append(contentsOf: anchoredInOrder)
        return (list, unmatched)
    }

    override func expectedNext() -> ArraySlice<Context>? {
        diverged ? nil : previous[prefixCount...]
    }

    override func metExpected(_ count: Int) {
        prefixCount += count
    }

    /// Marks the children of the prefix met so far as kept by this pass. Lazily: only a live model
    /// met again after the prefix (`classify`) asks whether it was kept, so the usual write (the
    /// prefix, then new models, or nothing) marks none of them, and touches no context but the
    /// ones it changes.
    private func markPrefixKept() {
        guard keptPrefixCount < prefixCount else { return }
        for child in previous[keptPrefixCount..<prefixCount] { child.keep(in: stamp) }
        keptPrefixCount = prefixCount
    }

    /// A child still in this slot: kept, known by its box alone.
    override func visitKnown(_ unretainedBox: Unmanaged<NodeBox>) -> Bool {
        if !diverged {
            if prefixCount < previous.count {
                let bits = unretainedBox._withUnsafeGuaranteedRef { $0.contextBits.load(ordering: .relaxed) }
                if bits == UInt(bitPattern: Unmanaged.passUnretained(previous[prefixCount]).toOpaque()) {
                    prefixCount += 1
                    return true
                }
                // A model not anchored yet may be a new instance continuing the expected child:
                // the visit matches its id (`expectedChild`, `continueExpected`).
                if bits == 0 { return false }
            }
            diverge()
        }
        let box = unretainedBox.takeUnretainedValue()
        guard let context = box.context, context.isMarked(in: stamp),
              context.hierarchy === parent.hierarchy
        else { return false }
        context.keep(in: stamp)
        kept.append(context)
        return true
    }

    /// Ends the prefix: marks the previous children after it, so that the rest of the visit can
    /// recognise them wherever they are met.
    private func diverge() {
        diverged = true
        for child in previous[prefixCount...] { child.mark(in: stamp) }
    }

    override func expectedChild(of type: ObjectIdentifier) -> Unmanaged<Context>? {
        guard !diverged, prefixCount < previous.count else { return nil }
        let expected = previous[prefixCount]
        guard expected.schema.modelTypeID == type, !expected.schema.usesInstanceIdentity else { return nil }
        // Safety: `previous` keeps the context for the whole visit, which outlives the caller's
        // use of it.
        return Unmanaged.passUnretained(expected)
    }

    /// The in-order refresh: `model` has the id of the next expected child, so it continues that
    /// child, which stays in place, like a child met by its box. The continuation reads no stamp of
    /// this pass, so a model without child slots is continued at once; one with child slots, whose
    /// continuation reconciles them with stamps of their own, once every decision of this pass is
    /// taken (`deferredContinuations`, performed by `Context.reconcileSlot`).
    override func continueExpected<M: Model>(_ model: M) -> Bool {
        let expected = previous[prefixCount]
        if expected.schema.childSlotIndices.isEmpty {
            expected.adopt(model)
        } else {
            deferredContinuations.append(TypedContinuation(model, live: expected))
        }
        prefixCount += 1
        return true
    }

    /// The usual refresh, of a model without child slots whose cells the schema found: continued
    /// at once, without generics but to write the model value (see `Context.adoptLeaf`).
    override func continueExpected(at model: UnsafeRawPointer, box: Unmanaged<NodeBox>) -> Bool {
        // Safety: `previous` (not changed during the visit) keeps the child, the child its schema,
        // the schema its offsets, and the container being visited the new instance's box: nothing
        // is retained here.
        previous.withUnsafeBufferPointer { previous in
            Unmanaged.passUnretained(previous[prefixCount])._withUnsafeGuaranteedRef { expected in
                Unmanaged.passUnretained(expected.schema)._withUnsafeGuaranteedRef { schema in
                    guard schema.childSlotIndices.isEmpty, let offsets = schema.cellOffsets else { return false }
                    box._withUnsafeGuaranteedRef { expected.adoptLeaf(at: model, box: $0, offsets: offsets) }
                    prefixCount += 1
                    return true
                }
            }
        }
    }

    /// A live child to continue with a new instance once the visit's decisions are taken.
    class Continuation {
        let live: Context

        init(live: Context) {
            self.live = live
        }

        /// Continues `live` with the new instance. Caller holds the section.
        func perform() {}
    }

    final class TypedContinuation<M: Model>: Continuation {
        let model: M

        init(_ model: M, live: Context) {
            self.model = model
            super.init(live: live)
        }

        override func perform() {
            live.adopt(model)
        }
    }

    /// The continuations of children in the kept prefix that wait for the end of the visit.
    // Safety (exclusivity): like the fields above, changed only by this sink's own visits, one
    // call at a time, and read by `reconcileSlot` after the visit.
    @exclusivity(unchecked) private(set) var deferredContinuations: [Continuation] = []

    override func visit<M: Model>(_ model: M, visitor: inout ContainerVisitor) {
        // `visitKnown` leaves the prefix open for a model not anchored yet; this one did not
        // continue it.
        if !diverged { diverge() }
        let box = model.node.box
        guard let context = box.context else {
            let schema = ModelKit.schema(of: model)
            // The key is handled without an optional where it can be: each copy or test of an
            // `IDKey?` goes through the boxed id's value witnesses.
            guard !schema.usesInstanceIdentity else {
                if anchorsAtOnce(schema) {
                    _ = anchorAtOnce(model)
                } else {
                    deferAnchoring(model, box: box, key: nil, schema: schema)
                }
                return
            }
            let key = IDKey(model.id, of: M.self)
            // A model whose id is in the index may continue a live child, or be a second model with
            // that id: the end of the visit decides.
            guard anchorsAtOnce(schema) else {
                deferAnchoring(model, box: box, key: key, schema: schema)
                return
            }
            if index.isEmpty && previous.isEmpty { index.reserveCapacity(expectedCount) }
            // One lookup finds the id's entry or makes one (holding the parent, which is never its
            // own child, until the child is anchored): the id is hashed once. An entry already there
            // is a child with this id or a colliding one: the end of the visit tells which.
            let hash = IDHash(key)
            var isTaken = false
            var isAnchored = false
            index.withEntry(hash: hash, placeholder: parent) { entry in
                guard entry === parent else {
                    isTaken = true
                    return
                }
                if let child = anchorAtOnce(model) {
                    entry = child
                    isAnchored = true
                }
            }
            if isTaken {
                deferAnchoring(model, box: box, key: key, schema: schema)
            } else if !isAnchored {
                index.removeEntry(hash: hash)
            }
            return
        }
        classify(context, typeName: context.schema.typeName)
    }

    /// Records a new model to anchor after the visit, in its place among the others.
    private func deferAnchoring<M: Model>(_ model: M, box: NodeBox, key: IDKey?, schema: Schema<M>) {
        defersAnchoring = true
        others.append((keptCount, .initial(TypedInitialModel(model, box: box, id: key, schema: schema))))
    }

    /// Whether a new model of `schema` can be anchored during the visit instead of after it: the
    /// usual way to add children, which saves recording it. That takes a model without child slots
    /// (anchoring one reconciles its slots with stamps of their own, which would overwrite this
    /// pass's marks), met before any new model that had to wait, and (the caller checks) that
    /// cannot continue a live child: its id is its instance, or no child in the index has its id.
    private func anchorsAtOnce(_ schema: AnySchema) -> Bool {
        !defersAnchoring && deferredContinuations.isEmpty && schema.childSlotIndices.isEmpty
            // A transaction that removed children earlier: the model may continue one of them.
            && parent.hierarchy.orphans.isEmpty
    }

    /// Anchors a new model at once, in this slot; returns its context if it was anchored, for the
    /// caller to index by its custom id (not in the index). The same model met twice is found by
    /// `classify` (it is kept in this pass).
    private func anchorAtOnce<M: Model>(_ model: M) -> Context? {
        let hierarchy = parent.hierarchy
        let child = hierarchy.makeContext(for: model, place: Place(parent: parent, slot: slot), inherited: parent.dependencyStorage)
        guard child.state.isLive else { return nil }
        child.keep(in: stamp)
        if previous.isEmpty && others.isEmpty {
            anchoredInOrder.append(child)
        } else {
            others.append((keptCount, .anchored(child)))
        }
        return child
    }

    /// Sorts a live model met in the new value: kept, shared from elsewhere, or rejected.
    private func classify(_ context: Context, typeName: String) {
        markPrefixKept()
        // The common case: a child still in this slot. This pass marked exactly the slot's live
        // children with `stamp` (stamps are never reused within a hierarchy), so the mark and the
        // hierarchy are all it takes.
        if context.isMarked(in: stamp) && context.hierarchy === parent.hierarchy {
            context.keep(in: stamp)
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
        // A removed model of another hierarchy is not anchored anywhere: say so, not "anchored in
        // another hierarchy", and don't suggest the in-hierarchy move, which cannot apply.
        if !context.state.isLive && context.hierarchy !== parent.hierarchy {
            return reject(ModelIssue(
                "A destructed \(typeName) (removed from another hierarchy) was added to \(property); destructed models cannot be anchored again.",
                fixes: ["Create a new \(typeName) for this hierarchy; a model cannot move between hierarchies."]
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
        if context.isKept(in: stamp) {
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
