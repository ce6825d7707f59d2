#if DEBUG
/// Debug builds: models a model holds where ModelKit cannot see them, so that they are never
/// anchored (their `onActivate`, tasks and observation never run): in a stored property that is
/// not `@Tracked` (`let child = Counter()`), or in a tracked value that is not a child slot (a
/// struct holding models that is not a ``ModelContainer``, `[any Model]`). Found by reflecting the
/// instance the registration check meets, so a slot that is empty then is not checked. Only models
/// still initial count: holding a live model anchored elsewhere (a reference) is fine. A child slot
/// is checked for models its custom container holds but does not visit.
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
            let value = tracked.anyCell.lockedAnyValue()
            if schema.isChildSlot(index) {
                if let issue = unvisitedModelIssue(in: value, owner: type, property: name) { issues.append(issue) }
                continue
            }
            guard let hidden = heldModelType(in: value, depth: 0) else { continue }
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

/// A model a child slot's value holds that its container's `visit(_:)` does not hand to the
/// visitor: it stays initial, never anchored. Named with the innermost custom container holding it.
private func unvisitedModelIssue(in value: Any, owner: String, property: String) -> ModelIssue? {
    guard let container = value as? any ModelContainer else { return nil }
    let visited = visitedBoxes(of: container)
    guard let (model, holder) = unvisitedModel(in: value, visited: visited, holder: nil, depth: 0) else { return nil }
    let holderName = holder ?? typeName(type(of: value))
    return ModelIssue(
        "\(owner).\(property) holds a \(model) model that \(holderName).visit(_:) does not visit; the model is never anchored (its onActivate, tasks and observation do not run).",
        fixes: ["Call `visitor.visit(…)` for every model \(holderName) holds, in its `visit(_:)`."]
    )
}

/// The boxes of the models `container`'s visit hands to a visitor.
private func visitedBoxes<C: ModelContainer>(of container: C) -> Set<ObjectIdentifier> {
    let sink = CollectingSink(tracksPath: false)
    var visitor = ContainerVisitor(sink: sink)
    container.visit(&visitor)
    return Set(sink.entries.map { ObjectIdentifier($0.box) })
}

private func boxIdentity<M: Model>(of model: M) -> ObjectIdentifier {
    ObjectIdentifier(model.node.box)
}

/// The first initial model `value` is or holds (a few levels down, not inside classes) that is not
/// among `visited`, with the type name of the innermost custom container holding it.
private func unvisitedModel(
    in value: Any, visited: Set<ObjectIdentifier>, holder: String?, depth: Int
) -> (model: String, holder: String?)? {
    if let model = value as? any Model {
        guard model.lifetime == .initial, !visited.contains(boxIdentity(of: model)) else { return nil }
        return (typeName(type(of: model)), holder)
    }
    guard depth < 5 else { return nil }
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle != .class else { return nil }
    var holder = holder
    if value is any ModelContainer, !(value is StandardContainer) { holder = typeName(type(of: value)) }
    for child in mirror.children.prefix(16) {
        if let found = unvisitedModel(in: child.value, visited: visited, holder: holder, depth: depth + 1) { return found }
    }
    return nil
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
