// The end of the usual small sections: an observed write (one change, which observers follow) and
// a send to listeners (stream deliveries only). It does what `finishSection`, `commit` and
// `SectionWork.perform` do for such a section, in the same order, without their lists.

extension Hierarchy {
    /// Ends a section whose only work is one pending change (with no hook, `modifications` stream
    /// or undo recording to tell, and not of a preference fold) or stream deliveries, or both: evaluates the changed property's
    /// observers, unlocks, notifies Observation and performs the deliveries directly (nothing is
    /// queued before them). Returns false, having done nothing, for any other section. Caller holds
    /// the lock, at depth 0, with pending work.
    func endSmallSection() -> Bool {
        guard orphans.isEmpty, pendingActions.isEmpty, !hooksToNotify, !hasQueuedDeliveries, !isDraining
        else { return false }
        guard pendingChanges.count == 1 else {
            guard pendingChanges.isEmpty else { return false }
            // Deliveries only (a send): this thread delivers them.
            deliverAndUnlock(notifying: nil, 0)
            return true
        }
        // A preference fold's change may be one that a change of the tree's shape derived and that
        // `dropUnchangedFolds` (on the general path) drops when the fold came out equal; it also
        // clears the value the fold kept to compare, which must not outlive this section.
        guard deliveries.isEmpty, !recordsEveryChange, undo == nil, pendingChanges[0].index < KeyedKind.preference.base
        else { return false }
        // Moved out of the buffer, which keeps its capacity for the next section.
        let change = pendingChanges.removeLast()
        evaluateObservers(of: change)
        if hasPendingWorkBesidesDeliveries {
            // An expression left work behind (a write of its own): the rest commits on the general
            // path, after this change, whose Observation notification still comes first.
            let work = finishSection()
            lock.unlockSection()
            change.context.notifyObservation(change.index)
            work.perform(self)
            return true
        }
        deliverAndUnlock(notifying: change.context, change.index)
        return true
    }

    /// Unlocks, notifies Observation of property `index` of `context` (if any), then performs the
    /// section's deliveries directly. Caller holds the lock, at depth 0, and nothing is queued or
    /// being delivered (only a section's end changes that), so this thread delivers, as the
    /// draining thread.
    @inline(__always)
    private func deliverAndUnlock(notifying context: Context?, _ index: Int) {
        if deliveries.isEmpty {
            lock.unlockSection()
            context?.notifyObservation(index)
            return
        }
        isDraining = true
        var items = spareDeliveries
        spareDeliveries = []
        swap(&items, &deliveries)
        lock.unlockSection()
        context?.notifyObservation(index)
        deliverDirectly(items)
    }

    /// Evaluates the observers of a committed change and queues their deliveries. Caller holds the
    /// lock, at depth 0.
    private func evaluateObservers(of change: borrowing PendingChange) {
        // Evaluating may read (and, if an expression misbehaves, write) under this section.
        depth = 1
        reevaluateObservers(of: change.context, change.index, forced: change.isTouch, stamp: 0)
        depth = 0
    }

    /// Whether a section has collected work other than stream deliveries. Caller holds the lock.
    private var hasPendingWorkBesidesDeliveries: Bool {
        !pendingChanges.isEmpty || !pendingActions.isEmpty || !orphans.isEmpty || hooksToNotify
    }
}
