/// Releasing the kept copies of removed children once no entry refers to them.
///
/// A removed child's copy (its `Revival`) is needed while an entry of one of the hierarchy's
/// histories, on either side, can bring it back or applies to it: an entry whose child-slot values
/// hold the model, or whose change was made on it. A revival also keeps the models that brought it
/// back (its successor chain) reachable from those entries. Whenever a history drops an entry that
/// may be such a reference (at the limit, when a new change clears the redo side, or when undo
/// skips an entry whose models are gone), the revivals no remaining entry reaches are released.

extension HierarchyUndo {
    /// Releases (after the lock) the revivals that no entry of the hierarchy's histories reaches.
    /// Caller holds the lock.
    func releaseUnreferencedRevivals() {
        guard !revivals.isEmpty else { return }
        var reached = Set<ObjectIdentifier>()
        var pending: [Context] = []
        func reach(_ context: Context) {
            let id = ObjectIdentifier(context)
            if revivals[id] != nil, reached.insert(id).inserted { pending.append(context) }
        }
        func reach(modelsIn value: Any) {
            _ = mappingModels(in: value) { model in
                if let context = nodeBox(of: model).context { reach(context) }
                return model
            }
        }
        for history in histories {
            history.forEachEntry { entry in
                for change in entry.list {
                    reach(change.context)
                    if entry.more?.hasChildSlot == true, change.context.schema.isChildSlot(change.index) {
                        reach(modelsIn: change.old)
                        reach(modelsIn: change.new)
                    }
                }
            }
        }
        while let context = pending.popLast() {
            if let successor = revivals[ObjectIdentifier(context)]?.successor { reach(successor) }
        }
        guard reached.count < revivals.count else { return }
        var released: [Revival] = []
        for (id, revival) in revivals where !reached.contains(id) {
            released.append(revival)
        }
        for revival in released {
            revivals[ObjectIdentifier(revival.context)] = nil
        }
        let state = ReleasedUndoState(entries: [], revivals: released)
        hierarchy.pendingActions.append(.run { withExtendedLifetime(state) {} })
    }
}
