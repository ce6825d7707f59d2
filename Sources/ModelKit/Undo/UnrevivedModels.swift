/// Reporting the removed models undo cannot bring back.
///
/// Undo brings a removed child back by putting a fresh copy where the removed instance was in the
/// restored value (see Undo/DetachedCopy.swift). A custom ``ModelContainer`` (an enum or struct that
/// visits its models) can only be visited, not rebuilt, so the removed instance stays in it, and
/// reconciliation refuses it as "a destructed model added to" the slot, which, after `undo()`, is
/// misleading: the app re-inserted nothing. Undo replaces those reports with its own, naming the
/// model type and the property, saying the child could not be brought back and what to do.

extension HierarchyUndo {
    /// After a restoring write of child slot `slot` of `target`: replaces reconciliation's reports
    /// of removed models in that slot, and in the slots of the models it brought back (`revived`,
    /// their subtrees included), with undo's own report. `mark` is the count of the hierarchy's
    /// pending actions before the write. Caller holds the section.
    func reportUnrevived(
        in target: Context, slot: Int, revived: [(dead: Context, box: NodeBox)], actionsFrom mark: Int,
        action: UndoAction
    ) {
        // Reconciliation reported nothing: every model of the restored value is live.
        guard hierarchy.pendingActions[mark...].contains(where: \.isIssue) else { return }
        var found: [UnrevivedModels] = []
        collectUnrevived(in: target, slot: slot, into: &found)
        var visited = Set<ObjectIdentifier>()
        var pending = revived.compactMap { $0.box.context }
        while let context = pending.popLast() {
            guard visited.insert(ObjectIdentifier(context)).inserted else { continue }
            for index in context.schema.childSlotIndices {
                collectUnrevived(in: context, slot: index, into: &found)
            }
            pending.append(contentsOf: context.children)
        }
        for group in found {
            // Only models reconciliation refused in this write are reported (each once).
            let refused = removeDestructedReports(of: group, from: mark)
            guard refused > 0 else { continue }
            hierarchy.pendingActions.append(.issue(group.issue(count: refused, action: action)))
        }
    }

    /// Adds to `found` the removed (destructed) models that slot `index` of `context` holds inside
    /// custom containers. (One held where undo replaces models was torn down outside undo's
    /// tracking; reconciliation's report stands for it.)
    private func collectUnrevived(in context: Context, slot index: Int, into found: inout [UnrevivedModels]) {
        guard let cell = context.cell(index) else { return }
        let sink = CollectingSink(tracksPath: false)
        var visitor = ContainerVisitor(sink: sink)
        context.schema.visitChildren(index, cell: cell, &visitor)
        let dead = sink.entries.filter { $0.box.context?.state == .destructed }
        guard !dead.isEmpty else { return }
        var replaceable = Set<ObjectIdentifier>()
        _ = mappingModels(in: cell.anyValue) { model in
            replaceable.insert(ObjectIdentifier(nodeBox(of: model)))
            return model
        }
        let property = "\(context.typeName).\(context.schema.name(index))"
        for entry in dead where !replaceable.contains(ObjectIdentifier(entry.box)) {
            guard let model = entry.box.context else { continue }
            let typeName = model.typeName
            if let position = found.firstIndex(where: { $0.typeName == typeName && $0.property == property }) {
                found[position].count += 1
            } else {
                found.append(UnrevivedModels(typeName: typeName, property: property, count: 1))
            }
        }
    }

    /// Removes, from the pending actions from `mark` on, up to `group.count` of reconciliation's
    /// reports that a destructed model of the group was added to its property. Returns how many.
    private func removeDestructedReports(of group: UnrevivedModels, from mark: Int) -> Int {
        // Reconciliation's wording (Context/ReconcileSink.swift); the Undo tests check that the
        // report is replaced, so a change of wording there shows up.
        let prefix = "A destructed \(group.typeName) was added to \(group.property);"
        var removed = 0
        var position = mark
        while position < hierarchy.pendingActions.count, removed < group.count {
            if case .issue(let issue) = hierarchy.pendingActions[position], issue.summary.hasPrefix(prefix) {
                hierarchy.pendingActions.remove(at: position)
                removed += 1
            } else {
                position += 1
            }
        }
        return removed
    }
}

/// Whether `undo()` or `redo()` restores: the word the reports use, and where it was called.
struct UndoAction {
    let name: String
    let location: SourceLocation
}

/// Removed models of one type that undo left in one property.
private struct UnrevivedModels {
    let typeName: String
    let property: String
    var count: Int

    func issue(count: Int, action: UndoAction) -> ModelIssue {
        let models = count == 1 ? "the \(typeName)" : "\(count) \(typeName) models"
        let verb = action.name == "undo()" ? "Undo" : "Redo"
        return ModelIssue(
            "\(verb) could not bring back \(models) removed from \(property): "
                + "\(count == 1 ? "it is" : "they are") held in a custom `ModelContainer`, which undo cannot "
                + "rebuild with a new instance, so \(property) holds the destructed \(typeName), "
                + "which is not anchored.",
            fixes: [
                "Hold the \(typeName) in an optional, array, dictionary or collection property, "
                    + "which \(action.name) restores, instead of inside a custom `ModelContainer`.",
                "Leave \(property) out of `trackUndo`, or after `\(action.name)` put a new \(typeName) "
                    + "in its place.",
            ],
            location: action.location
        )
    }
}

extension SectionAction {
    fileprivate var isIssue: Bool {
        if case .issue = self { return true }
        return false
    }
}
