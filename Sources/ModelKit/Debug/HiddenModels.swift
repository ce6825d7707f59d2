#if DEBUG
/// Debug builds: models a model holds where ModelKit cannot see them, so that they are never
/// anchored (their `onActivate`, tasks and observation never run): in a stored property that is
/// not `@Tracked` (`let child = Counter()`), or in a tracked value that is not a child slot (a
/// struct holding models that is not a ``ModelContainer``, `[any Model]`). Found by reflecting the
/// instance the registration check meets. Only models still initial count: holding a live model
/// anchored elsewhere (a reference) is fine. A child slot's custom containers are checked on
/// every write instead (see `checkUnvisitedModels(inSlot:)`).
func hiddenModelIssues<M: Model>(of model: M, schema: Schema<M>) -> [ModelIssue] {
    let type = typeName(M.self)
    var issues: [ModelIssue] = []
    for child in Mirror(reflecting: model).children {
        guard let label = child.label, !(child.value is ModelNode<M>) else { continue }
        if let tracked = child.value as? any AnyTracked {
            let cell = ObjectIdentifier(tracked.anyCell)
            guard let index = schema.properties.firstIndex(where: { ObjectIdentifier($0.cellOf(model)) == cell })
            else { continue }
            let name = schema.name(index)
            if schema.isChildSlot(index) { continue }
            guard let hidden = heldModelType(in: tracked.anyCell.lockedAnyValue(), depth: 0) else { continue }
            issues.append(ModelIssue(
                "\(type).\(name) holds a \(hidden) model, but its value is not a child slot ModelKit can see into; the model is never anchored (its onActivate, tasks and observation do not run).",
                fixes: [
                    "Make the type that holds the models a `ModelContainer` (its `visit` hands each model to the visitor).",
                    "Or hold the models in an array, optional or dictionary of a concrete model type.",
                ]
            ))
        } else if let hidden = heldModelType(in: child.value, depth: 0) {
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            issues.append(ModelIssue(
                "\(type).\(name) holds a \(hidden) model in a property that is not `@Tracked`; the model is never anchored (its onActivate, tasks and observation do not run).",
                fixes: ["Declare it `@Tracked var \(name)` and register it: `r.track(\\.$\(name))`."]
            ))
        }
    }
    return issues
}

extension Context {
    /// Looks, once the section is done, for a model that child slot `index` holds inside a custom
    /// container whose `visit(_:)` does not hand it to the visitor: such a model is never anchored.
    /// Run after each write to a slot whose type may hold a custom container (an enum destination
    /// that starts `nil` is checked when a case is set), until the slot's first report.
    final func checkUnvisitedModels(inSlot index: Int, cell: AnyCell) {
        guard mayHoldCustomContainer(type(of: cell.anyValue)),
              !schema.unvisitedModelsReported.withLock({ $0.contains(index) })
        else { return }
        let schema = self.schema
        let hierarchy = self.hierarchy
        let check: @Sendable () -> Void = {
            guard let issue = unvisitedModelIssue(in: cell, slot: index, schema: schema),
                  schema.unvisitedModelsReported.withLock({ $0.insert(index).inserted })
            else { return }
            hierarchy.report(issue)
        }
        if hierarchy.lock.isHeldByCurrentThread { hierarchy.pendingActions.append(.run(check)) } else { check() }
    }
}

/// Whether a value of `type` may hold a custom ``ModelContainer`` (one whose `visit(_:)` is
/// written by hand), directly or in optionals, arrays and dictionaries.
private func mayHoldCustomContainer(_ type: Any.Type) -> Bool {
    if type is any Model.Type { return false }
    if let standard = type as? any StandardContainer.Type { return mayHoldCustomContainer(standard.containedType) }
    return true
}

/// A model that child slot `index` holds inside a custom container whose `visit` does not hand it
/// to the visitor, if any: it is never anchored. Only models still initial once the write is done
/// count; one the slot refused (a second instance with a taken id) was visited, and reported then.
private func unvisitedModelIssue(in cell: AnyCell, slot index: Int, schema: AnySchema) -> ModelIssue? {
    var held: [HeldModel] = []
    collectInitialModels(in: cell.lockedAnyValue(), container: nil, depth: 0, into: &held)
    guard !held.isEmpty, let context = cell.boundContext else { return nil }
    let sink = CollectingSink(tracksPath: false)
    context.lock.withShortLock {
        var visitor = ContainerVisitor(sink: sink)
        schema.visitChildren(index, cell: cell, &visitor)
    }
    let visited = Set(sink.entries.map { ObjectIdentifier($0.box) })
    guard let unvisited = held.first(where: { !visited.contains(ObjectIdentifier(nodeBox(of: $0.model))) }),
          let container = unvisited.container
    else { return nil }
    let place = unvisited.property.map { "\(container).\($0)" } ?? container
    let model = typeName(type(of: unvisited.model))
    return ModelIssue(
        "\(schema.typeName).\(schema.name(index)) holds a \(model) model in \(place) that \(container).visit(_:) does not visit; the model is never anchored (its onActivate, tasks and observation do not run).",
        fixes: ["Hand each model \(container) holds to the visitor in its `visit(_:)`: `visitor.visit(\(unvisited.property ?? "model"))`."]
    )
}

/// An initial model found in a slot's value, with the custom container holding it (its type name)
/// and the container's stored property it sits in, when it sits in one directly.
private struct HeldModel {
    let model: any Model
    let container: String?
    let property: String?
}

/// Collects the initial models `value` holds (as ``heldModelType(in:depth:)`` looks for them),
/// each with the nearest custom container around it.
private func collectInitialModels(
    in value: Any, container: (name: String, property: String?)?, depth: Int, into held: inout [HeldModel]
) {
    if let model = value as? any Model {
        if model.lifetime == .initial {
            held.append(HeldModel(model: model, container: container?.name, property: container?.property))
        }
        return
    }
    guard depth < 3 else { return }
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle != .class else { return }
    let isCustom = value is any ModelContainer && !(value is StandardContainer)
    for child in mirror.children.prefix(8) {
        let enclosing = isCustom
            ? (typeName(type(of: value)), mirror.displayStyle == .struct ? child.label : nil)
            : container.map { ($0.name, nil) }
        collectInitialModels(in: child.value, container: enclosing, depth: depth + 1, into: &held)
    }
}

/// The type name of an initial model `value` is or holds (in its stored properties, elements or
/// payload, a few levels down), if any. Classes are not looked into.
private func heldModelType(in value: Any, depth: Int) -> String? {
    if let model = value as? any Model { return model.lifetime == .initial ? typeName(type(of: model)) : nil }
    guard depth < 3 else { return nil }
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle != .class else { return nil }
    for child in mirror.children.prefix(8) {
        if let found = heldModelType(in: child.value, depth: depth + 1) { return found }
    }
    return nil
}
#endif
