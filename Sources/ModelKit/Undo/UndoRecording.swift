/// How commits become undo entries.
///
/// `node.trackUndo` gives a context an ``UndoTracking``: a mask of the properties that record undo
/// and the history (the ``ModelUndoStack``'s storage) their entries go to. A context with one makes
/// every write take the recording path (`Context.needsChangeRecord`), and boxes the old and new
/// values of the tracked properties only (`Context.makePendingChange`). A one-write section whose only
/// recorder is undo pushes its entry directly (`Context.undoRoute`, inlined in the write path); any
/// other section's commit hands its coalesced changes to ``HierarchyUndo/record(_:)``: one entry
/// per commit and history.

/// Which properties of one context record undo entries, and the history they go to.
final class UndoTracking {
    // Safety: every field is guarded by the hierarchy lock.
    let history: UndoHistory
    /// Bit `i`: property `i` records undo (for `i` below 64).
    @exclusivity(unchecked) private var mask: UInt64 = 0
    /// The tracked properties from index 64 on.
    @exclusivity(unchecked) private var highIndices: Set<Int> = []

    init(history: UndoHistory) {
        self.history = history
    }

    func add(_ index: Int) {
        if index < 64 { mask |= 1 << UInt64(index) } else { highIndices.insert(index) }
    }

    @inline(__always)
    func tracks(_ index: Int) -> Bool {
        index < 64 ? mask & (1 << UInt64(index)) != 0 : highIndices.contains(index)
    }

    /// The same properties, recording into the same history, for another context.
    func copy() -> UndoTracking {
        let copy = UndoTracking(history: history)
        copy.mask = mask
        copy.highIndices = highIndices
        return copy
    }
}

/// A hierarchy's undo state beyond its histories: what the current section restores (not recorded)
/// and how to bring removed children back. Guarded by the hierarchy lock.
final class HierarchyUndo {
    // Safety: every field is guarded by the hierarchy lock. The hierarchy owns this object.
    unowned(unsafe) let hierarchy: Hierarchy
    /// The histories models of this hierarchy record into, emptied at teardown.
    @exclusivity(unchecked) var histories: [UndoHistory] = []
    /// Where undo or redo wrote in the current section: ranges of positions in the hierarchy's
    /// pending changes. What a restore wrote (the restored values, and what they caused, such as a
    /// continued child taking a restored instance's values) is not recorded; other writes of the
    /// section are (see `sortRestores(_:)`).
    @exclusivity(unchecked) var restoreRanges: [Range<Int>] = []
    /// What the commit records of each property a restore wrote, decided from the section's
    /// changes in order before they are coalesced (see `sortRestores(_:)`).
    @exclusivity(unchecked) private var restoredProperties: [RestoredKey: RestoredProperty] = [:]

