// Whether a write to a child slot changed it: a slot holding the same live children as before is
// no change (`items = items`, a refresh whose children all continue), only theirs are.

/// Whether a write that left a child slot holding the same children (`Context.reconcileSlot`'s
/// result) left it as it was: when its value holds more than its models (a dictionary's keys, an
/// enum's case, a custom container's other data), that has the same shape too.
@inline(__always)
func slotIsUnchanged<Value>(holdsSameChildren: Bool, old: Value, new: Value) -> Bool {
    holdsSameChildren && slotValueIsUnchanged(old: old, new: new)
}

/// Whether two values of a child slot that hold the same children are the same value.
private func slotValueIsUnchanged(old: Any, new: Any) -> Bool {
    holdsOnlyModels(new) || ValueDump.shape(of: old) == ValueDump.shape(of: new)
}

/// Whether a child slot's value is nothing but its models, in order: a model, an optional model, a
/// collection of models (an array, `IdentifiedArrayOf`…). Two such values holding the same live
/// children are the same value; for others the caller compares their shapes.
private func holdsOnlyModels(_ value: Any) -> Bool {
    if value is any Model || value is any OptionalModel { return true }
    guard let collection = value as? any Collection else { return false }
    return elementsAreModels(collection)
}

private func elementsAreModels<C: Collection>(_ collection: C) -> Bool {
    C.Element.self is any Model.Type
}

/// An optional model.
private protocol OptionalModel {}
extension Optional: OptionalModel where Wrapped: Model {}
