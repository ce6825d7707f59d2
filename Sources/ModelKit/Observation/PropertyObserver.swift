// Observers of model state: `change(of:)`, `node.observe` and `node.onChange`.
//
// An observer evaluates its expression with the hierarchy locked for the commit that affected it,
// on the committing thread, recording what the expression read so that it can re-register. So each
// committed state is evaluated exactly once, in commit order, and the values are delivered (outside
// the lock) in that order.

/// An observer registered on the properties its expression read.
@usableFromInline
class PropertyObserver: @unchecked Sendable {
    /// A property the observer is registered on.
    ///
    /// The context is neither retained nor weak (see "No weak references to contexts" in
    /// Internals.md): registrations are made on live contexts only, and a context's destruct
    /// removes the registrations on it (``dropRegistrations(on:)``), so it is always alive.
    struct Registration {
        // Safety: valid while the registration exists (see above); used under the lock.
        unowned(unsafe) let context: Context
        let index: Int
    }

    // Safety: `registrations`, `isCancelled` and `owner` are guarded by the lock of `hierarchy`.
    let hierarchy: Hierarchy
    @exclusivity(unchecked) var registrations: [Registration] = []
    @exclusivity(unchecked) var isCancelled = false
    /// The context that owns the observer (it is in that context's `ownedObservers`); set to nil
    /// by the owner's destruct, so never dangling.
    @exclusivity(unchecked) unowned(unsafe) var owner: Context?
    /// The stamp of the last commit that evaluated the observer (`Hierarchy.reevaluateObservers`),
    /// so that an observer of several changed properties is evaluated once per commit. Guarded by
    /// the lock of `hierarchy`.
    @exclusivity(unchecked) var evaluatedStamp: UInt64 = 0

    init(hierarchy: Hierarchy) {
        self.hierarchy = hierarchy
    }

    /// The observer as a memoized value's entry, if it is one (a commit marks those stale first).
    var asMemo: MemoEntry? { nil }

    /// Re-evaluates after a commit; returns the change to deliver, or nil to deliver nothing.
    /// `forced`: a property it read was touched, so an unchanged value is delivered too. Caller
    /// holds the lock.
    func reevaluate(forced: Bool) -> AnyObject? { nil }

    /// What a commit calls: ``reevaluate(forced:)``'s change, boxed, unless the observer hands its
    /// changes over inline. Caller holds the lock.
    func reevaluateForDelivery(forced: Bool) -> ObservedPayload? {
        reevaluate(forced: forced).map(ObservedPayload.init(box:))
    }

    /// Delivers a change produced by `reevaluateForDelivery`. Called without the lock, in commit
    /// order.
    func deliver(_ change: ObservedPayload) {}

    /// Ends the observer's stream.
    func finish() {}

    /// Registers on exactly the properties in `reads`. Caller holds the lock.
    final func register(on reads: [AccessRecording.Read]) {
        if isRegistered(exactlyOn: reads) { return }
        // The wanted registrations, in first-read order.
        var wanted: [AccessRecording.Read] = []
        var wantedKeys: Set<AccessRecording.Read.ReadKey> = []
        for read in reads where read.context.hierarchy === hierarchy && read.context.state.isLive {
            if wantedKeys.insert(read.key).inserted { wanted.append(read) }
        }
        var existing: Set<AccessRecording.Read.ReadKey> = []
        for registration in registrations {
            let context = registration.context
            let key = AccessRecording.Read.ReadKey(context: ObjectIdentifier(context), index: registration.index)
            if wantedKeys.contains(key) {
                existing.insert(key)
            } else {
                remove(from: context, index: registration.index)
            }
        }
        for read in wanted where !existing.contains(read.key) {
            read.context.ensuredExtras.propertyObservers[read.index, default: []].append(self)
            read.context.updateObservedMask()
        }
        registrations = wanted.map { Registration(context: $0.context, index: $0.index) }
    }

    /// Whether the registrations are already exactly `reads` (the usual case after a change: an
    /// expression reads the same properties again). Caller holds the lock.
    private final func isRegistered(exactlyOn reads: [AccessRecording.Read]) -> Bool {
        // The usual case: the same reads in the same order, each once.
        if reads.count == registrations.count {
            var position = 0
            while position < reads.count, reads[position].context === registrations[position].context,
                  reads[position].index == registrations[position].index {
                position += 1
            }
            if position == reads.count { return true }
        }
        var position = 0
        for read in reads {
            if position < registrations.count, registrations[position].context === read.context,
               registrations[position].index == read.index {
                position += 1
                continue
            }
            // A repeated read of a property already matched is fine; anything else is new.
            guard registrations[..<position].contains(where: { $0.context === read.context && $0.index == read.index })
            else { return false }
        }
        return position == registrations.count
    }