    private struct RestoredKey: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }

    private struct RestoredProperty {
        /// The value the last restore of the property left.
        var restored: Any?
        /// Whether the section wrote it again after that restore.
        var writtenAfter = false
    }

    /// Notes, from the section's changes in the order they were made, which properties a restore
    /// wrote and whether the section wrote them again after it. Caller holds the lock, before the
    /// changes are coalesced.
    func sortRestores(_ changes: [PendingChange]) {
        guard !restoreRanges.isEmpty else { return }
        let ranges = restoreRanges
        restoreRanges = []
        restoredProperties = [:]
        for position in changes.indices where !changes[position].isTouch {
            let change = changes[position]
            let key = RestoredKey(context: ObjectIdentifier(change.context), index: change.index)
            if ranges.contains(where: { $0.contains(position) }) {
                restoredProperties[key] = RestoredProperty(restored: change.new)
            } else if restoredProperties[key] != nil {
                restoredProperties[key]?.writtenAfter = true
            }
        }
    }
    /// Removed models (by their destructed context): the snapshot taken before their teardown, and
    /// the context that brought them back, if any. A model removed, brought back and removed again
    /// leaves a chain of such contexts; `collapseChains()` (Undo/Revivals.swift) keeps it short.
    @exclusivity(unchecked) var revivals: [ObjectIdentifier: Revival] = [:]
    /// The contexts the revivals' successors name: noted when linked, recomputed when revivals are
    /// collapsed or released (until then it may hold a context no longer linked, whose removal costs
    /// a collapse that changes nothing). When one of them is removed again, the chains are collapsed
    /// at the end of the commit (`chainsToCollapse`).
    @exclusivity(unchecked) var successors: Set<ObjectIdentifier> = []
    /// Whether the current section removed a context that brought a removed model back.
    @exclusivity(unchecked) var chainsToCollapse = false

    struct Revival {
        let context: Context
        var snapshot: (any Model)?
        /// The models under the removed one when the snapshot was taken, by id: the snapshot holds
        /// copies of them, which come back with it (see `noteRevived`).
        var descendants: [ModelID: Context] = [:]
        /// The context that brought the model back, or (once collapsed) a later context of the same
        /// chain. It was made after `context` (a successor is always a context made by the restore
        /// that links it), so following successors ends: a chain has no cycle, and it visits each
        /// key of `revivals` at most once.
        var successor: Context?
    }

    init(hierarchy: Hierarchy) {
        self.hierarchy = hierarchy
    }

    /// Whether removals in a section with these pending changes need snapshots: one of them
    /// changes a child slot that tracks undo.
    func snapshotsRemovals(_ changes: [PendingChange]) -> Bool {
        changes.contains { change in
            !change.isTouch && change.context.schema.isChildSlot(change.index)
                && change.context.undoTracking?.tracks(change.index) == true
        }
    }

    /// Keeps a detached copy of `context`'s model, about to be torn down, and notes the models
    /// under it.
    func snapshot(_ context: Context) {
        guard let model = context.model else { return }
        let copy = detachedAny(model)
        var descendants: [ModelID: Context] = [:]
        // A context that brought a removed model back, removed again: the earlier snapshots of its
        // chain are superseded by this one.
        var revivedAgain = successors.contains(ObjectIdentifier(context))
        var pending = context.children
        while let child = pending.popLast() {
            guard let model = child.model, descendants.updateValue(child, forKey: nodeBox(of: model).id) == nil
            else { continue }
            if !revivedAgain, successors.contains(ObjectIdentifier(child)) { revivedAgain = true }
            pending.append(contentsOf: child.children)
        }
        if revivedAgain { chainsToCollapse = true }
        var revival = revivals[ObjectIdentifier(context)] ?? Revival(context: context)
        revival.snapshot = copy
        revival.descendants = descendants
        revivals[ObjectIdentifier(context)] = revival
    }

    /// After models were torn down: drops the entries on top of each history that no longer
    /// apply. Caller holds the section.
    func dropInapplicableEntries() {
        guard !histories.isEmpty else { return }
        // Computed only if a top entry names no live model: the set walks every revival, and the
        // usual removal's entry applies to the live parent.
        var revivable: Set<ObjectIdentifier>?
        let lazyRevivable = { () -> Set<ObjectIdentifier> in
            if let revivable { return revivable }
            let computed = self.revivableContexts()
            revivable = computed
            return computed
        }
        for history in histories {
            history.dropInapplicableTops(undo: self, revivable: lazyRevivable, in: hierarchy)
        }
    }

    /// The destructed contexts whose models undo keeps a copy of, to bring them back: removed
    /// models and the models under them. Caller holds the lock.
    func revivableContexts() -> Set<ObjectIdentifier> {
        var result: Set<ObjectIdentifier> = []
        for (key, revival) in revivals where revival.snapshot != nil {
            result.insert(key)
            for context in revival.descendants.values { result.insert(ObjectIdentifier(context)) }
        }
        return result
    }

    /// Whether `context`, or the model that brought it back last, is kept to be brought back.
    func mayComeBack(_ context: Context, revivable: () -> Set<ObjectIdentifier>) -> Bool {
        let revivable = revivable()
        var current = context
        var steps = 0
        while !revivable.contains(ObjectIdentifier(current)) {
            guard let next = successor(of: current, steps: &steps) else { return false }
            current = next
        }
        return true
    }

    /// The context that brought `context`'s model back, if any; `steps` counts the steps of the
    /// walk so far. A chain visits each revival at most once (see `Revival.successor`): a walk
    /// longer than that means the invariant broke, which debug builds stop at and release builds
    /// end the walk at, rather than loop forever. Caller holds the lock.
    func successor(of context: Context, steps: inout Int) -> Context? {
        steps += 1
        guard steps <= revivals.count + 1 else {
            assertionFailure("ModelKit internal error: undo's chain of revived models has a cycle")
            return nil
        }
        return revivals[ObjectIdentifier(context)]?.successor
    }

    /// Turns a commit's changes of undo-tracked properties into one entry per history.
    func record(_ changes: [PendingChange]) {
        let restored = restoredProperties
        restoredProperties = [:]
        var groups: [(history: UndoHistory, changes: [UndoChange], hasChildSlot: Bool)] = []
        var unchangedSlots = false
        // A touch carries no values and is skipped below; a touch coalesced with a write of the
        // same property carries the write's, and is the write's entry.
        for change in changes {
            let context = change.context
            guard let tracking = context.undoTracking, tracking.tracks(change.index),
                  var old = change.old, let new = change.new
            else { continue }
            if !restored.isEmpty, let property = restored[RestoredKey(context: ObjectIdentifier(context), index: change.index)] {
                // Restored: recorded only if written again after the restore, from the restored value.
                guard property.writtenAfter, let restoredValue = property.restored else { continue }
                old = restoredValue
            }
            // Coalesced writes of a transaction may end where they began.
            let isChildSlot = context.schema.isChildSlot(change.index)
            if let cell = context.cell(change.index) {
                if cell.undoable.isEqualAny(old, new) { continue }
                if isChildSlot, leftAsItWas(context, change.index, cell: cell, old: old, new: new) {
                    unchangedSlots = true
                    continue
                }
            }
            let undoChange = UndoChange(context: context, index: change.index, old: old, new: new)
            if let position = groups.firstIndex(where: { $0.history === tracking.history }) {
                groups[position].changes.append(undoChange)
                groups[position].hasChildSlot = groups[position].hasChildSlot || isChildSlot
            } else {
                groups.append((tracking.history, [undoChange], isChildSlot))
            }
        }
        for group in groups {
            group.history.push(UndoEntry(group.changes, hasChildSlot: group.hasChildSlot), in: hierarchy)
        }
        // After the pushes: the commit's own entry may be what still refers to a chain.
        if chainsToCollapse {
            collapseChains()
        } else if unchangedSlots {
            // The copies kept of children the commit added and removed again: no entry names them.
            releaseUnreferencedRevivals()
        }
    }

    /// Whether child slot `index` of `context` was left as it was by a commit that took it from
    /// `old` to `new` (a transaction that added a child and removed it again): both values hold
    /// the same children in the same order (the same instances, or instances continuing the same
    /// model), and nothing else of them differs (see `slotIsUnchanged`). Caller holds the lock.
    private func leftAsItWas(_ context: Context, _ index: Int, cell: AnyCell, old: Any, new: Any) -> Bool {
        let oldBoxes = cell.undoable.modelBoxes(in: old, slot: index, of: context.schema)
        let newBoxes = cell.undoable.modelBoxes(in: new, slot: index, of: context.schema)
        guard oldBoxes.count == newBoxes.count else { return false }
        for (oldBox, newBox) in zip(oldBoxes, newBoxes) where oldBox !== newBox {
            guard let live = oldBox.context, live === newBox.context else { return false }
        }
        return slotIsUnchanged(holdsSameChildren: true, old: old, new: new)
    }

    /// The live context a change recorded on `context` applies to now: the context itself, or the
    /// one that brought its removed model back.
    func liveTarget(for context: Context) -> Context? {
        var current = context
        var steps = 0
        while !current.state.isLive {
            guard let next = successor(of: current, steps: &steps) else { return nil }
            current = next
        }
        return current.schema === context.schema ? current : nil
    }

    /// `value` (a child slot's value) with each removed model replaced: by the live model that
    /// brought it back, else by a new copy of its latest snapshot. `revived` receives, for each new
    /// copy, the destructed context it stands for and the copy's box.
    func reviving(_ value: Any, revived: inout [(dead: Context, box: NodeBox)]) -> Any {
        mappingModels(in: value) { model in
            guard let context = nodeBox(of: model).context, !context.state.isLive else { return model }
            var current = context
            var latest: (dead: Context, snapshot: any Model)?
            var steps = 0
            while let revival = revivals[ObjectIdentifier(current)] {
                if let snapshot = revival.snapshot { latest = (current, snapshot) }
                guard let next = successor(of: current, steps: &steps) else { break }
                if next.state.isLive, let live = next.model { return live }
                current = next
            }
            guard let latest else { return model }
            // A model under the removed one that lives on elsewhere (a shared model, whose other
            // place kept it) is shared again, not copied.
            let descendants = revivals[ObjectIdentifier(latest.dead)]?.descendants ?? [:]
            let copy = detachedAny(latest.snapshot) { copied in
                guard let original = descendants[nodeBox(of: copied).id], original.state.isLive,
                      let live = original.model, type(of: live) == type(of: copied)
                else { return nil }
                return live
            }
            revived.append((latest.dead, nodeBox(of: copy)))
            return copy
        }
    }

    /// Notes the contexts that brought removed models back (after the restoring write anchored
    /// them), and those that brought back the models under them: the copies of a snapshot keep the
    /// ids of the models copied, so entries recorded on a removed child's own children apply to
    /// their copies too.
    func noteRevived(_ revived: [(dead: Context, box: NodeBox)]) {
        for (dead, box) in revived {
            guard let context = box.context else { continue }
            context.keepUndoTracking(of: dead)
            revivals[ObjectIdentifier(dead), default: Revival(context: dead)].successor = context
            successors.insert(ObjectIdentifier(context))
            guard let descendants = revivals[ObjectIdentifier(dead)]?.descendants, !descendants.isEmpty else {
                continue
            }
            var pending = context.children
            var seen = Set<ObjectIdentifier>()
            while let child = pending.popLast() {
                guard seen.insert(ObjectIdentifier(child)).inserted, let model = child.model else { continue }
                if let old = descendants[nodeBox(of: model).id], old.state == .destructed {
                    child.keepUndoTracking(of: old)
                    revivals[ObjectIdentifier(old), default: Revival(context: old)].successor = child
                    successors.insert(ObjectIdentifier(child))
                }
                pending.append(contentsOf: child.children)
            }
        }
    }

    /// Empties every history (breaking the cycles through their entries' contexts).
    func tearDown() {
        var dropped: [UndoEntry] = []
        for history in histories { history.removeAll(into: &dropped) }
        histories = []
        let released = ReleasedUndoState(entries: dropped, revivals: Array(revivals.values))
        revivals = [:]
        successors = []
        chainsToCollapse = false
        hierarchy.pendingActions.append(.run { withExtendedLifetime(released) {} })
    }
}

