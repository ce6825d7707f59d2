// Same-id continuity (API.md section 8): a new instance continues the live child with its id.

extension Context {
    /// Continues this live context with `newModel`, a new instance with the same id (API.md
    /// section 8): the new instance's storage becomes the live storage, each of its values that
    /// differs from the live one counts as a change, its child slots are reconciled against the live
    /// children (recursively continuing those with matching ids), and the older instance's cells
    /// forward to the new ones, so that every copy of either instance reaches the one live model.
    /// Caller holds the section.
    func adopt<M: Model>(_ newModel: M) {
        // The caller matched the schemas: this context's model is an `M` too.
        let typedSchema = unsafeDowncast(schema, to: Schema<M>.self)
        guard typedSchema.childSlotIndices.isEmpty, let offsets = typedSchema.cellOffsets else {
            return adoptInSteps(newModel, schema: typedSchema)
        }
        let box = newModel.node.box
        withUnsafePointer(to: newModel) { adoptLeaf(at: UnsafeRawPointer($0), box: box, offsets: offsets) }
    }

    /// `adopt` for a model without child slots whose cells the schema finds at `offsets`, given
    /// the new instance's value (at `newModel`, of this context's model type) and box: one pass
    /// over the properties binds, compares, records and forwards (`continueCells`); then the new
    /// instance is copied over the live model value, in place. Caller holds the section.
    func adoptLeaf(at newModel: UnsafeRawPointer, box: NodeBox, offsets: [Int]) {
        // A live context holds its model (only a destructed one, or a frozen copy's, has none).
        guard state.isLive, hasModel else { return }
        // The live value is written in place (its storage is neither copied nor replaced). Safety:
        // the value at `newModel` is of the live model's type (the sink matched the model types
        // of the schemas before calling).
        let continued = withModelValue { current in
            continueCells(of: current, with: newModel, newBox: box, offsets: offsets)
        }
        guard continued else { return }
        withModelStorage { schema.assignModel(in: $0, from: newModel) }
        flags.insert(.continued)
    }

    /// Binds the new instance's box and cells (at `offsets` in the model value at `new`) in place
    /// of the live cells (in the model value at `old`), which forward to them, and records each
    /// property whose value differs as a change. False, changing nothing, when the new instance is
    /// claimed already. Caller holds the section.
    private func continueCells(of old: UnsafeRawPointer, with new: UnsafeRawPointer, newBox: NodeBox, offsets: [Int]) -> Bool {
        var modifiers = NodeBox.Modifiers()
        let claimed = unboundLock.withShortLock { () -> Bool in
            if newBox.context != nil { return false }
            // The cells are read unretained: the new instance is held by the value being visited,
            // the live one by this context.
            for offset in offsets where cellReference(at: offset, in: new)._withUnsafeGuaranteedRef({ $0.isClaimed }) {
                return false
            }
            modifiers = newBox.takeModifiers().0
            newBox.bind(self)
            forwardedCells.withLock { table in
                for offset in offsets {
                    cellReference(at: offset, in: old)._withUnsafeGuaranteedRef { oldCell in
                        cellReference(at: offset, in: new)._withUnsafeGuaranteedRef { newCell in
                            if newCell !== oldCell { oldCell.handOver(to: newCell, table: &table) }
                        }
                    }
                }
            }
            return true
        }
        guard claimed else { return false }
        if !modifiers.isEmpty { reportIgnoredModifiers(modifiers) }
        // The comparisons call the values' `==`, which is user code and may read models (of this
        // hierarchy, or not anchored), so they run after `unboundLock` and the table's lock are
        // released, under the section alone: the new cells are bound to this context, which the
        // section guards, and a forwarding cell keeps its value (the live value before the
        // continuation), which nothing writes any more.
        let boxesValues = hierarchy.hasHooks || flags.contains(.tracksUndo)
        for (index, offset) in offsets.enumerated() {
            cellReference(at: offset, in: old)._withUnsafeGuaranteedRef { oldCell in
                cellReference(at: offset, in: new)._withUnsafeGuaranteedRef { newCell in
                    if newCell !== oldCell && newCell.differs(fromSameProperty: oldCell) {
                        recordContinuedChange(index, old: oldCell, new: newCell, boxesValues: boxesValues)
                    }
                }
            }
        }
        return true
    }

