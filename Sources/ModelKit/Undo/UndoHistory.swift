/// The entries of one ``ModelUndoStack``: undone entries move to the redo side, redone ones back.
///
/// Every field is guarded by the lock of the hierarchy the stack is anchored in, which is the
/// hierarchy of every model recording into it (`trackUndo` checks it): entries are pushed while a
/// commit holds that lock, and `undo()`/`redo()` apply an entry inside one section of it, so another
/// thread sees all of an entry's values restored or none.
final class UndoHistory: @unchecked Sendable {
    // Safety: the fields below are guarded by the hierarchy lock of `hierarchy` (see above).
    let limit: Int
    @exclusivity(unchecked) private var undoEntries = UndoEntryStack()
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
    }

    var undoCount: Int { undoEntries.count }
    var redoCount: Int { redoEntries.count }

    // MARK: Recording (caller holds the lock)

    /// Pushes a one-change entry of a one-write section, handing the oldest entry it drops (at the
    /// limit) to the caller to release after the lock. False, without pushing, when the push would
    /// also clear redo entries or change `canUndo` (then the write takes the full path).
    @inline(__always)
    func pushDirectly(_ change: consuming UndoChange, dropping dropped: inout UndoEntry?) -> Bool {
        guard shownCanUndo, redoEntries.isEmpty else { return false }
        undoEntries.append(UndoEntry(consume change))
        if undoEntries.count > limit { dropped = undoEntries.dropOldest() }
        return true
    }

    /// Pushes a new entry: clears the redo side and drops the oldest entries beyond the limit.
    func push(_ entry: UndoEntry, in hierarchy: Hierarchy) {
        var dropped: [UndoEntry] = []
        if !redoEntries.isEmpty {
            swap(&dropped, &redoEntries)
        }
        undoEntries.append(entry)
        while undoEntries.count > limit {
            dropped.append(undoEntries.dropOldest())
        }
        release(dropped, in: hierarchy)
        updateFlags()
    }

    func removeAll(into dropped: inout [UndoEntry]) {
        dropped.append(contentsOf: undoEntries.removeAll())
        dropped.append(contentsOf: redoEntries)
        redoEntries = []
        hierarchy = nil
    }

    /// Releases dropped entries after the lock: their values may hold models.
    private func release(_ dropped: [UndoEntry], in hierarchy: Hierarchy) {
        guard !dropped.isEmpty else { return }
        hierarchy.pendingActions.append(.run { withExtendedLifetime(dropped) {} })
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
    func undo(in hierarchy: Hierarchy) {
        move(restoringOld: true, in: hierarchy)
    }

    /// Redoes the newest undone entry that still applies.
    func redo(in hierarchy: Hierarchy) {
        move(restoringOld: false, in: hierarchy)
    }

    private func move(restoringOld: Bool, in hierarchy: Hierarchy) {
        hierarchy.withSection {
            guard self.hierarchy === hierarchy, let undo = hierarchy.undo else { return }
            var dropped: [UndoEntry] = []
            while let entry = restoringOld ? undoEntries.popLast() : redoEntries.popLast() {
                if apply(entry, restoringOld: restoringOld, undo: undo) {
                    if restoringOld { redoEntries.append(entry) } else { undoEntries.append(entry) }
                    break
                }
                dropped.append(entry)
            }
            // A restore that changed nothing leaves no commit to clear the flag.
            if hierarchy.pendingChanges.isEmpty { undo.isRestoring = false }
            release(dropped, in: hierarchy)
            updateFlags()
        }
    }

    /// Writes the entry's old (or new) values into their models, the last change first when undoing.
    /// Returns false when none of its models is live any more. Caller holds the section.
    private func apply(_ entry: UndoEntry, restoringOld: Bool, undo: HierarchyUndo) -> Bool {
        var applied = false
        let changes = entry.list
        for change in restoringOld ? changes.reversed() : changes {
            guard let target = undo.liveTarget(for: change.context), let cell = target.cell(change.index) else {
                continue
            }
            var value = restoringOld ? change.old : change.new
            var revived: [(dead: Context, box: NodeBox)] = []
            if target.schema.isChildSlot(change.index) {
                value = undo.reviving(value, revived: &revived)
            }
            undo.isRestoring = true
            cell.undoable.restore(value)
            undo.noteRevived(revived)
            applied = true
        }
        return applied
    }
}

/// The undo side of a history: a stack whose oldest entries are dropped in amortized constant time
/// (dropped slots are emptied and compacted away once they make up half the storage).
struct UndoEntryStack {
    private var entries: [UndoEntry] = []
    private var start = 0

    var count: Int { entries.count - start }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ entry: consuming UndoEntry) {
        entries.append(entry)
    }

    mutating func popLast() -> UndoEntry? {
        guard count > 0 else { return nil }
        return entries.removeLast()
    }

    /// Removes and returns the oldest entry. The stack is not empty.
    mutating func dropOldest() -> UndoEntry {
        // Moved out rather than copied: a copy would retain and release its context once more.
        var oldest = UndoEntry.empty
        swap(&oldest, &entries[start])
        start += 1
        if start >= 32 && start * 2 >= entries.count {
            entries.removeFirst(start)
            start = 0
        }
        return oldest
    }

    mutating func removeAll() -> [UndoEntry] {
        let all = Array(entries[start...])
        entries = []
        start = 0
        return all
    }
}