/// Undo state dropped under the lock, released after it.
struct ReleasedUndoState: Sendable {
    let entries: [UndoEntry]
    let revivals: [HierarchyUndo.Revival]
}

func nodeBox(of model: any Model) -> NodeBox {
    openedNodeBox(model)
}

private func openedNodeBox<M: Model>(_ model: M) -> NodeBox {
    model.node.box
}

private func detachedAny(_ model: any Model, substituting substitute: ((any Model) -> (any Model)?)? = nil) -> any Model {
    detachedModel(model, substitute)
}

/// Where a write that needs a change record goes (see `Context.undoRoute(_:)`).
@usableFromInline
enum UndoRoute {
    /// Pushed directly as one entry, and the section ends on the fast path.
    case push
    /// Recorded by nobody: the section ends on the fast path.
    case unrecorded
    /// Recorded in the section, which ends on the full path.
    case full
}

extension Context {
    /// Records a write that needs a change record and ends its section. Inlined in the write path,
    /// so that the entry of a one-write section whose only recorder is undo is made for the value's
    /// type (boxing an `Int` into `Any` is two stores), and pushed without a pending change.
    /// Caller holds the section.
    @inlinable
    final func recordChangeAndEndSection<Value>(_ index: Int, old: Value, new: Value) {
        switch undoRoute(index) {
        case .push: pushUndoAndEndSection(UndoChange(context: self, index: index, old: old, new: new))
        case .unrecorded: endFastWrite(changedIndex: index)
        case .full: recordChangeAndEndFullSection(index, old: old, new: new)
        }
    }

