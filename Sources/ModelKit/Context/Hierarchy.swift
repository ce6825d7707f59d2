/// The state shared by all models of one anchored hierarchy: the lock, the work collected while it is
/// held, the ordered delivery queue of streams, and the hooks of debugging and testing tools.
import Synchronization

@usableFromInline
package final class Hierarchy: RankedLock, @unchecked Sendable {
    /// The hierarchy lock: the hierarchy itself (see `RankedLock`).
    @inlinable
    var lock: RankedLock {
        @inline(__always) get { self }
    }
    let testing: TestingSupport?

    // Safety: every field below is guarded by `lock`.
    /// Section nesting on the holding thread.
    @exclusivity(unchecked) var depth = 0
    // The flags together, so that they share one word.
    /// A thread is performing ready delivery batches.
    @exclusivity(unchecked) var isDraining = false
    @exclusivity(unchecked) var hasHooks = false
    /// Every change must be recorded: a hook or a `modifications` stream listens.
    @exclusivity(unchecked) var recordsEveryChange = false
    /// Hooks recorded something this section; they are told once it is committed.
    @exclusivity(unchecked) var hooksToNotify = false
    @exclusivity(unchecked) var isTornDown = false
    @exclusivity(unchecked) var pendingChanges: [PendingChange] = []
    /// An empty buffer, swapped with `pendingChanges` to commit them.
    @exclusivity(unchecked) private var spareChanges: [PendingChange] = []
    @exclusivity(unchecked) var pendingActions: [SectionAction] = []
    /// Contexts whose last place was removed during the current section.
    @exclusivity(unchecked) var orphans: [Context] = []
    @exclusivity(unchecked) var stampCounter: UInt64 = 0
    /// Counts changes of the tree's shape (slots reconciled, models destructed): a model's cached
    /// path is valid while it is unchanged.
    @exclusivity(unchecked) var structureVersion: UInt64 = 0
    /// Stream deliveries collected by the current section.
    @exclusivity(unchecked) var deliveries: [Delivery] = []
    /// An empty buffer for `deliveries`, handed back by the thread that performed the last direct
    /// deliveries, so that the usual section with an observer allocates no array.
    @exclusivity(unchecked) var spareDeliveries: [Delivery] = []
    /// Committed sections' deliveries, in commit order. A batch becomes ready once its section has
    /// notified Observation, so that nobody sees a value through a stream before Observation
    /// observers heard of it. One draining thread at a time performs ready batches, in order.
    @exclusivity(unchecked) var deliveryQueue: [DeliveryBatch] = []
    @exclusivity(unchecked) var nextTicket: UInt64 = 0
    @exclusivity(unchecked) var hooks: [any HierarchyHook] = []
    /// The `modifications(of:)` streams of the hierarchy's models.
    @exclusivity(unchecked) var modificationListeners: [ModificationListener] = []
    @exclusivity(unchecked) var resolvedDefaults = DependencyList()
    /// Resolved defaults that are not models, published for reads without the lock
    /// (`Unmanaged<DefaultsSnapshot>` bits, 0 before the first).
    let defaultsSnapshotBits = Atomic<UInt>(0)
    /// Every snapshot published, kept until the hierarchy is freed so that a reader never has to
    /// retain one. (Models are left out: a model dependency's value refers back to the hierarchy.)
    @exclusivity(unchecked) var publishedDefaults: [DefaultsSnapshot] = []
    @exclusivity(unchecked) var dependencyModels: [ObjectIdentifier: Context] = [:]
    /// How many event listeners the hierarchy's models have: sending is free when there are none.
    @exclusivity(unchecked) var eventListenerCount = 0
    @exclusivity(unchecked) var reportedMissingDependencies: Set<ObjectIdentifier> = []
    @exclusivity(unchecked) var root: Context?
    /// Undo's state, once a model of the hierarchy tracks undo (Undo/UndoRecording.swift).
    @exclusivity(unchecked) var undo: HierarchyUndo?

    init(testing: TestingSupport? = nil, lockRank: RankedLock.Rank = .hierarchy) {
        self.testing = testing
        super.init(rank: lockRank)
    }

    // MARK: Sections

    /// Whether a section has collected work beyond its own writes. Caller holds the lock.
    var hasPendingWork: Bool {
        !pendingChanges.isEmpty || !pendingActions.isEmpty || !orphans.isEmpty || !deliveries.isEmpty || hooksToNotify
    }

    /// Takes the lock for a section, or nests in the one this thread already holds.
    @usableFromInline
    func beginSection() {
        if lock.isHeldByCurrentThread {
            depth += 1
        } else {
            lock.lockForSection()
            depth = 1
        }
    }

    /// Ends a section; the outermost end commits the collected work, unlocks, then performs it.
    @usableFromInline
    func endSection() {
        depth -= 1
        guard depth == 0 else { return }
        if !hasPendingWork {
            lock.unlockSection()
            return
        }
        if endSmallSection() { return }
        let work = finishSection()
        lock.unlockSection()
        work.perform(self)
    }

    /// Takes the lock for a section of one plain write (the write path's fast path), unless this
    /// thread already holds a section (then the write goes through a full one): false.
    @inline(__always)
    func beginSingleWriteSection() -> Bool {
        if lock.isHeldByCurrentThread { return false }
        lock.lockForSection()
        depth = 1
        return true
    }

    /// Gives up a single-write section in which nothing happened.
    @inline(__always)
    func abandonSingleWriteSection() {
        depth = 0
        lock.unlockSection()
    }

    /// Ends a single-write section that changed property `index` of `context` (or nothing): with
    /// nothing else pending it unlocks and notifies Observation directly; otherwise the change is
    /// recorded and the section ends as any other.
    @inline(__always)
    func endSingleWriteSection(changedBy context: Context, index: Int?) {
        guard depth == 1, !hasPendingWork else {
            if let index { record(PendingChange(context: context, index: index, old: nil, new: nil)) }
            endSection()
            return
        }
        depth = 0
        lock.unlockSection()
        if let index { context.notifyObservation(index) }
    }

    /// Records a change for the end of the current section. Caller holds the section.
    @inline(__always)
    func record(_ change: consuming PendingChange) {
        pendingChanges.append(change)
    }

    func withSection<R>(_ body: () throws -> R) rethrows -> R {
        beginSection()
        defer { endSection() }
        return try body()
    }

    /// Collects the section's work. Caller holds the lock, depth 0.
    func finishSection() -> SectionWork {
        var work = SectionWork()
        // Models removed in this section are torn down before the ones added activate.
        var teardowns: [SectionAction] = []
        // Committing may evaluate observers, whose reads (and, if they misbehave, writes) nest in
        // this section; loop until nothing new is pending.
        depth = 1
        while !orphans.isEmpty || !pendingChanges.isEmpty {
            if !orphans.isEmpty {
                let candidates = orphans
                orphans = []
                var batch = TeardownBatch()
                // Undo keeps what a removed child held, to bring it back (before `destruct` drops it).
                let undo = self.undo?.snapshotsRemovals(pendingChanges) == true ? self.undo : nil
                for context in candidates where context.places.isEmpty && !context.isRoot && context.state.isLive {
                    undo?.snapshot(context)
                    context.destruct(into: &batch)
                }
                if !batch.isEmpty { teardowns.append(.teardown(batch)) }
            }
            if !pendingChanges.isEmpty {
                // Swapped with a spare buffer, so that neither allocates in the usual section.
                var changes = spareChanges
                swap(&changes, &pendingChanges)
                let isSingle = changes.count == 1
                if !isSingle { PendingChange.coalesce(&changes, stamp: nextStamp()) }
                work.notifications.append(contentsOf: changes)
                commit(changes, isSingle: isSingle, into: &work)
                changes.removeAll(keepingCapacity: true)
                spareChanges = changes
            }
        }
        depth = 0
        if hooksToNotify {
            hooksToNotify = false
            work.committedHooks = hooks
        }
        if teardowns.isEmpty {
            work.actions = pendingActions
        } else if pendingActions.isEmpty {
            work.actions = teardowns
        } else {
            teardowns.append(contentsOf: pendingActions)
            work.actions = teardowns
        }
        pendingActions = []
        if !deliveries.isEmpty {
            if deliveryQueue.isEmpty && !isDraining {
                // Nothing is waiting to be delivered: this section delivers its own, as the
                // draining thread, with no batch to queue and find again.
                isDraining = true
                work.deliveries = .direct(deliveries)
            } else {
                nextTicket &+= 1
                deliveryQueue.append(DeliveryBatch(ticket: nextTicket, items: deliveries))
                work.deliveries = .queued(ticket: nextTicket)
            }
            deliveries = spareDeliveries
            spareDeliveries = []
        }
        return work
    }

    /// Evaluates the observers of committed changes and records them for hooks. Caller holds the lock.
    /// `changes` are coalesced (one per property); `isSingle`: the section recorded one change.
    private func commit(_ changes: [PendingChange], isSingle: Bool, into work: inout SectionWork) {
        if !modificationListeners.isEmpty { collectModifications(changes) }
        if let undo { undo.record(changes) }
        // An observer of several changed properties is evaluated once: marked with this commit's
        // stamp. (One property's observers are distinct, so a single change needs no mark.)
        let stamp = isSingle ? 0 : nextStamp()
        for position in changes.indices {
            let context = changes[position].context
            let index = changes[position].index
            reevaluateObservers(of: context, index, forced: changes[position].isTouch, stamp: stamp)
            if hasHooks, let old = changes[position].old, let new = changes[position].new {
                let record = ChangeRecord(
                    context: context,
                    index: index,
                    path: context.path(),
                    property: context.propertyName(index),
                    old: old,
                    new: new
                )
                for hook in hooks { hook.record(record) }
                hooksToNotify = true
            }
        }
    }

    /// Re-evaluates the observers of property `index` of `context` for a commit and queues their
    /// deliveries. With a `stamp` (not 0), an observer this commit evaluated already is skipped.
    /// Caller holds the lock for a section.
    @inline(__always)
    func reevaluateObservers(of context: Context, _ index: Int, forced: Bool, stamp: UInt64) {
        guard context.isObserved(index), let observers = context.extras?.propertyObservers[index] else { return }
        for observer in observers {
            if stamp != 0 {
                if observer.evaluatedStamp == stamp { continue }
                observer.evaluatedStamp = stamp
            }
            if let value = observer.reevaluateForDelivery(forced: forced) {
                deliveries.append(.property(observer, consume value))
            }
        }
    }

    /// Queues a report to be made once the section ends (or at once outside a section).
    func deferIssue(_ issue: ModelIssue) {
        if lock.isHeldByCurrentThread {
            pendingActions.append(.issue(issue))
        } else {
            report(issue)
        }
    }

    /// Reports an issue through the hierarchy's tester, if any, else the global reporter.
    func report(_ issue: ModelIssue) {
        if let testing, testing.reportIssue(issue) { return }
        reportIssue(issue)
    }

    func nextStamp() -> UInt64 {
        stampCounter &+= 1
        return stampCounter
    }


    // MARK: Hooks

    package func addHook(_ hook: any HierarchyHook) {
        lock.withShortLock {
            hooks.append(hook)
            hasHooks = true
            recordsEveryChange = true
        }
    }

    package func removeHook(_ hook: any HierarchyHook) {
        lock.withShortLock {
            hooks.removeAll { $0 === hook }
            hasHooks = !hooks.isEmpty
            updateRecordsEveryChange()
        }
    }

    /// Recomputes `recordsEveryChange`. Caller holds the lock.
    func updateRecordsEveryChange() {
        recordsEveryChange = hasHooks || !modificationListeners.isEmpty
    }

    // MARK: Teardown

    /// Tears the whole hierarchy down: the root, its subtree and the models used as dependencies.
    func tearDown() {
        beginSection()
        if !isTornDown {
            isTornDown = true
            var batch = TeardownBatch()
            root?.destruct(into: &batch)
            for context in dependencyModels.values {
                context.destruct(into: &batch)
            }
            dependencyModels = [:]
            undo?.tearDown()
            resolvedDefaults = DependencyList()
            root = nil
            if !batch.isEmpty { pendingActions.append(.teardown(batch)) }
        }
        endSection()
    }
}
