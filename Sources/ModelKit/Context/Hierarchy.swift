/// The state shared by all models of one anchored hierarchy: the lock, the work collected while it is
/// held, the ordered delivery queue of streams, and the hooks of debugging and testing tools.
import Synchronization

@usableFromInline
package final class Hierarchy: @unchecked Sendable {
    let lock: HierarchyLock
    let testing: TestingSupport?

    // Safety: every field below is guarded by `lock`.
    /// Section nesting on the holding thread.
    @exclusivity(unchecked) var depth = 0
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
    @exclusivity(unchecked) private var spareDeliveries: [Delivery] = []
    /// Committed sections' deliveries, in commit order. A batch becomes ready once its section has
    /// notified Observation, so that nobody sees a value through a stream before Observation
    /// observers heard of it. One draining thread at a time performs ready batches, in order.
    @exclusivity(unchecked) private var deliveryQueue: [DeliveryBatch] = []
    @exclusivity(unchecked) private var nextTicket: UInt64 = 0
    @exclusivity(unchecked) private var isDraining = false
    @exclusivity(unchecked) var hooks: [any HierarchyHook] = []
    /// The `modifications(of:)` streams of the hierarchy's models.
    @exclusivity(unchecked) var modificationListeners: [ModificationListener] = []
    @exclusivity(unchecked) var hasHooks = false
    /// Every change must be recorded: a hook or a `modifications` stream listens.
    @exclusivity(unchecked) var recordsEveryChange = false
    /// Hooks recorded something this section; they are told once it is committed.
    @exclusivity(unchecked) var hooksToNotify = false
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
    @exclusivity(unchecked) var isTornDown = false

    init(testing: TestingSupport? = nil, lockRank: HierarchyLock.Rank = .hierarchy) {
        self.testing = testing
        self.lock = HierarchyLock(rank: lockRank)
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
    func record(_ change: PendingChange) {
        pendingChanges.append(change)
    }

    func withSection<R>(_ body: () throws -> R) rethrows -> R {
        beginSection()
        defer { endSection() }
        return try body()
    }

    /// Collects the section's work. Caller holds the lock, depth 0.
    private func finishSection() -> SectionWork {
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
                for position in changes.indices {
                    work.notifications.append(changes[position].context, changes[position].index)
                }
                commit(changes, into: &work)
                changes.removeAll(keepingCapacity: true)
                spareChanges = changes
            }
        }
        depth = 0
        if hooksToNotify {
            hooksToNotify = false
            work.committedHooks = hooks
        }
        work.actions = teardowns.isEmpty ? pendingActions : teardowns + pendingActions
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
    private func commit(_ changes: [PendingChange], into work: inout SectionWork) {
        let isSingle = changes.count == 1
        let changes = isSingle ? changes : PendingChange.coalesced(changes)
        if !modificationListeners.isEmpty { collectModifications(changes) }
        if let undo { undo.record(changes) }
        // An observer of several changed properties is evaluated once. (One property's observers
        // are distinct, so a single change needs no bookkeeping.)
        var evaluated: [ObjectIdentifier] = []
        for position in changes.indices {
            let context = changes[position].context
            let index = changes[position].index
            if context.isObserved(index), let observers = context.extras?.propertyObservers[index] {
                for observer in observers {
                    if !isSingle {
                        if evaluated.contains(ObjectIdentifier(observer)) { continue }
                        evaluated.append(ObjectIdentifier(observer))
                    }
                    if let value = observer.reevaluate(forced: changes[position].isTouch) {
                        deliveries.append(.property(observer, value))
                    }
                }
            }
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

    // MARK: Deliveries

    /// Marks a section's deliveries ready and performs the ready ones in commit order. Call without
    /// holding the lock.
    func deliver(ticket: UInt64) {
        lock.lock()
        if let index = deliveryQueue.firstIndex(where: { $0.ticket == ticket }) {
            deliveryQueue[index].isReady = true
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
            while let first = deliveryQueue.first, first.isReady {
                batches.append(deliveryQueue.removeFirst())
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

/// A tool observing a hierarchy's changes and events (change printing, the Tester).
package protocol HierarchyHook: AnyObject, Sendable {
    /// A committed change. Called under the hierarchy lock: record it, do nothing else.
    func record(_ change: ChangeRecord)
    /// A sent event. Called under the hierarchy lock: record it, do nothing else.
    func record(_ event: EventRecord)
    /// Called on the committing thread after the lock is released.
    func didCommit()
}

extension HierarchyHook {
    package func record(_ event: EventRecord) {}
}

/// One committed change of one tracked property.
package struct ChangeRecord: @unchecked Sendable {
    // Safety: immutable; `context` is only used to match models, the values only to print.
    let context: Context
    package let index: Int
    /// `AppModel.counters[0].counter`: the model's path from its hierarchy's root.
    package let path: String
    package let property: String
    package let old: Any
    package let new: Any

    /// `AppModel.counters[0].counter.count`.
    package var propertyPath: String { "\(path).\(property)" }

    /// Identifies the changed model (its context) for matching with recorded reads.
    package var contextID: ObjectIdentifier { ObjectIdentifier(context) }
}

/// One sent event.
package struct EventRecord: @unchecked Sendable {
    // Safety: immutable.
    let sender: Context
    package let event: Any
    package let path: String

    package var senderID: ObjectIdentifier { ObjectIdentifier(sender) }
}

/// A write waiting for its section to end.
struct PendingChange {
    let context: Context
    let index: Int
    /// Boxed values, present when a hook listens.
    var old: Any?
    var new: Any?
    /// Not a change but a touch (`node.touch`): observers see the current value again, hooks see
    /// nothing.
    var isTouch = false

    /// One change per property: the first old value and the last new value, in first-write order.
    static func coalesced(_ changes: [PendingChange]) -> [PendingChange] {
        var result: [PendingChange] = []
        var positions: [Key: Int] = [:]
        for change in changes {
            let key = Key(context: ObjectIdentifier(change.context), index: change.index)
            if let position = positions[key] {
                if change.isTouch {
                    result[position].isTouch = true
                } else {
                    // A touch carries no values: the first real change's old value counts.
                    // (So does a derived change of an environment value or preference.)
                    if result[position].old == nil { result[position].old = change.old }
                    if change.new != nil || result[position].old == nil { result[position].new = change.new }
                }
            } else {
                positions[key] = result.count
                result.append(change)
            }
        }
        return result
    }

    private struct Key: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }
}

/// Something to do once a section's lock is released.
enum SectionAction {
    case activate(Context, [@Sendable (Any) -> Void])
    case teardown(TeardownBatch)
    case issue(ModelIssue)
    case run(@Sendable () -> Void)
}

/// The work a section leaves for after its lock is released.
struct SectionWork {
    var notifications = NotificationList()
    var committedHooks: [any HierarchyHook] = []
    var actions: [SectionAction] = []
    /// The section's stream deliveries, performed after the notifications, in commit order.
    var deliveries = SectionDeliveries.none

    consuming func perform(_ hierarchy: Hierarchy) {
        notifications.notifyObservation()
        // Hooks (change printing, the Tester) hear of the commit before streams deliver it, so that
        // a change is printed before any work that waited for it goes on.
        for hook in committedHooks { hook.didCommit() }
        var deliveries = SectionDeliveries.none
        swap(&deliveries, &self.deliveries)
        switch consume deliveries {
        case .none: break
        case .direct(let items): hierarchy.deliverDirectly(items)
        case .queued(let ticket): hierarchy.deliver(ticket: ticket)
        }
        for action in actions {
            switch action {
            case .activate(let context, let handlers):
                context.activate(handlers)
            case .teardown(let batch):
                batch.perform()
            case .issue(let issue):
                hierarchy.report(issue)
            case .run(let body):
                body()
            }
        }
    }
}

/// The properties a section changed, to notify Observation of once the lock is released. The
/// first is stored inline: most sections change one property.
struct NotificationList {
    private var first: (context: Context, index: Int)?
    private var others: [(context: Context, index: Int)] = []

    mutating func append(_ context: Context, _ index: Int) {
        if first == nil {
            first = (context, index)
        } else {
            others.append((context, index))
        }
    }

    /// Notifies each changed property once.
    func notifyObservation() {
        guard let first else { return }
        if others.isEmpty {
            first.context.notifyObservation(first.index)
            return
        }
        var notified = Set<Key>()
        for (context, index) in CollectionOfOne(first) + others
        where notified.insert(Key(context: ObjectIdentifier(context), index: index)).inserted {
            context.notifyObservation(index)
        }
    }

    private struct Key: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }
}

/// How a committed section's deliveries reach their streams.
enum SectionDeliveries {
    case none
    /// Nothing was queued before them: the section's thread drains, starting with these.
    case direct([Delivery])
    /// Queued behind earlier sections' deliveries, under this ticket.
    case queued(ticket: UInt64)
}

/// The stream deliveries of one committed section.
struct DeliveryBatch {
    let ticket: UInt64
    var items: [Delivery]
    var isReady = false
}

/// A queued stream delivery.
enum Delivery {
    case property(PropertyObserver, AnyObject)
    case event(EventListener, Any, Any)
    case run(@Sendable () -> Void)

    /// Performs `items` in order, leaving the array empty (its capacity kept). Each delivery is
    /// moved out rather than copied, which would retain and release its payload once more.
    static func performAll(_ items: inout [Delivery]) {
        items.reverse()
        while let delivery = items.popLast() {
            delivery.perform()
        }
    }

    func perform() {
        switch self {
        case .property(let observer, let value):
            observer.deliver(value)
        case .event(let listener, let event, let sender):
            listener.deliver(event, sender)
        case .run(let body):
            body()
        }
    }
}