    /// Whether a write of property `index` is pushed directly: undo is its only recorder, it is the
    /// section's only work, and the history needs no other change (redo entries to clear, `canUndo`
    /// to set, an entry to release after the lock). A child slot is reconciled on the full path (a
    /// compound update of one ends here too). Caller holds the section.
    @usableFromInline
    final func undoRoute(_ index: Int) -> UndoRoute {
        let hierarchy = self.hierarchy
        guard observedMask == 0, hierarchy.depth == 1, !hierarchy.recordsEveryChange, !hierarchy.hasPendingWork,
              !schema.isChildSlot(index), let tracking = undoTracking
        else { return .full }
        guard tracking.tracks(index) else { return .unrecorded }
        return tracking.history.acceptsDirectPush ? .push : .full
    }

    /// Pushes the entry of a one-write section (see `undoRoute`) and ends the section; an entry
    /// dropped at the limit is released in place (see `UndoRing.canReleaseOldestInPlace`). Caller
    /// holds the section.
    @usableFromInline
    final func pushUndoAndEndSection(_ change: consuming UndoChange) {
        let index = change.index
        // Safety: `undoRoute` found the tracking, which only changes under the lock we hold; it keeps
        // its history, and so the ring, alive. Through the pointer the history is not retained
        // around the release of the entry dropped at the limit (which runs no model code).
        let ring = undoTracking.unsafelyUnwrapped.history.undoRing
        ring.pointee.appendReleasingOldest(UndoEntry(consume change))
        endFastWrite(changedIndex: index)
    }

