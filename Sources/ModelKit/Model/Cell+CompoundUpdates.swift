import Synchronization

// Compound updates of a tracked value (`model.items.append(x)`, `count += 1`): the `_modify` path
// of `Tracked.wrappedValue`, atomic under the hierarchy lock, or on a claimed copy for a model that
// is not anchored yet (`UnboundUpdates`).

extension Cell {

    @usableFromInline
    struct ModifyToken {
        /// The cell the update mutates: this one, or the live cell it forwards to.
        @usableFromInline let cell: Cell<Value>
        @usableFromInline let context: Context?
        /// The value before the update, kept only when something needs it: a comparison, a change
        /// record, or undoing a refused write. Not keeping it lets `items.append(x)` mutate in place.
        @usableFromInline let old: Value?

        @inlinable
        init(cell: Cell<Value>, context: Context?, old: Value?) {
            self.cell = cell
            self.context = context
            self.old = old
        }
    }

    @inlinable
    final func beginModify() -> ModifyToken {
        let bits = bindingBits.load(ordering: .acquiring)
        guard bits != 0 else { return beginUnboundModify() }
        let context = Self.context(bits).takeUnretainedValue()
        context.hierarchy.beginSection()
        if bindingBits.load(ordering: .relaxed) != bits {
            // Forwarded before the section began: update the live cell instead.
            return retryModify(context)
        }
        let keepsOld = comparesValues || context.needsChangeRecord || !context.acceptsWrites
        return ModifyToken(cell: self, context: context, old: keepsOld ? value : nil)
    }

    @usableFromInline @inline(never)
    final func retryModify(_ context: Context) -> ModifyToken {
        context.hierarchy.endSection()
        return beginModify()
    }

    /// Ends an update whose mutation continued the model (a new instance with its id was assigned
    /// to its slot meanwhile): this cell forwards to the live one now, and the update's result is
    /// written there, still inside the update's section, so that it is the update's last write as
    /// for an update of the live cell. The forwarding cell gets back the value it had.
    @usableFromInline @inline(never)
    final func endForwardedModify(_ token: ModifyToken, _ context: Context) {
        let updated = value
        if let old = token.old { value = old }
        write(updated)
        context.hierarchy.endSection()
    }

    /// An update of a cell not bound yet claims the cell, then works on a copy of its value outside
    /// any lock, and ``endUnboundModify(_:)`` writes the copy back (see ``UnboundUpdates``).
    @usableFromInline @inline(never)
    final func beginUnboundModify() -> ModifyToken {
        if let target = unboundLock.withShortLock({ forwardTarget }) {
            return Self.typed(target).beginModify()
        }
        UnboundUpdates.claim(self)
        if bindingBits.load(ordering: .acquiring) != 0 {
            // Anchored while this thread waited for the claim: update it under its hierarchy lock.
            UnboundUpdates.release(self)
            return beginModify()
        }
        return ModifyToken(cell: self, context: nil, old: readUnbound())
    }

    /// Writes back the updated copy of an unbound update and releases the claim. A cell anchored
    /// meanwhile is written through its hierarchy like any write.
    @usableFromInline @inline(never)
    final func endUnboundModify(_ updated: Value) {
        write(updated)
        UnboundUpdates.release(self)
    }

    @inlinable
    final func endModify(_ token: ModifyToken) {
        guard let context = token.context else { return }
        // The section keeps every other thread from forwarding the cell: only the mutation itself
        // can have (by continuing the model), and then the binding is gone.
        if _slowPath(bindingBits.load(ordering: .relaxed) == 0) { return endForwardedModify(token, context) }
        guard let old = token.old else {
            // Nothing compares, records or refuses this update: it counts as a change.
            context.endUnrecordedModify(index)
            return
        }
        if !context.acceptsWrites {
            // The mutation already happened in place; undo it and report.
            value = old
            context.rejectModify(cell: self)
            context.hierarchy.endSection()
        } else if isEqual(old, value) {
            context.hierarchy.endSection()
        } else if context.canEndFastModify(index) {
            context.endFastWrite(changedIndex: index)
        } else {
            context.recordChangeAndEndSection(index, old: old, new: value)
        }
    }
}
