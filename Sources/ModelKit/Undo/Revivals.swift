/// Releasing the kept copies of removed children once no entry refers to them.
///
/// A removed child's copy (its `Revival`) is needed while an entry of one of the hierarchy's
/// histories, on either side, can bring it back or applies to it: an entry whose child-slot values
/// hold the model, or whose change was made on it. A revival also keeps the models that brought it
/// back (its successor chain) reachable from those entries. Whenever a history drops an entry that
/// may be such a reference (at the limit, when a new change clears the redo side, or when undo
/// skips an entry whose models are gone), the revivals no remaining entry reaches are released.
///
/// A model brought back and removed again (undo and redo of its removal, again and again) lengthens
/// its chain by one context each time: the one that brought it back, now removed with a newer
/// snapshot. Entries keep naming the first context (their values hold the model removed first), so
/// the commit that removes such a context collapses the chains (`collapseChains()`): superseded
/// snapshots are dropped, each context links straight to the newest one that may come back, and the
/// contexts in between that no entry names are released. What undo keeps stays bounded by what the
/// entries reach, however many times the same removal is undone and redone.

extension HierarchyUndo {
    /// Collapses the chains of models brought back and removed again, then releases (after the lock)
    /// what no entry reaches. Caller holds the lock, after the commit's entries are pushed.
    ///
    /// `reviving` takes the latest snapshot along a chain, so a snapshot with a later one on its chain
    /// is never used again: it is dropped, with the models under it it noted (their own chains lead to
    /// the copies the later snapshot noted). Then each revival links to the last context of its chain
    /// with a snapshot, else to the last one that may come back as part of a snapshot (see
    /// `revivableContexts()`), else to the chain's end. From there the chain goes on as before, so
    /// `liveTarget`, `mayComeBack` and `reviving` find what they found: the contexts skipped hold no
    /// snapshot, and (for the chains undo makes, where a model comes back with the parent it was
    /// removed with) a context that may not come back is dead for good: no restore links it again.
    func collapseChains() {
        chainsToCollapse = false
        var replaced: [Revival] = []
        var superseded: [ObjectIdentifier] = []
        for (id, revival) in revivals where revival.snapshot != nil {
            var next = revival.successor
            var steps = 0
            while let current = next, let later = revivals[ObjectIdentifier(current)] {
                if later.snapshot != nil {
                    superseded.append(id)
                    break
                }
                next = successor(of: current, steps: &steps)
            }
        }
        for id in superseded {
            guard let revival = revivals[id] else { continue }
            replaced.append(revival)
            revivals[id]?.snapshot = nil
            revivals[id]?.descendants = [:]
        }
        let revivable = revivableContexts()
        var links: [(id: ObjectIdentifier, successor: Context)] = []
        for (id, revival) in revivals {
            guard var current = revival.successor else { continue }
            var lastSnapshot: Context?
            var lastRevivable: Context?
            var steps = 0
            while true {
                let later = revivals[ObjectIdentifier(current)]
                if later?.snapshot != nil { lastSnapshot = current }
                if revivable.contains(ObjectIdentifier(current)) { lastRevivable = current }
                guard later != nil, let next = successor(of: current, steps: &steps) else { break }
                current = next
            }
            let successor = lastSnapshot ?? lastRevivable ?? current
            if successor !== revival.successor { links.append((id, successor)) }
        }
        for link in links {
            guard let revival = revivals[link.id] else { continue }
            replaced.append(revival)
            revivals[link.id]?.successor = link.successor
        }
        // The snapshots and contexts no longer named are released after the lock.
        if !replaced.isEmpty {
            let state = ReleasedUndoState(entries: [], revivals: replaced)
            hierarchy.pendingActions.append(.run { withExtendedLifetime(state) {} })
        }
        releaseUnreferencedRevivals()
        noteSuccessors()
    }

    /// Sets `successors` to the contexts the revivals link to. Caller holds the lock.
    func noteSuccessors() {
        successors = []
        for revival in revivals.values {
            if let successor = revival.successor { successors.insert(ObjectIdentifier(successor)) }
        }
    }

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
        // An entry's child-slot values are visited once, and their models' contexts noted with it:
        // at the limit, each push of a child slot's change drops an entry and walks them all again.
        for history in histories {
            history.forEachEntry { entry in
                reach(entry.first.context)
                guard let more = entry.more else { return }
                for change in more.changes { reach(change.context) }
                for id in entry.slotModelContexts() {
                    if let revival = revivals[id] { reach(revival.context) }
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
        noteSuccessors()
        let state = ReleasedUndoState(entries: [], revivals: released)
        hierarchy.pendingActions.append(.run { withExtendedLifetime(state) {} })
    }
}
