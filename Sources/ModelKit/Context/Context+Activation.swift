// Activation (parents first) and teardown (a model's own work before its children's).

extension Context {
    /// Calls `onActivate` once, then the `withActivation` handlers. Called without the lock.
    final func activate(_ handlers: [@Sendable (Any) -> Void]) {
        // Locked by hand rather than with `withShortLock`: the schema copies the model (typed)
        // and unlocks.
        let locks = !lock.isHeldByCurrentThread
        if locks { lock.lock() }
        guard state == .anchored, hasModel else {
            if locks { lock.unlock() }
            return
        }
        schema.activate(self, handlers: handlers, unlocking: locks)
    }

    /// Destructs this context and the children left without a place, parents first. Caller holds
    /// the lock for a section; the collected work runs after it is released.
    ///
    /// `nesting` counts the destructs of parents enclosing this one: past `Hierarchy.maxNesting`,
    /// children wait in the batch for the outermost destruct (see `TeardownBatch.deferChild(_:)`),
    /// so that tearing down a chain of 10,000 models does not overflow the thread's stack.
    final func destruct(into batch: inout TeardownBatch, nesting: Int = 0) {
        guard state.isLive else { return }
        state = .destructed
        hierarchy.structureVersion &+= 1
        if let listeners = extras?.eventListeners, !listeners.isEmpty {
            hierarchy.extras.eventListenerCount -= listeners.count
        }
        if let work = extras?.takeWorkForTeardown(of: self, batch: &batch), !work.isEmpty {
            batch.entries.append(TeardownBatch.Entry(work: work))
        }
        if let printers = extras?.printers, !printers.isEmpty {
            // `_withPrintChanges` prints for the model's lifetime. Released after the lock, with
            // what their closures captured.
            hierarchy.removeHooksHoldingLock(printers)
            batch.releaseLater(printers)
        }
        for index in schema.childSlotIndices {
            guard let slot = slots[index] else { continue }
            for child in slot.list {
                var lostFirstPlace = false
                if let position = child.places.firstIndex(where: { $0.parent === self && $0.slot == index }) {
                    child.places.remove(at: position)
                    lostFirstPlace = position == 0
                }
                if child.places.isEmpty && !child.isRoot {
                    if nesting < Int(Hierarchy.maxNesting) {
                        child.destruct(into: &batch, nesting: nesting + 1)
                    } else {
                        batch.deferChild(child)
                    }
                } else if child.state.isLive {
                    // A shared child that lives on in its other places.
                    child.placesDidChange()
                    // It inherits from its next place now, as when its first place is removed.
                    if lostFirstPlace, let first = child.places.first, first.parent !== self {
                        child.firstPlaceDidChange()
                    }
                }
            }
        }
        // The slots go with the extras.
        places.removeAll()
        // Undo tracking outlives the destruct, as the rest of the model's undo state does.
        let undoTracking = self.undoTracking
        // So do a tester's cancelled tasks that have not ended (see `takeWorkForTeardown`).
        // (Outside a tester the list is empty by now: the usual teardown copies nothing.)
        let unwindingTasks = extras.flatMap { $0.work.isEmpty ? nil : $0.work }
        extras = nil
        if let undoTracking { self.undoTracking = undoTracking }
        if let unwindingTasks { ensuredExtras.work = unwindingTasks }
        observedMask = 0
        if schema.retiresValues {
            let cells = currentCells()
            for cell in cells {
                if let retired = cell.retire() { batch.releaseLater(retired) }
            }
            // The cells of the instances this one continued forward to these: retired with them,
            // once the batch's destructs are done (see `retireForwardingCells()`).
            if flags.contains(.continued) { batch.noteContinued(cells) }
        }
        if giveUpModel() { batch.releaseModel(of: self) }
        if nesting == 0 { batch.destructDeferredChildren() }
    }
}

/// The work of tearing contexts down, performed after the lock is released, in order.
struct TeardownBatch {
    struct Entry {
        var work: ContextExtras.TeardownWork
    }

    var entries: [Entry] = []

    /// What few batches need: continued cells, observer lists left, children nested too deep.
    /// Nil until the first of them, so that the usual batch (a model released with nothing of the
    /// sort) carries, copies and releases one empty reference instead of three collections.
    ///
    /// A reference in a value type: a batch is filled, finished (``finishDestructs()``) and only
    /// then copied into an action or kept for release, so no two copies ever fill it. It is filled
    /// and read under the lock of the section whose destructs fill the batch.
    private var rare: Rare?

