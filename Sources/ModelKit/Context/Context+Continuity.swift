// Same-id continuity (API.md section 8): a new instance continues the live child with its id.

extension Context {
    /// Continues this live context with `newModel`, a new instance with the same id (API.md
    /// section 8): the new instance's storage becomes the live storage, each of its values that
    /// differs from the live one counts as a change, its child slots are reconciled against the live
    /// children (recursively continuing those with matching ids), and the older instance's cells
    /// forward to the new ones, so that every copy of either instance reaches the one live model.
    func adopt<M: Model>(_ newModel: M) {
        guard let oldModel = model else { return }
        // The caller matched the schemas: this context's model is an `M` too.
        let typedSchema = unsafeDowncast(schema, to: Schema<M>.self)
        let newCells = typedSchema.cells(of: newModel)
        let oldCells = schema.cells(of: oldModel)
        let newBox = newModel.node.box
        let hasChildSlots = !typedSchema.childSlotIndices.isEmpty
        // Without child slots, binding, applying the values and forwarding take one hold of
        // `unboundLock` (which also guards the new cells until they are bound).
        let adopted = unboundLock.withShortLock { () -> Bool in
            if newBox.context != nil || newCells.contains(where: { $0.isClaimed }) { return false }
            _ = newBox.takeModifiers()
            newBox.bind(self)
            for (index, cell) in newCells.enumerated() where cell !== oldCells[index] {
                cell.bind(to: self, index: index)
            }
            if !hasChildSlots {
                for index in newCells.indices where newCells[index] !== oldCells[index] {
                    applyContinued(index, old: oldCells[index], new: newCells[index], schema: typedSchema)
                    oldCells[index].forward(to: newCells[index])
                }
            }
            return true
        }
        guard adopted else { return }
        model = newModel
        flags.insert(.continued)
        guard hasChildSlots else { return }
        for index in newCells.indices where newCells[index] !== oldCells[index] {
            applyContinued(index, old: oldCells[index], new: newCells[index], schema: typedSchema)
        }
        unboundLock.withShortLock {
            for index in newCells.indices where newCells[index] !== oldCells[index] {
                oldCells[index].forward(to: newCells[index])
            }
        }
    }

    /// Records property `index` of a continued model as a change if the new instance's value
    /// differs; a child slot is reconciled first. Caller holds the section.
    private func applyContinued(_ index: Int, old oldCell: AnyCell, new newCell: AnyCell, schema: AnySchema) {
        if schema.isChildSlot(index) {
            // The slot is a change when its children changed, or when it may hold more than its
            // models (a key, an enum case): continued children alone are no change to it, their
            // own differences being changes of their own.
            let before = slots[index]?.list ?? []
            reconcileSlot(index)
            let after = slots[index]?.list ?? []
            let value = newCell.anyValue
            if !(value is any OnlyModels || value is any Model) || !before.elementsEqual(after, by: ===) {
                recordBoxedChangeInSection(index, old: oldCell.anyValue, new: value)
            }
        } else if newCell.differs(fromSameProperty: oldCell) {
            recordBoxedChangeInSection(index, old: oldCell.anyValue, new: newCell.anyValue)
        }
    }
}

/// A container whose value is nothing but its models, in order: a model, an optional model, an
/// array of models. Two such values holding the same live children are the same value.
private protocol OnlyModels {}
extension Optional: OnlyModels where Wrapped: Model {}
extension Array: OnlyModels where Element: Model {}
