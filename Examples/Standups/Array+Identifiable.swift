import Foundation

// Plain arrays stand in for IdentifiedArray: lookups by id are linear, which suits the few elements
// the app holds.

extension Array where Element: Identifiable {
    /// The element with `id`. Setting a value replaces that element (or appends one); setting nil
    /// removes it.
    ///
    /// ```swift
    /// standupDetails[id: standup.id]?.standup.title = "Daily"
    /// ```
    subscript(id id: Element.ID) -> Element? {
        get { first { $0.id == id } }
        set {
            let index = firstIndex { $0.id == id }
            switch (index, newValue) {
            case let (index?, newValue?): self[index] = newValue
            case let (index?, nil): remove(at: index)
            case let (nil, newValue?): append(newValue)
            case (nil, nil): break
            }
        }
    }

    /// Removes the element with `id`, if there is one, and returns it.
    @discardableResult
    mutating func remove(id: Element.ID) -> Element? {
        guard let index = firstIndex(where: { $0.id == id }) else { return nil }
        return remove(at: index)
    }
}

extension Array {
    /// Removes the elements at `offsets` (what a list's swipe-to-delete gives).
    mutating func remove(atOffsets offsets: IndexSet) {
        self = enumerated().filter { !offsets.contains($0.offset) }.map(\.element)
    }
}
