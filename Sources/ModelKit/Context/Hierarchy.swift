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
    // Safety: every field below is guarded by `lock`, except `extrasReference` (atomic).
    // The flags (one byte, read through the properties named after them) and `depth` share one
    // word; the fields most sections touch follow, and the rest is in `HierarchyExtras`, so that
    // the object is 120 bytes (malloc's 128-byte class). A field added here takes every hierarchy,
    // and so every model anchored as its own root, to the next class: rarely used state belongs in
    // the extras.
    @exclusivity(unchecked) private var flags: HierarchyFlags = []
    /// How many reconciliations of nested models' slots enclose the current one (see
    /// `nested(_:)`). Two bytes between the flags and `depth`: the object does not grow.
    @exclusivity(unchecked) var nesting: UInt16 = 0
    /// Section nesting on the holding thread.
    @exclusivity(unchecked) var depth: Int32 = 0
    @exclusivity(unchecked) var pendingChanges: [PendingChange] = []
    /// An empty buffer, swapped with `pendingChanges` to commit them.
    @exclusivity(unchecked) private var spareChanges: [PendingChange] = []
    @exclusivity(unchecked) var pendingActions: [SectionAction] = []
    /// Contexts whose last place was removed during the current section, and shared ones that lost
    /// their first place (see `Context.regainsFirstPlace`), each with the place it lost.
    @exclusivity(unchecked) var orphans: [Orphan] = []
    @exclusivity(unchecked) var stampCounter: UInt64 = 0
    /// Counts changes of the tree's shape (slots reconciled, models destructed): a model's cached
    /// path is valid while it is unchanged.
    @exclusivity(unchecked) var structureVersion: UInt64 = 0
    /// Stream deliveries collected by the current section.
    @exclusivity(unchecked) var deliveries: [Delivery] = []
    /// An empty buffer for `deliveries`, handed back by the thread that performed the last direct
    /// deliveries, so that the usual section with an observer allocates no array.
    @exclusivity(unchecked) var spareDeliveries: [Delivery] = []
    @exclusivity(unchecked) var root: Context?
    /// The ``HierarchyExtras``, created on first use (under the lock) and released with the
    /// hierarchy.
    let extrasReference = PublishedReference<HierarchyExtras>()

    init(testing: TestingSupport? = nil, lockRank: RankedLock.Rank = .hierarchy) {
        super.init(rank: lockRank)
        if let testing { extrasReference.publish(HierarchyExtras(testing: testing)) }
    }

    /// A thread is performing ready delivery batches.
    var isDraining: Bool { get { flags[.isDraining] } set { flags[.isDraining] = newValue } }
    var hasHooks: Bool { get { flags[.hasHooks] } set { flags[.hasHooks] = newValue } }
    /// Whether a model of the hierarchy has read or set an environment value: until then, a model
    /// moving to another parent has no inherited value to check. Never cleared.
    var readsEnvironment: Bool { get { flags[.readsEnvironment] } set { flags[.readsEnvironment] = newValue } }
    /// Every change must be recorded: a hook or a `modifications` stream listens.
    var recordsEveryChange: Bool {
        get { flags[.recordsEveryChange] }
        set { flags[.recordsEveryChange] = newValue }
    }
    /// Hooks recorded something this section; they are told once it is committed.
    var hooksToNotify: Bool { get { flags[.hooksToNotify] } set { flags[.hooksToNotify] = newValue } }
    var isTornDown: Bool { get { flags[.isTornDown] } set { flags[.isTornDown] = newValue } }
    /// Whether a model of the hierarchy has memoized a value: commits then mark the memoized values
    /// their changes reach as stale first (see `markStaleMemos`). Never cleared.
    var hasMemos: Bool { get { flags[.hasMemos] } set { flags[.hasMemos] = newValue } }


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
                let undo = self.undo.flatMap { $0.snapshotsRemovals(pendingChanges) ? $0 : nil }
                var destructed = false
                for orphan in candidates {
                    let context = orphan.context
                    // A shared model that lost its first place, or a model put back since.
                    guard context.places.isEmpty && !context.isRoot && context.state.isLive else { continue }
                    undo?.snapshot(context)
                    context.destruct(into: &batch)
                    destructed = true
                }
                batch.finishDestructs()
                if !batch.isEmpty { teardowns.append(.teardown(batch)) }
                // Entries left with no model to apply to no longer count for `canUndo`.
                if destructed, let history = self.undo { history.dropInapplicableEntries() }
            }
            if !pendingChanges.isEmpty {
                // Swapped with a spare buffer, so that neither allocates in the usual section.
                var changes = spareChanges
                swap(&changes, &pendingChanges)
                var isSingle = changes.count == 1
                // Which writes undo or redo made, read in order before they are coalesced.
                if let undo, !undo.restoreRanges.isEmpty { undo.sortRestores(changes) }
                if !isSingle { PendingChange.coalesce(&changes, stamp: nextStamp()) }
                dropUnchangedFolds(&changes)
                isSingle = changes.count == 1
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
            if !hasQueuedDeliveries && !isDraining {
                // Nothing is waiting to be delivered: this section delivers its own, as the
                // draining thread, with no batch to queue and find again.
                isDraining = true
                work.deliveries = .direct(deliveries)
            } else {
                let extras = self.extras
                extras.nextTicket &+= 1
                extras.deliveryQueue.append(DeliveryBatch(ticket: extras.nextTicket, items: deliveries))
                work.deliveries = .queued(ticket: extras.nextTicket)
            }
            deliveries = spareDeliveries
            spareDeliveries = []
        }
        return work
    }

    /// Evaluates the observers of committed changes and records them for hooks. Caller holds the lock.
    /// `changes` are coalesced (one per property); `isSingle`: the section recorded one change.
    private func commit(_ changes: [PendingChange], isSingle: Bool, into work: inout SectionWork) {
        if !isSingle && hasMemos { markStaleMemos(changes) }
        if hasModificationListeners { collectModifications(changes) }
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
        // A commit of several changes marked the memoized values they reach already.
        if stamp == 0 && observers.count > 1 && hasMemos { markStaleMemos(in: observers) }
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
            extras.hooks.append(hook)
            hasHooks = true
            recordsEveryChange = true
        }
    }

    package func removeHook(_ hook: any HierarchyHook) {
        lock.withShortLock {
            guard let extras = extrasIfAny else { return }
            extras.hooks.removeAll { $0 === hook }
            hasHooks = !extras.hooks.isEmpty
            updateRecordsEveryChange()
        }
    }

    /// Removes `hooks`. Caller holds the lock.
    func removeHooksHoldingLock(_ removed: [any HierarchyHook]) {
        guard let extras = extrasIfAny else { return }
        extras.hooks.removeAll { hook in removed.contains { $0 === hook } }
        hasHooks = !extras.hooks.isEmpty
        updateRecordsEveryChange()
    }

    /// Recomputes `recordsEveryChange`. Caller holds the lock.
    func updateRecordsEveryChange() {
        recordsEveryChange = hasHooks || hasModificationListeners
    }

    // MARK: Teardown

    /// Tears the whole hierarchy down: the root, its subtree and the models used as dependencies.
    func tearDown() {
        // Outside any section of this thread (the usual case: the anchor's last copy released by
        // code that holds no lock), a teardown with no work to perform keeps the released model
        // values itself and drops them after the section, without an action list.
        let isOutermost = !lock.isHeldByCurrentThread
        var released = TeardownBatch()
        beginSection()
        if !isTornDown {
            isTornDown = true
            var batch = TeardownBatch()
            root?.destruct(into: &batch)
            if let extras = extrasIfAny {
                for context in extras.dependencyModels.values {
                    context.destruct(into: &batch)
                }
                extras.dependencyModels = [:]
                extras.undo?.tearDown()
                extras.resolvedDefaults = DependencyList()
                // Each left as its owner was destructed above (a listener refers to the hierarchy).
                assert(
                    extras.modificationListenerCount == 0 && extras.modificationListeners.isEmpty,
                    "ModelKit internal error: a modifications listener outlived its model"
                )
                extras.modificationListeners = []
            }
            batch.finishDestructs()
            root = nil
            if isOutermost && !batch.hasWork {
                released = batch
            } else if !batch.isEmpty {
                pendingActions.append(.teardown(batch))
            }
        }
        endSection()
        // The values are released here, after the lock (their release may run user code). Kept
        // alive explicitly: the optimizer may otherwise release them after their last use, which
        // is inside the section.
        withExtendedLifetime(released) {}
    }
}

/// The flags of a ``Hierarchy``, in one byte.
struct HierarchyFlags: OptionSet {
    let rawValue: UInt8

    static let isDraining = HierarchyFlags(rawValue: 1 << 0)
    static let hasHooks = HierarchyFlags(rawValue: 1 << 1)
    static let recordsEveryChange = HierarchyFlags(rawValue: 1 << 2)
    static let hooksToNotify = HierarchyFlags(rawValue: 1 << 3)
    static let isTornDown = HierarchyFlags(rawValue: 1 << 4)
    static let readsEnvironment = HierarchyFlags(rawValue: 1 << 5)
    static let hasMemos = HierarchyFlags(rawValue: 1 << 6)

    /// Whether `flag` is set.
    subscript(flag: HierarchyFlags) -> Bool {
        @inline(__always) get { contains(flag) }
        @inline(__always) set { if newValue { formUnion(flag) } else { subtract(flag) } }
    }
}
