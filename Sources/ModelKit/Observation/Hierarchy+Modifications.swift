// Which `modifications(of:)` listeners a commit's changes reach.
//
// A listener of the model itself and of models below it is listed on the model it listens on
// (`ContextExtras.modificationListeners`): a change is offered to the listeners of the changed
// model and of its ancestors only, found by walking up its places. So a write to one of n rows that
// each listen to themselves costs the depth of the row, not n. Any other listener (one of parents,
// ancestors or dependencies) is on the hierarchy's list and is offered every change.

extension Hierarchy {
    /// Queues one element for each modification listener whose relation a commit's `changes`
    /// touched: the paths of those changes, each once, in the order of the writes. Caller holds the
    /// lock.
    func collectModifications(_ changes: [PendingChange]) {
        let extras = self.extras
        let general = extras.modificationListeners
        let hasIndexed = extras.modificationListenerCount > general.count
        let stamp = nextStamp()
        var elements = CollectedElements()
        for change in changes where !change.context.schema.isTransient(change.index) {
            // A derived environment value or preference fold: the change is where it was set.
            // A memoized value is derived too: its inputs' changes are the modifications.
            let kind = KeyedKind.of(change.index)
            if kind != nil && change.old == nil { continue }
            if kind == nil && change.index >= change.context.schema.count { continue }
            var path: String?
            if hasIndexed {
                offerToIndexedListeners(change, path: &path, stamp: stamp, into: &elements)
            }
            // Listed listeners are live: one leaves the list when it is cancelled or its owner
            // destructed.
            for listener in general {
                guard let owner = listener.owner, listener.covers(change.context, owner: owner) else { continue }
                add(change, to: listener, path: &path, stamp: stamp, into: &elements)
            }
        }
        elements.forEach { element in
            deliveries.append(.property(element.listener, ObservedPayload(box: ModificationListener.PathList(element.paths))))
        }
    }

    /// Offers `change` to the listeners listed on the changed model and on its ancestors, by the
    /// rule of `ModificationListener.covers`: the model's own to `.self`, a parent's to `.children`
    /// and `.descendants`, a further ancestor's to `.descendants`. Caller holds the lock.
    private func offerToIndexedListeners(
        _ change: PendingChange, path: inout String?, stamp: UInt64, into elements: inout CollectedElements
    ) {
        let context = change.context
        offer(change, listedOn: context, accepting: .self, path: &path, stamp: stamp, into: &elements)
        // The usual chain: one place per model up to the root. Unretained, and used without a
        // retain: a place's parent outlives the place (see `Place`), and the places of the changed
        // model's ancestors stay put while the commit holds the lock.
        var current = Unmanaged.passUnretained(context)
        var accepted: ModelRelation = [.children, .descendants]
        while let parent = current._withUnsafeGuaranteedRef({ $0.places.onlyParentIfSingle }) {
            current = parent
            parent._withUnsafeGuaranteedRef {
                offer(change, listedOn: $0, accepting: accepted, path: &path, stamp: stamp, into: &elements)
            }
            accepted = .descendants
        }
        let top = current.takeUnretainedValue()
        if top.places.isEmpty { return }
        // A shared model from here up: each ancestor once, however many paths lead to it. Only
        // the changed model's own places are its parents (a model in the chain below `top` has
        // one place, in the chain).
        let parents = top === context ? context.places.map(\.parent) : []
        var visited: Set<ObjectIdentifier> = []
        var queue = top.places.map(\.parent)
        while let ancestor = queue.popLast() {
            guard visited.insert(ObjectIdentifier(ancestor)).inserted else { continue }
            let isParent = parents.contains { $0 === ancestor }
            offer(change, listedOn: ancestor, accepting: isParent ? [.children, .descendants] : .descendants,
                  path: &path, stamp: stamp, into: &elements)
            queue.append(contentsOf: ancestor.places.map(\.parent))
        }
    }

    /// Adds `change` for the listeners listed on `context` whose relation has one of `accepting`.
    /// Caller holds the lock.
    @inline(__always)
    private func offer(
        _ change: PendingChange, listedOn context: Context, accepting: ModelRelation,
        path: inout String?, stamp: UInt64, into elements: inout CollectedElements
    ) {
        guard context.flags.contains(.hasModificationListeners), let listeners = context.extras?.modificationListeners
        else { return }
        for listener in listeners where !listener.relation.isDisjoint(with: accepting) {
            add(change, to: listener, path: &path, stamp: stamp, into: &elements)
        }
    }

    /// Adds the path of `change` (computed once per change) to the element this commit collects for
    /// `listener`, starting it on the listener's first change. Caller holds the lock.
    private func add(
        _ change: PendingChange, to listener: ModificationListener, path: inout String?, stamp: UInt64,
        into elements: inout CollectedElements
    ) {
        let name: String
        if let path {
            name = path
        } else {
            name = "\(change.context.path()).\(change.context.propertyName(change.index))"
            path = name
        }
        if listener.collectedStamp == stamp {
            elements[listener.collectedPosition].add(name)
            return
        }
        listener.collectedStamp = stamp
        listener.collectedPosition = elements.count
        elements.append(ModificationElement(listener: listener, paths: [name]))
    }
}

/// The elements a commit collects, one per listener, in the order the listeners were first reached.
/// The first is held inline: the usual commit reaches one listener, and collects it without
/// allocating a list.
struct CollectedElements {
    private var first: ModificationElement?
    private var rest: [ModificationElement] = []

    var count: Int { first == nil ? 0 : 1 + rest.count }

    subscript(position: Int) -> ModificationElement {
        get { position == 0 ? first.unsafelyUnwrapped : rest[position - 1] }
        _modify {
            if position == 0 {
                yield &first!
            } else {
                yield &rest[position - 1]
            }
        }
    }

    mutating func append(_ element: ModificationElement) {
        if first == nil { first = element } else { rest.append(element) }
    }

    func forEach(_ body: (ModificationElement) -> Void) {
        guard let first else { return }
        body(first)
        for element in rest { body(element) }
    }
}

/// The paths a commit collects for one listener: each once, in the order of the writes.
struct ModificationElement {
    let listener: ModificationListener
    var paths: [String]
    /// The paths as a set, once there are enough of them for a search of the list to cost more (a
    /// commit may change thousands of properties); nil until then.
    var listed: Set<String>?

    mutating func add(_ path: String) {
        if paths.count < 8 {
            if !paths.contains(path) { paths.append(path) }
            return
        }
        if listed == nil { listed = Set(paths) }
        if listed!.insert(path).inserted { paths.append(path) }
    }
}
