#if DEBUG
/// Debug builds: models a model holds where ModelKit cannot see them, so that they are never
/// anchored (their `onActivate`, tasks and observation never run): in a stored property that is
/// not `@Tracked` (`let child = Counter()`), or in a tracked value that is not a child slot (a
/// struct holding models that is not a ``ModelContainer``, `[any Model]`). Found by reflecting the
/// instance the registration check meets, so a slot that is empty then is not checked. Only models
/// still initial count: holding a live model anchored elsewhere (a reference) is fine.
func hiddenModelIssues<M: Model>(of model: M, schema: Schema<M>) -> [ModelIssue] {
    let type = typeName(M.self)
    var issues: [ModelIssue] = []
    for child in Mirror(reflecting: model).children {
        guard let label = child.label, !(child.value is ModelNode<M>) else { continue }
        if let tracked = child.value as? any AnyTracked {
            let cell = ObjectIdentifier(tracked.anyCell)
            guard let index = schema.properties.firstIndex(where: { ObjectIdentifier($0.cellOf(model)) == cell }),
                  !schema.isChildSlot(index),
                  let hidden = heldModelType(in: tracked.anyCell.lockedAnyValue(), depth: 0)
            else { continue }
            let name = schema.name(index)
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
