import Synchronization

/// The parts of a hierarchy that a bare one never uses, allocated on first use and kept until the
/// hierarchy is freed: the tester, hooks, `modifications` streams, event listeners, the queue of
/// ordered stream deliveries, dependency defaults and models, and undo.
///
/// Keeping them out of ``Hierarchy`` puts a hierarchy in a smaller malloc class, which every model
/// anchored as its own root pays for.
final class HierarchyExtras: @unchecked Sendable {
    // Safety: `testing` is immutable and `defaultsSnapshotBits` atomic; every other field is
    // guarded by the hierarchy lock (so no dynamic exclusivity checks).

    /// The tester driving the hierarchy, if any (set when the hierarchy is created).
    let testing: TestingSupport?
    /// Resolved defaults that are not models, published for reads without the lock
    /// (`Unmanaged<DefaultsSnapshot>` bits, 0 before the first).
    let defaultsSnapshotBits = Atomic<UInt>(0)

    /// How many event listeners the hierarchy's models have: sending is free when there are none.
    @exclusivity(unchecked) var eventListenerCount = 0
    /// Committed sections' deliveries, in commit order. A batch becomes ready once its section has
    /// notified Observation, so that nobody sees a value through a stream before Observation
    /// observers heard of it. One draining thread at a time performs ready batches, in order.
    @exclusivity(unchecked) var deliveryQueue: [DeliveryBatch] = []
    @exclusivity(unchecked) var nextTicket: UInt64 = 0
    @exclusivity(unchecked) var hooks: [any HierarchyHook] = []
    /// The live `modifications(of:)` streams of the hierarchy's models whose relation reaches beyond
    /// the model and the models below it (the others are listed on their model, in
    /// `ContextExtras.modificationListeners`): each leaves as it ends or its model is destructed
    /// (see `ModificationListener.leaveHierarchy`).
    @exclusivity(unchecked) var modificationListeners: [ModificationListener] = []
    /// How many live `modifications(of:)` streams the hierarchy's models have, in either list.
    @exclusivity(unchecked) var modificationListenerCount = 0
    @exclusivity(unchecked) var resolvedDefaults = DependencyList()
    /// Every snapshot published, kept until the hierarchy is freed so that a reader never has to
    /// retain one. (Models are left out: a model dependency's value refers back to the hierarchy.)
    @exclusivity(unchecked) var publishedDefaults: [DefaultsSnapshot] = []
    @exclusivity(unchecked) var dependencyModels: [ObjectIdentifier: Context] = [:]
    /// Work on models nested too deep to reconcile recursively (see `Hierarchy.nested(_:)`),
    /// performed by the outermost level before the section ends.
    @exclusivity(unchecked) var deferredNestedWork: [Hierarchy.NestedWork] = []
    /// The model dependency types already reported as belonging to another hierarchy.
    @exclusivity(unchecked) var reportedForeignDependencies: Set<ObjectIdentifier> = []
    @exclusivity(unchecked) var reportedMissingDependencies: Set<ObjectIdentifier> = []
    /// Under a tester, the destructed contexts whose cancelled tasks have not ended yet (see
    /// `ContextExtras.takeWorkForTeardown`); each leaves as its last task ends.
    @exclusivity(unchecked) var unwindingContexts: [ObjectIdentifier: Context] = [:]
    /// Undo's state, once a model of the hierarchy tracks undo (Undo/UndoRecording.swift).
    @exclusivity(unchecked) var undo: HierarchyUndo?

    init(testing: TestingSupport?) {
        self.testing = testing
    }
}

extension Hierarchy {
    /// The extras if they were created, from any thread: they live as long as the hierarchy.
    @inline(__always)
    var extrasIfAny: HierarchyExtras? { extrasReference.object }

    /// `body` applied to the extras, or `absent` if there are none, without retaining them (the
    /// hierarchy keeps them alive): for the reads on the write and send paths.
    @inline(__always)
    func readExtras<R>(or absent: R, _ body: (HierarchyExtras) -> R) -> R {
        extrasReference.read(or: absent, body)
    }

    /// The extras, created on first use. Caller holds the lock.
    var extras: HierarchyExtras {
        extrasReference.readOrCreate({ HierarchyExtras(testing: nil) }) { $0 }
    }

    // The fields most used on the write and send paths, read through the extras without creating
    // them. Callers hold the lock, except for `testing`.

    /// The tester driving the hierarchy, if any. Any thread.
    var testing: TestingSupport? { readExtras(or: nil) { $0.testing } }

    /// Undo's state, once a model of the hierarchy tracks undo.
    var undo: HierarchyUndo? { readExtras(or: nil) { $0.undo } }

    var hooks: [any HierarchyHook] { readExtras(or: []) { $0.hooks } }

    var eventListenerCount: Int { readExtras(or: 0) { $0.eventListenerCount } }

    /// Whether committed sections' deliveries wait in the queue.
    var hasQueuedDeliveries: Bool { readExtras(or: false) { !$0.deliveryQueue.isEmpty } }

    /// Whether a `modifications` stream listens.
    var hasModificationListeners: Bool { readExtras(or: false) { $0.modificationListenerCount != 0 } }
}
