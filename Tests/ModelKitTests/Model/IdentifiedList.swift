/// A small identified array, standing in for `IdentifiedArrayOf` from swift-identified-collections
/// (which ModelKit does not depend on): elements in order, each `id` at most once, looked up by id.
///
/// Like that type it is a mutable, random-access, range-replaceable collection that knows nothing of
/// ModelKit: it does not conform to `ModelContainer`. A tracked `IdentifiedList` of models is a child
/// slot all the same.
struct IdentifiedList<Element: Identifiable & Sendable>: Sendable where Element.ID: Sendable {
    private var elements: [Element] = []
    private var positions: [Element.ID: Int] = [:]

    init() {}

    init(_ elements: some Sequence<Element>) {
        append(contentsOf: elements)
    }

    var ids: [Element.ID] { elements.map(\.id) }

    /// The element with `id`; setting nil removes it, setting a value replaces it or appends it.
    subscript(id id: Element.ID) -> Element? {
        get { positions[id].map { elements[$0] } }
        set {
            if let position = positions[id] {
                if let newValue {
                    precondition(newValue.id == id, "IdentifiedList: the new element has another id")
                    elements[position] = newValue
                } else {
                    remove(at: position)
                }
            } else if let newValue {
                precondition(newValue.id == id, "IdentifiedList: the new element has another id")
                append(newValue)
            }
        }
    }

    @discardableResult
    mutating func remove(id: Element.ID) -> Element? {
        guard let position = positions[id] else { return nil }
        return remove(at: position)
    }

    private mutating func reindex() {
        positions = [:]
        for (position, element) in elements.enumerated() {
            precondition(positions.updateValue(position, forKey: element.id) == nil, "IdentifiedList: duplicate id \(element.id)")
        }
    }
}

extension IdentifiedList: MutableCollection, RandomAccessCollection, RangeReplaceableCollection {
    var startIndex: Int { elements.startIndex }
    var endIndex: Int { elements.endIndex }

    subscript(position: Int) -> Element {
        get { elements[position] }
        set {
            precondition(newValue.id == elements[position].id, "IdentifiedList: an element's id cannot change in place")
            elements[position] = newValue
        }
    }

    mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with newElements: C) where C.Element == Element {
        elements.replaceSubrange(range, with: newElements)
        reindex()
    }

    mutating func swapAt(_ i: Int, _ j: Int) {
        elements.swapAt(i, j)
        reindex()
    }
}

extension IdentifiedList: ExpressibleByArrayLiteral {
    init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension IdentifiedList: CustomReflectable {
    var customMirror: Mirror { Mirror(self, unlabeledChildren: elements, displayStyle: .collection) }
}
