/// The parts of a context most models never use, allocated on first use: running work, property
/// observers and event listeners. Guarded by the hierarchy lock, like the context that owns it.
final class ContextExtras {
    // Safety: every field is guarded by the hierarchy lock (so no dynamic exclusivity checks).
    /// Tasks and `onCancel` handlers, by id.
    @exclusivity(unchecked) var work: [Int: WorkEntry] = [:]
    @exclusivity(unchecked) var nextWorkID = 0
    /// Observers of this context's properties, by property index.
    @exclusivity(unchecked) var propertyObservers = PropertyObserverTable()
    /// Observers owned by this context (they may be registered on other contexts too).
    @exclusivity(unchecked) var ownedObservers: [PropertyObserver] = []
    /// The `modifications(of:)` listeners of this model whose relation is made of `.self`,
    /// `.children` and `.descendants`, found by a commit walking up from each change (see
    /// Observation/Hierarchy+Modifications.swift); each is in `ownedObservers` too.
    @exclusivity(unchecked) var modificationListeners: [ModificationListener] = []
    /// Memoized values (`node.memoize`), in creation order; entry `i` is property `schema.count + i`.
    @exclusivity(unchecked) var memos: [MemoEntry] = []
    /// The model's printed path, and the hierarchy's `structureVersion` it was computed at.
    @exclusivity(unchecked) var cachedPath: (version: UInt64, path: String)?
    /// The path components of this model's children, per slot (see `Context.childPathComponents`).
    @exclusivity(unchecked) var childPaths: ChildPathCache?
    /// Environment values, preferences and used dependencies (Environment/ContextValues.swift).
    @exclusivity(unchecked) var values: ContextValues?
    /// Listeners of events sent to this context.
    @exclusivity(unchecked) var eventListeners: [EventListener] = []
    /// See `Context.undoTracking`.
    @exclusivity(unchecked) var undoTracking: UndoTracking?
    /// See `Context.slots`.
    @exclusivity(unchecked) var slots = SlotTable()
    /// What `withDependencies`, `withActivation` and `_withPrintChanges` set on the instance
    /// anchored, kept for the detached copy undo makes of the model if it is removed (so that the
    /// model it brings back is set up the same way).
    @exclusivity(unchecked) var anchoredModifiers: NodeBox.Modifiers?
    /// The hooks `_withPrintChanges` installed for this model: they go when it is torn down.
    @exclusivity(unchecked) var printers: [ChangePrinter] = []

    /// The path components of a parent's children, per child slot, valid at one `structureVersion`.
    /// A class, so that the extras of models never printed grow by one word only.
    final class ChildPathCache {
        // Safety: guarded by the hierarchy lock, like the extras that hold it.
        let version: UInt64
        @exclusivity(unchecked) var bySlot: [Int: [ObjectIdentifier: String]] = [:]

        init(version: UInt64) {
            self.version = version
        }
    }

    /// One running task or registered `onCancel` handler.
    ///
    /// A cancelled task stays listed, marked `isCancelled`, until it ends: it is still running (a
    /// tester waits for it and reports it if it never ends), but no id or cancellation reaches it
    /// again. An `onCancel` handler leaves as it runs.
    struct WorkEntry {
        var task: Task<Void, Never>?
        var onCancel: (@Sendable () -> Void)?
        var ids: [SendableHashable]
        let location: SourceLocation
        /// The name given to `task`, `forEach` or `task(id:)`, if any.
        let name: String?
        let fromActivation: Bool
        var isTask: Bool
        var isCancelled = false
    }

    /// What a destructed context leaves to do once the lock is released.
    struct TeardownWork {
        var tasks: [Task<Void, Never>] = []
        /// The handlers of task entries (a `forEach`'s flag): they run before the tasks are
        /// cancelled, whose cancellation may hand the loop one last element (a debounce flushing).
        var beforeCancellingTasks: [@Sendable () -> Void] = []
        var onCancel: [@Sendable () -> Void] = []
        var finishers: [@Sendable () -> Void] = []
        /// The context torn down, whose `onCancel` handlers run as its work (see `perform()`).
        var owner: Context?

        /// Whether there is nothing to do.
        var isEmpty: Bool { tasks.isEmpty && beforeCancellingTasks.isEmpty && onCancel.isEmpty && finishers.isEmpty }

        func perform() {
            for handler in beforeCancellingTasks { handler() }
            for task in tasks { task.cancel() }
            if !onCancel.isEmpty {
                // As the model's own work, like a cancelled task's `defer`: a handler writing back
                // to its destructed model (`connected = false`) is ignored quietly, not reported.
                CurrentWork.$owner.withValue(owner) {
                    for handler in onCancel { handler() }
                }
            }
            for finish in finishers { finish() }
        }
    }

    /// Marks the task entry `id` cancelled: it stays listed until its task ends (see `WorkEntry`),
    /// and no id or cancellation reaches it again. Caller holds the lock.
    func markCancelled(_ id: Int) {
        work[id]?.isCancelled = true
        work[id]?.ids = []
        work[id]?.onCancel = nil
    }

    /// Empties everything for teardown of `context`, which owns these extras. Caller holds the lock.
    ///
    /// Under a tester, the tasks stay listed, cancelled, until they end, and the hierarchy lists the
    /// context among those with tasks unwinding: the end of the test waits for them and reports one
    /// that never ends, as it does for the cancelled tasks of live models.
    func takeWorkForTeardown(of context: Context, batch: inout TeardownBatch) -> TeardownWork {
        var result = TeardownWork()
        result.owner = context
        let keepsTasks = context.hierarchy.testing != nil
        var keptTasks = false
        for id in work.keys.sorted() {
            let entry = work[id]!
            if let task = entry.task { result.tasks.append(task) }
            if let handler = entry.onCancel {
                if entry.isTask { result.beforeCancellingTasks.append(handler) } else { result.onCancel.append(handler) }
            }
            if keepsTasks && entry.isTask {
                markCancelled(id)
                keptTasks = true
            } else {
                work[id] = nil
            }
        }
        if keptTasks {
            context.hierarchy.extras.unwindingContexts[ObjectIdentifier(context)] = context
        }
        for observer in ownedObservers {
            observer.unregisterAll(leavingListsTo: &batch)
            observer.owner = nil
            result.finishers.append(observer.finish)
        }
        ownedObservers = []
        // Other models' observers registered here forget this context before it can be freed.
        for observers in propertyObservers.values {
            for observer in observers { observer.dropRegistrations(on: context) }
        }
        propertyObservers = [:]
        for listener in eventListeners {
            result.finishers.append(listener.finish)
        }
        eventListeners = []
        return result
    }
}

extension Context {
    /// The extras, created on first use. Caller holds the lock.
    final var ensuredExtras: ContextExtras {
        if let extras { return extras }
        let created = ContextExtras()
        extras = created
        return created
    }

    /// Recomputes `observedMask` from the registered property observers. Caller holds the lock.
    final func updateObservedMask() {
        var mask: UInt32 = 0
        for (index, observers) in extras?.propertyObservers ?? [:] where !observers.isEmpty {
            mask |= 1 << UInt32(min(index, 31))
        }
        observedMask = mask
    }
}