    /// Unregisters everywhere (at cancellation, or at its owner's destruct). Caller holds the lock.
    final func unregisterAll() {
        isCancelled = true
        for registration in registrations {
            remove(from: registration.context, index: registration.index)
        }
        registrations = []
        leaveHierarchy()
    }

    /// Unregisters everywhere at its owner's destruct, leaving the lists it is in to `batch`, which
    /// compacts each of them once (``TeardownBatch/compactObserverLists()``): a write removing n
    /// children that each observe one property of a model scans that property's list once, not n
    /// times. Until then the observer stays listed, cancelled. Caller holds the lock.
    final func unregisterAll(leavingListsTo batch: inout TeardownBatch) {
        isCancelled = true
        for registration in registrations {
            batch.noteObserverLeft(registration.context, index: registration.index)
        }
        registrations = []
        leaveHierarchy()
    }

    /// Leaves the lists of the hierarchy itself that name the observer, if any. Such a list must
    /// not outlive the models: the observer refers to the hierarchy, which would never be freed.
    /// Caller holds the lock.
    func leaveHierarchy() {}

    /// Forgets the registrations on `context`, which is being destructed (its observer lists go
    /// with it). Caller holds the lock.
    final func dropRegistrations(on context: Context) {
        registrations.removeAll { $0.context === context }
    }

    private final func remove(from context: Context, index: Int) {
        guard let extras = context.extras else { return }
        extras.propertyObservers[index]?.removeAll { $0 === self }
        if extras.propertyObservers[index]?.isEmpty == true {
            extras.propertyObservers[index] = nil
        }
        context.updateObservedMask()
    }

    /// Removes the cancelled observers from the list of property `index` of `context`: those that
    /// left it with ``unregisterAll(leavingListsTo:)``. (No other observer in a list is cancelled:
    /// ``unregisterAll()`` removes it at once.) Caller holds the lock.
    static func removeCancelled(from context: Context, index: Int) {
        guard context.state.isLive, let extras = context.extras else { return }
        extras.propertyObservers[index]?.removeAll { $0.isCancelled }
        if extras.propertyObservers[index]?.isEmpty == true {
            extras.propertyObservers[index] = nil
        }
    }

    /// Stops observing: unregisters, leaves its owner, and ends the stream.
    @usableFromInline
    final func cancel() {
        hierarchy.lock.withShortLock {
            unregisterAll()
            owner?.extras?.ownedObservers.removeAll { $0 === self }
            owner = nil
        }
        finish()
    }
}

/// The observers of a model's properties, by property index: a short list searched linearly. A
/// model has observers on a few of its properties, and a commit looks them up for every observed
/// change, where hashing the index cost more than the search.
struct PropertyObserverTable: Sequence, ExpressibleByDictionaryLiteral {
    private var entries: [(index: Int, observers: [PropertyObserver])] = []

    init(dictionaryLiteral elements: (Int, [PropertyObserver])...) {
        for (index, observers) in elements { self[index] = observers }
    }

    var isEmpty: Bool { entries.isEmpty }

    /// Every list of observers, in no particular order.
    var values: [[PropertyObserver]] { entries.map(\.observers) }

    func makeIterator() -> IndexingIterator<[(index: Int, observers: [PropertyObserver])]> {
        entries.makeIterator()
    }

    /// The observers of property `index`; setting nil removes the entry.
    subscript(index: Int) -> [PropertyObserver]? {
        get {
            for entry in entries where entry.index == index { return entry.observers }
            return nil
        }
        set {
            let position = entries.firstIndex { $0.index == index }
            switch (position, newValue) {
            case let (position?, observers?): entries[position].observers = observers
            case let (position?, nil): entries.remove(at: position)
            case let (nil, observers?): entries.append((index, observers))
            case (nil, nil): break
            }
        }
        // In place (`table[index]?.removeAll { … }`): the list is taken out of its entry while it
        // is updated, so that it is not copied.
        _modify {
            if let position = entries.firstIndex(where: { $0.index == index }) {
                var observers: [PropertyObserver]? = entries[position].observers
                entries[position].observers = []
                defer {
                    if let observers { entries[position].observers = observers } else { entries.remove(at: position) }
                }
                yield &observers
            } else {
                var observers: [PropertyObserver]?
                defer {
                    if let observers { entries.append((index, observers)) }
                }
                yield &observers
            }
        }
    }

    /// The observers of property `index`, or `defaultValue`, for updating in place.
    subscript(index: Int, default defaultValue: @autoclosure () -> [PropertyObserver]) -> [PropertyObserver] {
        get { self[index] ?? defaultValue() }
        _modify {
            let position: Int
            if let found = entries.firstIndex(where: { $0.index == index }) {
                position = found
            } else {
                entries.append((index, defaultValue()))
                position = entries.count - 1
            }
            yield &entries[position].observers
        }
    }
}
