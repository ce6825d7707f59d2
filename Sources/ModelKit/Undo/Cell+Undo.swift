/// The type-erased cell operations undo needs: writing a restored value through the normal write
/// path, comparing two boxed values, and copying a value with its models detached.
protocol UndoableCell: AnyCell {
    /// Writes `value` (a value of the cell's type) through the normal write path. The caller holds
    /// the hierarchy for a section.
    func restore(_ value: Any)

    /// Whether two values of the cell's type are equal (false when the type is not `Equatable`).
    func isEqualAny(_ lhs: Any, _ rhs: Any) -> Bool

    /// A new unbound cell holding the current value with its models detached (see
    /// `detached(_:substituting:)`). The caller holds the guarding lock.
    func detachedCopy(substituting substitute: ((any Model) -> (any Model)?)?) -> AnyCell

    /// The boxes of the models in `value` (a value of the cell's type, held by child slot `index`
    /// of `schema`), in the order the slot visits them.
    func modelBoxes(in value: Any, slot index: Int, of schema: AnySchema) -> [NodeBox]
}

extension Cell: UndoableCell {
    func restore(_ value: Any) {
        guard let value = value as? Value else { return }
        write(value)
    }

    func isEqualAny(_ lhs: Any, _ rhs: Any) -> Bool {
        guard let lhs = lhs as? Value, let rhs = rhs as? Value else { return false }
        return isEqual(lhs, rhs)
    }

    func detachedCopy(substituting substitute: ((any Model) -> (any Model)?)?) -> AnyCell {
        makeCell(detached(value, substituting: substitute))
    }

    func modelBoxes(in value: Any, slot index: Int, of schema: AnySchema) -> [NodeBox] {
        guard let value = value as? Value else { return [] }
        let sink = CollectingSink(tracksPath: false)
        var visitor = ContainerVisitor(sink: sink)
        schema.visitChildren(index, cell: Cell(value), &visitor)
        return sink.entries.map(\.box)
    }
}

extension AnyCell {
    /// The cell's undo operations (every cell is a `Cell<Value>`).
    var undoable: any UndoableCell {
        self as! any UndoableCell
    }
}
