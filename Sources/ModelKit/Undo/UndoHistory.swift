/// The entries of one ``ModelUndoStack``: undone entries move to the redo side, redone ones back.
///
/// Every field is guarded by the lock of the hierarchy the stack is anchored in, which is the
/// hierarchy of every model recording into it (`trackUndo` checks it): entries are pushed while a
/// commit holds that lock, and `undo()`/`redo()` apply an entry inside one section of it, so another
/// thread sees all of an entry's values restored or none.
final class UndoHistory: @unchecked Sendable {
    // Safety: the fields below are guarded by the hierarchy lock of `hierarchy` (see above).
    let limit: Int
    /// The undo side, out of line: the write path reaches it through `undoRing` without retaining
    /// the history.
    let undoRing: UnsafeMutablePointer<UndoRing>
    private var undoEntries: UndoRing {
        _read { yield undoRing.pointee }
        _modify { yield &undoRing.pointee }
    }
    @exclusivity(unchecked) private var redoEntries: [UndoEntry] = []
    /// The values last written to the stack's `canUndo` and `canRedo`.
    @exclusivity(unchecked) private var shownCanUndo = false
    @exclusivity(unchecked) private var shownCanRedo = false
    /// The stack's `canUndo` and `canRedo` cells, set by its initializer.
    @exclusivity(unchecked) var flagCells: (canUndo: Cell<Bool>, canRedo: Cell<Bool>)?
    /// The hierarchy the stack belongs to, set when the first model tracks undo into it; cleared at
    /// its teardown.
    @exclusivity(unchecked) var hierarchy: Hierarchy?

    init(limit: Int) {
        self.limit = max(0, limit)
        undoRing = .allocate(capacity: 1)
        undoRing.initialize(to: UndoRing(limit: self.limit))
    }

    deinit {
        undoRing.deinitialize(count: 1)
        undoRing.deallocate()
    }

    var undoCount: Int { undoEntries.count }
    var redoCount: Int { redoEntries.count }

    // MARK: Recording (caller holds the lock)

    /// Whether a one-change entry can be pushed directly: without clearing redo entries, changing
    /// `canUndo`, or dropping an entry that must be released after the lock (else the write takes
    /// the full path).
    @inline(__always)
    var acceptsDirectPush: Bool {
        shownCanUndo && redoEntries.isEmpty && undoEntries.canReleaseOldestInPlace
    }

    /// Pushes a new entry: clears the redo side and drops the oldest entry beyond the limit.
    func push(_ entry: consuming UndoEntry, in hierarchy: Hierarchy) {
        var dropped: [UndoEntry] = []
        if !redoEntries.isEmpty {
            swap(&dropped, &redoEntries)
        }
        if let oldest = undoEntries.append(entry) { dropped.append(oldest) }
        release(dropped, in: hierarchy)
        updateFlags()
    }

    func removeAll(into dropped: inout [UndoEntry]) {
        undoEntries.removeAll(into: &dropped)
        dropped.append(contentsOf: redoEntries)
        redoEntries = []
        hierarchy = nil
    }

    /// Forgets every entry, to undo and to redo, in one section of `hierarchy`.
    func clear(in hierarchy: Hierarchy) {
        hierarchy.withSection {
            guard self.hierarchy === hierarchy else { return }
            var dropped: [UndoEntry] = []
            undoEntries.removeAll(into: &dropped)
            dropped.append(contentsOf: redoEntries)
            redoEntries = []
            release(dropped, in: hierarchy)
            updateFlags()
        }
    }

    /// Releases dropped entries after the lock (their values may hold models), and the kept
    /// copies of removed models no remaining entry refers to.
    private func release(_ dropped: [UndoEntry], in hierarchy: Hierarchy) {
        guard !dropped.isEmpty else { return }
        if dropped.contains(where: \.mayReferToRevivals) { hierarchy.undo?.releaseUnreferencedRevivals() }
        hierarchy.pendingActions.append(.run { withExtendedLifetime(dropped) {} })
    }

    /// Calls `body` with each entry, undo side then redo side. Caller holds the lock.
    func forEachEntry(_ body: (borrowing UndoEntry) -> Void) {
        undoEntries.forEach(body)
        for entry in redoEntries { body(entry) }
    }

    /// Drops the entries on top of each side that can no longer apply, every model they changed
    /// being torn down for good, so that `canUndo` and `canRedo` say whether `undo()` and `redo()`
    /// would restore something. (Nothing above such an entry can bring its models back: undo and
    /// redo take the top entry first.) Caller holds the section.
    func dropInapplicableTops(undo: HierarchyUndo, revivable: () -> Set<ObjectIdentifier>, in hierarchy: Hierarchy) {
        var dropped: [UndoEntry] = []
        while let top = undoEntries.popLast() {
            if Self.applies(top, undo: undo, revivable: revivable) {
                _ = undoEntries.append(top)
                break
            }
            dropped.append(top)
        }
        while let top = redoEntries.last, !Self.applies(top, undo: undo, revivable: revivable) {
            dropped.append(redoEntries.removeLast())
        }
        guard !dropped.isEmpty else { return }
        release(dropped, in: hierarchy)
        updateFlags()
    }

