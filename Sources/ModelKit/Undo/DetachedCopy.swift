/// Detached copies: new initial instances holding a live (or detached) model's values, which undo
/// keeps for a removed child and anchors again when it brings the child back.
///
/// A destructed context cannot be anchored again (reconciliation refuses "a destructed model"), and
/// a removed model's cells are retired (values that are not plain data go back to their initial
/// values). So when a commit removes a child from a slot that tracks undo, the child is copied, with
/// its subtree, just before its teardown; restoring the slot's old value puts a fresh copy of that
/// snapshot where the removed instance was, and reconciliation anchors and activates it.
///
/// Models are replaced where they are held directly, or in optionals, arrays, dictionaries and
/// other mutable collections (`IdentifiedArrayOf`, API.md section 11), nested in any of these. A
/// custom ``ModelContainer`` only visits its models and cannot be rebuilt: the models it holds are
/// left as they are (undo reports those it cannot bring back, see Undo/UnrevivedModels.swift).

extension Model {
    /// A new initial instance with the model's id, its current values and, in place of the models
    /// held directly or in optionals, arrays, dictionaries and collections, their detached copies
    /// (of a live model: of the instance its context holds). The caller holds the lock guarding the
    /// model's cells (or the copy is private to the caller).
    ///
    /// - Parameter substitute: Given each model held below this one, at any depth, a model to hold in
    ///   its place, uncopied; nil to copy it.
    func detachedCopy(substituting substitute: ((any Model) -> (any Model)?)? = nil) -> Self {
        // An earlier instance of a model continued by a newer one (same-id continuity, API.md
        // section 8), which undo may have put back in a slot: its cells forward to the live ones and
        // keep the values they had when it was continued. The live instance is copied instead.
        if let live = node.box.context?.model(as: Self.self), live.node.box !== node.box {
            return live.detachedCopy(substituting: substitute)
        }
        let schema = Schema<Self>.shared(self)
        var copy = self
        let box = NodeBox(id: node.box.id)
        // Set up like the instance it copies: the modifiers it was anchored with (or, for a copy of
        // a copy, those the copy holds).
        let context = node.box.context
        var modifiers = context.map { $0.extras?.anchoredModifiers } ?? node.box.copyOfModifiers()
        // Its `withDependencies` closures are not run again: the copy gets the values they gave the
        // model. A model dependency made in one (a document's own undo stack) lives as long as the
        // hierarchy, and the copy uses it again, with its state and entries.
        if let context, modifiers?.dependencies.isEmpty == false {
            let storage = context.dependencyStorage
            modifiers?.dependencies = [{ $0.source = .values(storage, $0.hierarchy) }]
        }
        if let modifiers { _ = box.addModifier { $0 = modifiers } }
        // And the environment values and preference contributions it set: the model comes back
        // with them.
        if let context {
            if let values = context.extras?.values {
                let restorers = (values.orderedEnvironment + values.orderedPreferences).compactMap { $0.restorer() }
                if !restorers.isEmpty { _ = box.keep(NodeBox.KeptValues(restorers)) }
            }
        } else if let kept = node.box.copyOfKeptValues() {
            _ = box.keep(kept)
        }
        copy.node = ModelNode(box: box)
        for property in schema.properties {
            property.replaceCell(&copy, property.cellOf(self).undoable.detachedCopy(substituting: substitute))
        }
        return copy
    }
}

/// `value` with the models it holds (directly, or in optionals, arrays, dictionaries and
/// collections) detached, except those `substitute` gives a model for.
func detached<Value>(_ value: Value, substituting substitute: ((any Model) -> (any Model)?)? = nil) -> Value {
    mappingModels(in: value) { model in substitute?(model) ?? detachedModel(model, substitute) }
}

/// A detached copy of a model of any type (see `detachedCopy(substituting:)`).
func detachedModel<M: Model>(_ model: M, _ substitute: ((any Model) -> (any Model)?)? = nil) -> any Model {
    model.detachedCopy(substituting: substitute)
}

/// `value` with each model it holds (directly, or in optionals, arrays, dictionaries and other
/// mutable collections) replaced by `transform`'s result, which must be of the same model type
/// and id. Models in custom containers are left as they are.
func mappingModels<Value>(in value: Value, _ transform: (any Model) -> any Model) -> Value {
    if let model = value as? any Model {
        return transform(model) as! Value
    }
    if let container = value as? any ModelMappingContainer {
        return container.mappingModels(transform) as! Value
    }
    // A collection slot with no conformance (API.md section 11): any mutable collection whose
    // elements are containers. Elements are replaced in place, so the collection keeps its order
    // and, the copies having the same ids, its index by id.
    if let collection = value as? any MutableCollection {
        return mappingElements(of: collection, transform) as! Value
    }
    return value
}

private func mappingElements<C: MutableCollection>(of collection: C, _ transform: (any Model) -> any Model) -> C {
    guard C.Element.self is any ModelContainer.Type else { return collection }
    var result = collection
    var position = result.startIndex
    while position != result.endIndex {
        result[position] = mappingModels(in: result[position], transform)
        result.formIndex(after: &position)
    }
    return result
}

/// Containers whose models `mappingModels(in:_:)` can replace.
protocol ModelMappingContainer {
    func mappingModels(_ transform: (any Model) -> any Model) -> Self
}

extension Optional: ModelMappingContainer where Wrapped: ModelContainer {
    func mappingModels(_ transform: (any Model) -> any Model) -> Self {
        map { ModelKit.mappingModels(in: $0, transform) }
    }
}

extension Array: ModelMappingContainer where Element: ModelContainer {
    func mappingModels(_ transform: (any Model) -> any Model) -> Self {
        map { ModelKit.mappingModels(in: $0, transform) }
    }
}

extension Dictionary: ModelMappingContainer where Value: ModelContainer {
    func mappingModels(_ transform: (any Model) -> any Model) -> Self {
        mapValues { ModelKit.mappingModels(in: $0, transform) }
    }
}
