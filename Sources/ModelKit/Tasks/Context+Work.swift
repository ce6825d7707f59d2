// The work a context runs: registered under the hierarchy lock, started and cancelled outside it.

/// The ids given by enclosing `cancellationContext(for:)` calls, inherited by work started inside.
enum CancellationScope {
    @TaskLocal static var ids: [SendableHashable] = []
}

extension Context {
    /// Registers a work entry; nil if the context no longer accepts work. Caller does not hold the lock.
    ///
    /// A model removed (by another thread) while its own `onActivate` runs was torn down before
    /// that work was registered: the work's cancellation runs at once instead (an `onCancel`
    /// handler is called, a task does not start), so that every activation still meets its
    /// teardown. Work started on a removed model otherwise is reported.
    final func registerWork(
        isTask: Bool, onCancel: (@Sendable () -> Void)?, location: SourceLocation, name: String? = nil
    ) -> Int? {
        let ids = CancellationScope.ids
        // Work started while an `onActivate` runs is activation work, whichever model starts it (a
        // parent's `onActivate` may start work on its child).
        let activating = ActivationScope.current.value
        let fromActivation = activating != nil
        var refusal: WriteRefusal?
        var cancelAtOnce = false
        defer {
            if let refusal { reportRefusedWork(refusal, location: location) }
            if cancelAtOnce, let onCancel { CurrentWork.$owner.withValue(self) { onCancel() } }
        }
        return lock.withShortLock {
            guard state.isLive else {
                if activating === self && state == .destructed {
                    cancelAtOnce = true
                } else {
                    refusal = writeRefusal
                }
                return nil
            }
            let extras = ensuredExtras
            extras.nextWorkID += 1
            let id = extras.nextWorkID
            extras.work[id] = ContextExtras.WorkEntry(
                task: nil, onCancel: onCancel, ids: ids, location: location, name: name,
                fromActivation: fromActivation, isTask: isTask
            )
            return id
        }
    }

    /// Reports work that did not start because the model was removed or is a frozen copy, as
    /// ``registerWork(isTask:onCancel:location:name:)`` does, for work that failed before registering
    /// (an `onChange` observer, which starts first). Quiet where `registerWork` is: for the model's
    /// own work as it unwinds, and for a model removed while its `onActivate` runs.
    @usableFromInline
    final func reportWorkNotStarted(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        let activating = ActivationScope.current.value
        let refusal: WriteRefusal? = lock.withShortLock {
            guard !state.isLive, !(activating === self && state == .destructed) else { return nil }
            return writeRefusal
        }
        guard let refusal else { return }
        reportRefusedWork(refusal, location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Reports work started on a removed model or a frozen copy (not by the model's own work
    /// unwinding after its removal, which is quiet, see `writeRefusal`).
    private final func reportRefusedWork(_ refusal: WriteRefusal, location: SourceLocation) {
        let state: ModelLifetime = refusal == .frozen ? .frozen : .destructed
        hierarchy.deferIssue(ModelIssue(
            "Work (a task, forEach, task(id:), onChange or onCancel) was started on \(state.describing(typeName)); it did not start.",
            fixes: [
                "Keep a reference to the model's current place instead of a removed copy.",
                "Check `model.lifetime == .anchored` before starting work from long-lived callbacks.",
            ],
            location: location
        ))
    }

    /// Stores the task of a registered entry; cancels it if the entry is already gone or cancelled.
    final func attach(_ task: Task<Void, Never>, to workID: Int) {
        let attached: Bool = lock.withShortLock {
            guard let entry = extras?.work[workID] else { return false }
            extras?.work[workID]?.task = task
            return !entry.isCancelled
        }
        if !attached { task.cancel() }
    }

    /// Forgets a finished entry and tells a tester that work ended.
    final func workFinished(_ workID: Int) {
        lock.withShortLock {
            _ = extras?.work.removeValue(forKey: workID)
            if state == .destructed, extras?.work.isEmpty != false, let unwinding = hierarchy.extrasIfAny {
                unwinding.unwindingContexts[ObjectIdentifier(self)] = nil
            }
        }
        hierarchy.testing?.workDidFinish()
    }

    /// Cancels the given entries: tasks are cancelled, `onCancel` handlers run.
    final func cancelWork(ids: [Int]) {
        let taken: [ContextExtras.WorkEntry] = lock.withShortLock {
            guard let extras else { return [] }
            return ids.compactMap { extras.takeForCancelling($0) }
        }
        perform(cancelling: taken)
    }

    /// Cancels this context's own work tagged with `id` (not its children's).
    final func cancelWork(taggedWith id: SendableHashable) {
        let taken: [ContextExtras.WorkEntry] = lock.withShortLock {
            guard let extras else { return [] }
            let matching = extras.work.filter { $0.value.ids.contains(id) }.keys.sorted()
            return matching.compactMap { extras.takeForCancelling($0) }
        }
        perform(cancelling: taken)
    }

    final func tagWork(_ workID: Int, with id: SendableHashable, cancelOthers: Bool) {
        let taken: [ContextExtras.WorkEntry] = lock.withShortLock {
            guard let extras else { return [] }
            var others: [ContextExtras.WorkEntry] = []
            if cancelOthers {
                let matching = extras.work.filter { $0.key != workID && $0.value.ids.contains(id) }.keys.sorted()
                others = matching.compactMap { extras.takeForCancelling($0) }
            }
            if extras.work[workID]?.isCancelled == false { extras.work[workID]?.ids.append(id) }
            return others
        }
        perform(cancelling: taken)
    }

    private final func perform(cancelling entries: [ContextExtras.WorkEntry]) {
        for entry in entries {
            // The handler first: a task's handler is a `forEach`'s flag, which must be set before
            // the task's cancellation can hand the loop one last element (a debounce flushing).
            if let handler = entry.onCancel {
                CurrentWork.$owner.withValue(self) { handler() }
            }
            entry.task?.cancel()
        }
        if !entries.isEmpty { hierarchy.testing?.workDidFinish() }
    }

    /// The running work of this context (for a tester's end-of-test check), cancelled tasks that
    /// have not ended yet included.
    final func runningWork() -> [(id: Int, entry: ContextExtras.WorkEntry)] {
        lock.withShortLock {
            (extras?.work ?? [:]).sorted { $0.key < $1.key }.map { (id: $0.key, entry: $0.value) }
        }
    }
}

extension ContextExtras {
    /// Takes what cancelling the entry `id` has to do, or nil if it is gone or already cancelled.
    /// A task's entry stays, marked cancelled and without ids or handler, until the task ends (see
    /// `WorkEntry`); any other entry leaves. Caller holds the lock.
    final func takeForCancelling(_ id: Int) -> WorkEntry? {
        guard let entry = work[id], !entry.isCancelled else { return nil }
        if entry.isTask {
            markCancelled(id)
        } else {
            work[id] = nil
        }
        return entry
    }
}