    /// Whether a model the entry changed is live, or may be brought back by undo (see
    /// `HierarchyUndo.revivableContexts()`). Caller holds the lock.
    private static func applies(_ entry: UndoEntry, undo: HierarchyUndo, revivable: () -> Set<ObjectIdentifier>) -> Bool {
        entry.list.contains { change in
            undo.liveTarget(for: change.context).flatMap { $0.cell(change.index) } != nil
                || undo.mayComeBack(change.context, revivable: revivable)
        }
    }

    /// Writes `canUndo` and `canRedo` where they changed (changes of this section).
    private func updateFlags() {
        guard let flagCells else { return }
        if shownCanUndo == undoEntries.isEmpty {
            shownCanUndo = !undoEntries.isEmpty
            flagCells.canUndo.write(shownCanUndo)
        }
        if shownCanRedo == redoEntries.isEmpty {
            shownCanRedo = !redoEntries.isEmpty
            flagCells.canRedo.write(shownCanRedo)
        }
    }

    // MARK: Undo and redo

    /// Undoes the newest entry that still applies (entries whose models are all gone are dropped).
    /// `location` is where `undo()` was called, for reports.
    func undo(in hierarchy: Hierarchy, location: SourceLocation) {
        move(restoringOld: true, in: hierarchy, action: UndoAction(name: "undo()", location: location))
    }

    /// Redoes the newest undone entry that still applies.
    func redo(in hierarchy: Hierarchy, location: SourceLocation) {
        move(restoringOld: false, in: hierarchy, action: UndoAction(name: "redo()", location: location))
    }

    private func move(restoringOld: Bool, in hierarchy: Hierarchy, action: UndoAction) {
        hierarchy.withSection {
            guard self.hierarchy === hierarchy, let undo = hierarchy.undo else { return }
            // What this restore writes is not recorded (see `HierarchyUndo.restoreRanges`).
            let start = hierarchy.pendingChanges.count
            defer {
                let end = hierarchy.pendingChanges.count
                if end > start { undo.restoreRanges.append(start..<end) }
            }
            var dropped: [UndoEntry] = []
            while let entry = restoringOld ? undoEntries.popLast() : redoEntries.popLast() {
                if apply(entry, restoringOld: restoringOld, undo: undo, action: action) {
                    if restoringOld {
                        redoEntries.append(entry)
                    } else if let oldest = undoEntries.append(entry) {
                        dropped.append(oldest)
                    }
                    break
                }
                dropped.append(entry)
            }
            release(dropped, in: hierarchy)
            updateFlags()
        }
    }

    /// Writes the entry's old (or new) values into their models, the last change first when undoing.
    /// Returns false when none of its models is live any more. Caller holds the section.
    ///
    /// A change of a model that another change of the entry brings back (a transaction that edited
    /// a child and removed it, or removed it with its parent: undone, the edit comes first) waits
    /// until that change has revived the model, and then applies to the copy that came back.
    private func apply(_ entry: UndoEntry, restoringOld: Bool, undo: HierarchyUndo, action: UndoAction) -> Bool {
        var applied = false
        let changes = entry.list
        var waiting: [UndoChange] = []
        var revived = false
        for change in restoringOld ? changes.reversed() : changes {
            switch apply(change, restoringOld: restoringOld, undo: undo, action: action) {
            case .notLive: waiting.append(change)
            case .applied: applied = true
            case .revived: applied = true; revived = true
            }
        }
        // Each pass that brought models back may have brought back those the waiting changes name.
        while revived && !waiting.isEmpty {
            revived = false
            let pass = waiting
            waiting = []
            for change in pass {
                switch apply(change, restoringOld: restoringOld, undo: undo, action: action) {
                case .notLive: waiting.append(change)
                case .applied: applied = true
                case .revived: applied = true; revived = true
                }
            }
        }
        return applied
    }

    private enum ChangeApplied {
        /// Its model is not live (torn down, or not brought back yet): nothing was written.
        case notLive
        case applied
        /// Applied, and it brought removed models back.
        case revived
    }

    /// Writes one change's old (or new) value into its model, or into the model that brought it
    /// back. Caller holds the section.
    private func apply(_ change: UndoChange, restoringOld: Bool, undo: HierarchyUndo, action: UndoAction) -> ChangeApplied {
        guard let target = undo.liveTarget(for: change.context), let cell = target.cell(change.index) else {
            return .notLive
        }
        var value = restoringOld ? change.old : change.new
        guard target.schema.isChildSlot(change.index) else {
            cell.undoable.restore(value)
            return .applied
        }
        var revived: [(dead: Context, box: NodeBox)] = []
        value = undo.reviving(value, revived: &revived)
        let mark = undo.hierarchy.pendingActions.count
        cell.undoable.restore(value)
        undo.noteRevived(revived)
        undo.reportUnrevived(in: target, slot: change.index, revived: revived, actionsFrom: mark, action: action)
        return revived.isEmpty ? .applied : .revived
    }
}