    /// Records a write in its section and ends it on the full path. Caller holds the section.
    @usableFromInline
    final func recordChangeAndEndFullSection<Value>(_ index: Int, old: Value, new: Value) {
        recordChangeInSection(index, old: old, new: new)
        hierarchy.endSection()
    }

    /// Makes a model brought back by undo record what the removed one (`removed`) recorded, from
    /// the restoring section on: its `onActivate`, which tracks undo again, runs after that section,
    /// and a write of the section to the model (a transaction that undoes, then edits the child it
    /// brought back) is recorded as usual. Caller holds the section.
    final func keepUndoTracking(of removed: Context) {
        guard undoTracking == nil, let tracking = removed.undoTracking else { return }
        undoTracking = tracking.copy()
    }

    /// Makes property `index` record undo entries into `history`. Caller holds the section.
    final func trackUndo(_ indices: [Int], history: UndoHistory) {
        if hierarchy.undo == nil { hierarchy.extras.undo = HierarchyUndo(hierarchy: hierarchy) }
        if let undo = hierarchy.undo, !undo.histories.contains(where: { $0 === history }) {
            undo.histories.append(history)
        }
        let tracking: UndoTracking
        if let existing = undoTracking, existing.history === history {
            tracking = existing
        } else {
            tracking = UndoTracking(history: history)
            undoTracking = tracking
        }
        for index in indices { tracking.add(index) }
    }
}