    /// `adopt` for a model with child slots (or whose cells are found by key path): binds the new
    /// cells, then applies the values (reconciling the child slots, which may anchor models and so
    /// take `unboundLock`), then forwards the earlier cells.
    private func adoptInSteps<M: Model>(_ newModel: M, schema typedSchema: Schema<M>) {
        guard hasModel else { return }
        let newCells = typedSchema.cells(of: newModel)
        let oldCells = currentCells()
        let newBox = newModel.node.box
        var modifiers = NodeBox.Modifiers()
        let adopted = unboundLock.withShortLock { () -> Bool in
            if newBox.context != nil || newCells.contains(where: { $0.isClaimed }) { return false }
            modifiers = newBox.takeModifiers().0
            newBox.bind(self)
            for (index, cell) in newCells.enumerated() where cell !== oldCells[index] {
                cell.bind(to: self, index: index)
            }
            return true
        }
        guard adopted else { return }
        if !modifiers.isEmpty { reportIgnoredModifiers(modifiers) }
        withModel(as: M.self) { $0 = newModel }
        flags.insert(.continued)
        let boxesValues = hierarchy.hasHooks || flags.contains(.tracksUndo)
        for index in newCells.indices where newCells[index] !== oldCells[index] {
            applyContinued(index, old: oldCells[index], new: newCells[index], boxesValues: boxesValues)
        }
        unboundLock.withShortLock {
            for index in newCells.indices where newCells[index] !== oldCells[index] {
                oldCells[index].forward(to: newCells[index])
            }
        }
    }

    /// Reports that the new instance continuing this model had modifiers, which a live model cannot
    /// take, naming the model's place and the modifiers. Caller holds the section.
    private func reportIgnoredModifiers(_ modifiers: NodeBox.Modifiers) {
        var kinds: [String] = []
        if !modifiers.dependencies.isEmpty { kinds.append("`withDependencies`") }
        if !modifiers.activations.isEmpty { kinds.append("`withActivation`") }
        if !modifiers.printers.isEmpty { kinds.append("`_withPrintChanges`") }
        let listed = kinds.count > 1 ? kinds.dropLast().joined(separator: ", ") + " and " + kinds[kinds.count - 1] : kinds.joined()
        hierarchy.deferIssue(ModelIssue(
            "A new \(typeName) with the id of the live \(typeName) at \(path()) continued it (same-id continuity); what was set on the new instance with \(listed) was ignored.",
            fixes: [
                "Set dependencies and activations on the instance first anchored, or on the parent.",
                "To start the model afresh with them, give the new instance another id, or remove the live one in an earlier write.",
            ]
        ))
    }

    /// Records property `index` of a continued model as a change if the new instance's value
    /// differs; a child slot is reconciled first. Caller holds the section.
    private func applyContinued(_ index: Int, old oldCell: AnyCell, new newCell: AnyCell, boxesValues: Bool) {
        if schema.isChildSlot(index) {
            // The slot is a change when its children changed, or when what it holds beside its
            // models (a key, an enum case, other data) did: continued children alone are no change
            // to it, their own differences being changes of their own.
            let holdsSameChildren = reconcileSlot(index)
            let value = newCell.anyValue
            let old = oldCell.anyValue
            if !slotIsUnchanged(holdsSameChildren: holdsSameChildren, old: old, new: value) {
                recordBoxedChangeInSection(index, old: old, new: value)
            }
        } else if newCell.differs(fromSameProperty: oldCell) {
            recordContinuedChange(index, old: oldCell, new: newCell, boxesValues: boxesValues)
        }
    }

    /// Records a changed property of a continued model. Its values are boxed only for whoever reads
    /// them (hooks, undo), as a write's are. Caller holds the section.
    @inline(__always)
    private func recordContinuedChange(_ index: Int, old oldCell: AnyCell, new newCell: AnyCell, boxesValues: Bool) {
        if boxesValues && (hierarchy.hasHooks || undoTracking?.tracks(index) == true) {
            recordBoxedChangeInSection(index, old: oldCell.anyValue, new: newCell.anyValue)
        } else {
            hierarchy.record(PendingChange(context: self, index: index, old: nil, new: nil))
        }
    }
}
