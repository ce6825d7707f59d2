/// The children of a parent's child slots that have some, by slot index.
///
/// A model has a handful of child slots at most, so the table is a short array searched in order:
/// finding a slot costs a few compares, where a dictionary hashed the index on every lookup,
/// and every write to a child slot (an append, a removal) looks its slot up twice (taking the
/// children out for the reconciliation, and putting them back).
struct SlotTable {
    private var entries: [(index: Int, children: SlotChildren)] = []

    var isEmpty: Bool { entries.isEmpty }

    private func position(of index: Int) -> Int? {
        entries.firstIndex { $0.index == index }
    }

    /// The children of slot `index`; setting nil removes them.
    subscript(index: Int) -> SlotChildren? {
        get { position(of: index).map { entries[$0].children } }
        set {
            if let position = position(of: index) {
                if let newValue {
                    entries[position].children = newValue
                } else {
                    entries.remove(at: position)
                }
            } else if let newValue {
                entries.append((index, newValue))
            }
        }
    }

    /// Takes the children of slot `index` out of the table (so that the caller holds the only
    /// reference to their lists and can edit them in place).
    mutating func removeValue(forKey index: Int) -> SlotChildren? {
        guard let position = position(of: index) else { return nil }
        return entries.remove(at: position).children
    }
}
