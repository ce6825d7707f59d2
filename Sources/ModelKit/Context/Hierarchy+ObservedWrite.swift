// The commit of the usual observed write: a section that changed one property, which observers
// follow, and collected nothing else. It does what `finishSection`, `commit` and `SectionWork.perform`
// do for such a section, in the same order, without their lists.

extension Hierarchy {
    /// Ends a section whose only work is one pending change, with no hook, `modifications` stream or
    /// undo recording to tell: evaluates the property's observers, unlocks, notifies Observation and
    /// performs the deliveries directly (nothing is queued before them). Returns false, having done
    /// nothing, for any other section. Caller holds the lock, at depth 0, with pending work.
    func endSingleChangeSection() -> Bool {
        guard pendingChanges.count == 1, orphans.isEmpty, pendingActions.isEmpty, deliveries.isEmpty,
              !hooksToNotify, !recordsEveryChange, undo == nil, deliveryQueue.isEmpty, !isDraining
        else { return false }
        // Moved out of the buffer, which keeps its capacity for the next section.
        let change = pendingChanges.removeLast()
        let context = change.context
        let index = change.index
        // Evaluating may read (and, if an expression misbehaves, write) under this section.
        depth = 1
        if context.isObserved(index), let observers = context.extras?.propertyObservers[index] {
            for observer in observers {
                if let value = observer.reevaluateForDelivery(forced: change.isTouch) {
                    deliveries.append(.property(observer, consume value))
                }
            }
        }
        depth = 0
        if hasPendingWorkBesidesDeliveries {
            // An expression left work behind (a write of its own): the rest commits on the general
            // path, after this change, whose Observation notification still comes first.
            let work = finishSection()
            lock.unlockSection()
            context.notifyObservation(index)
            work.perform(self)
            return true
        }
        if deliveries.isEmpty {
            lock.unlockSection()
            context.notifyObservation(index)
            return true
        }
        // Nothing is queued or being delivered (checked above; only a section's end changes that):
        // this thread delivers, as the draining thread.
        isDraining = true
        var items = spareDeliveries
        spareDeliveries = []
        swap(&items, &deliveries)
        lock.unlockSection()
        context.notifyObservation(index)
        deliverDirectly(items)
        return true
    }

    /// Whether a section has collected work other than stream deliveries. Caller holds the lock.
    private var hasPendingWorkBesidesDeliveries: Bool {
        !pendingChanges.isEmpty || !pendingActions.isEmpty || !orphans.isEmpty || hooksToNotify
    }
}
