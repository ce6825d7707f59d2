extension Model {
    /// An immutable snapshot of the model's tracked values, taken atomically.
    ///
    /// Child models held directly or in optionals, arrays and dictionaries are frozen copies too; models
    /// inside custom containers are the live models. The snapshot keeps the model's `id`.
    ///
    /// ```swift
    /// let before = app.frozenCopy
    /// app.addButtonTapped()
    /// assert(before.counters.isEmpty)
    /// ```
    ///
    /// - Note: Consistent even while other threads write. Writing to a frozen copy reports a runtime
    ///   warning and changes nothing.
    public var frozenCopy: Self {
        if let context = node.box.context {
            return context.hierarchy.withSection { makeFrozenCopy() }
        }
        // An initial model: each value is read under the unbound lock on its own (nothing else
        // can be consistent with a model no hierarchy guards).
        return makeFrozenCopy()
    }

    /// Builds the frozen copy. For an anchored model the caller holds its hierarchy for a section.
    private func makeFrozenCopy() -> Self {
        // Values form a cycle only after a refused write (a model added inside itself, which was
        // reported) or between models not anchored yet: the model met again inside its own copy is
        // copied without freezing its children, which ends the recursion.
        let path = FreezingPath.current
        let freezesChildren = path.enter(node.box)
        defer { if freezesChildren { path.leave() } }
        let schema = Schema<Self>.shared(self)
        let context = Context(
            hierarchy: frozenHierarchy, schema: schema, dependencyStorage: DependencyValues.Storage(),
            state: .frozen, isRoot: false
        )
        let box = NodeBox(id: node.box.id)
        var copy = self
        copy.node = ModelNode(box: box)
        for property in schema.properties {
            let cell = property.cellOf(self).frozenCopy(freezingChildren: freezesChildren)
            property.replaceCell(&copy, cell)
        }
        // The box and cells are new and not shared yet: binding them needs no lock (and taking the
        // unanchored models' lock here, inside a frozen copy's section, would break the lock order).
        box.bind(context)
        for (index, cell) in schema.cells(of: copy).enumerated() {
            cell.bind(to: context, index: index)
        }
        return copy
    }
}

/// The models whose frozen copies this thread is building, outermost first.
private final class FreezingPath {
    private static let local = ThreadLocal<FreezingPath>()
    private var boxes: [ObjectIdentifier] = []

    static var current: FreezingPath {
        if let path = local.value { return path }
        let path = FreezingPath()
        local.value = path
        return path
    }

    /// Adds `box` to the path; false if it is on it already (the values form a cycle).
    func enter(_ box: NodeBox) -> Bool {
        let id = ObjectIdentifier(box)
        if boxes.contains(id) { return false }
        boxes.append(id)
        return true
    }

    /// Removes the innermost model from the path.
    func leave() {
        boxes.removeLast()
    }
}

/// The hierarchy of every frozen copy; its lock only guards reads of frozen values.
let frozenHierarchy = Hierarchy(lockRank: .frozen)

/// Containers that can produce a copy with their models frozen.
protocol FreezableContainer {
    func frozenContainer() -> Self
}

/// `value` with the models it holds (directly, or in optionals, arrays and dictionaries) frozen.
func freeze<Value>(_ value: Value) -> Value {
    if let model = value as? any Model {
        return frozenModel(model) as! Value
    }
    if let container = value as? any FreezableContainer {
        return container.frozenContainer() as! Value
    }
    return value
}

private func frozenModel<M: Model>(_ model: M) -> M {
    model.frozenCopy
}

extension Optional: FreezableContainer where Wrapped: ModelContainer {
    func frozenContainer() -> Self { map(freeze) }
}

extension Array: FreezableContainer where Element: ModelContainer {
    func frozenContainer() -> Self { map(freeze) }
}

extension Dictionary: FreezableContainer where Value: ModelContainer {
    func frozenContainer() -> Self { mapValues(freeze) }
}