    private final class Rare {
        /// The cells of destructed models that newer instances continued (see
        /// ``TeardownBatch/retireForwardingCells()``).
        var continuedCells: Set<ObjectIdentifier> = []
        /// The observer lists that destructed models' observers left (see
        /// ``TeardownBatch/compactObserverLists()``), by context and property. The contexts are
        /// retained until the batch is released.
        var leftObserverLists: [ObserverListKey: Context] = [:]
        /// Children nested too deep to destruct recursively, for the outermost destruct.
        var deferredChildren: [Context] = []
    }

    private mutating func ensuredRare() -> Rare {
        if let rare { return rare }
        let made = Rare()
        rare = made
        return made
    }

    /// Keeps `child` for the outermost destruct. Caller holds the lock for a section.
    mutating func deferChild(_ child: Context) {
        ensuredRare().deferredChildren.append(child)
    }

    /// Destructs the children `deferChild(_:)` kept, in order, each one level below the outermost
    /// (their own deep children join the list). Caller holds the lock for a section.
    fileprivate mutating func destructDeferredChildren() {
        guard let rare, !rare.deferredChildren.isEmpty else { return }
        var position = 0
        while position < rare.deferredChildren.count {
            let child = rare.deferredChildren[position]
            position += 1
            child.destruct(into: &self, nesting: 1)
        }
        rare.deferredChildren = []
    }
    /// Destructed contexts whose model values are released after the work (their release may
    /// free the contexts, and values that run code in their deinit).
    private var releasedModels = ReleasedModels()
    /// Tracked values that destructed models' cells gave back (see `AnyCell.retire()`), released
    /// after the work for the same reason.
    private var retiredValues: [Any] = []

    struct ObserverListKey: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }

    var isEmpty: Bool { entries.isEmpty && releasedModels.isEmpty && retiredValues.isEmpty }

    /// Notes the cells of a destructed model that a newer instance continued: the cells of the
    /// earlier instances forward to them. Caller holds the lock.
    mutating func noteContinued(_ cells: [AnyCell]) {
        let rare = ensuredRare()
        for cell in cells { rare.continuedCells.insert(ObjectIdentifier(cell)) }
    }

    /// Retires the cells forwarding to the cells ``noteContinued(_:)`` noted, as their models'
    /// teardown retired those (their values may capture the earlier instances, which would then
    /// keep each other alive), in one pass over the forward table. Caller holds the lock for the
    /// section whose destructs filled the batch.
    mutating func retireForwardingCells() {
        guard let rare, !rare.continuedCells.isEmpty else { return }
        let cells = rare.continuedCells
        rare.continuedCells = []
        let retired = unboundLock.withShortLock {
            forwardedCells.withLock { $0.retireSources(forwardingTo: cells) }
        }
        retiredValues.append(contentsOf: retired)
    }

    /// What follows a batch's destructs, before anything reads the lists they left: the cells that
    /// forwarded to the destructed models' are retired, and the observer lists are compacted. Caller
    /// holds the lock for the section whose destructs filled the batch.
    mutating func finishDestructs() {
        retireForwardingCells()
        compactObserverLists()
    }

    /// Notes that a destructed model's observer left the list of property `index` of `context`,
    /// to compact once the batch's destructs are done. Caller holds the lock.
    mutating func noteObserverLeft(_ context: Context, index: Int) {
        let key = ObserverListKey(context: ObjectIdentifier(context), index: index)
        ensuredRare().leftObserverLists[key] = context
    }

    /// Removes the observers the batch's destructed models left from the lists they were in, each
    /// list once. Call once the destructs are done, before anything reads the lists (a commit).
    /// Caller holds the lock for the section whose destructs filled the batch.
    mutating func compactObserverLists() {
        guard let rare, !rare.leftObserverLists.isEmpty else { return }
        let leftObserverLists = rare.leftObserverLists
        rare.leftObserverLists = [:]
        var contexts: [ObjectIdentifier: Context] = [:]
        for (key, context) in leftObserverLists {
            PropertyObserver.removeCancelled(from: context, index: key.index)
            contexts[key.context] = context
        }
        for context in contexts.values where context.state.isLive {
            context.updateObservedMask()
        }
        // Released after the lock with the rest (a destructed one may be freed then).
        for context in contexts.values { retiredValues.append(context) }
    }

    /// Whether there is work to perform (beyond releasing model values).
    var hasWork: Bool { !entries.isEmpty }

    /// Keeps `context`, destructed, whose model value it gave up (``Context/giveUpModel()``), to
    /// release that value after the work. Caller holds the lock.
    mutating func releaseModel(of context: Context) {
        releasedModels.append(context)
    }

    /// Keeps a value a destructed model's cell gave back, to release after the work. Caller holds
    /// the lock.
    mutating func releaseLater(_ value: Any) {
        retiredValues.append(value)
    }

    func perform() {
        for entry in entries {
            entry.work.perform()
        }
    }
}
