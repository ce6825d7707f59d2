// The ordered delivery of committed sections' stream values (see `HierarchyExtras.deliveryQueue`).

extension Hierarchy {
    /// Marks a section's deliveries ready and performs the ready ones in commit order. Call without
    /// holding the lock.
    func deliver(ticket: UInt64) {
        lock.lock()
        // A queued ticket means the extras exist.
        let extras = self.extras
        if let index = extras.deliveryQueue.firstIndex(where: { $0.ticket == ticket }) {
            extras.deliveryQueue[index].isReady = true
        }
        guard !isDraining else {
            // The draining thread picks the batch up before it stops.
            lock.unlock()
            return
        }
        isDraining = true
        drainReadyBatches()
    }

    /// Performs a section's deliveries as the draining thread (see `finishSection`), then the
    /// batches other sections queued meanwhile. Call without holding the lock.
    func deliverDirectly(_ items: consuming [Delivery]) {
        var items = items
        Delivery.performAll(&items)
        // The emptied buffer goes back for the next section's deliveries.
        lock.lock()
        if spareDeliveries.capacity == 0 { swap(&spareDeliveries, &items) }
        drainReadyBatches()
    }

    /// Performs the ready batches in order until none is ready, then stops draining. The caller
    /// holds the lock and is the draining thread; returns without the lock.
    private func drainReadyBatches() {
        while true {
            var batches: [DeliveryBatch] = []
            if hasQueuedDeliveries {
                readExtras(or: ()) { extras in
                    while let first = extras.deliveryQueue.first, first.isReady {
                        batches.append(extras.deliveryQueue.removeFirst())
                    }
                }
            }
            if batches.isEmpty {
                isDraining = false
                lock.unlock()
                return
            }
            lock.unlock()
            batches.reverse()
            while var batch = batches.popLast() {
                Delivery.performAll(&batch.items)
            }
            lock.lock()
        }
    }
}
