import Foundation

#if !canImport(SwiftUI)
extension MutableCollection where Self: RangeReplaceableCollection {
    /// Moves the elements at `source` (offsets from the start) to `destination` (an offset in the
    /// collection as it was), keeping their order: SwiftUI's `move(fromOffsets:toOffset:)`, for
    /// platforms without SwiftUI.
    ///
    /// On a tracked child slot it is one write, so the rows move without being torn down (two
    /// writes, a removal then an insertion, would remove the row in between):
    ///
    /// ```swift
    /// func moveTapped(from source: IndexSet, to destination: Int) {
    ///     todos.move(fromOffsets: source, toOffset: destination)
    /// }
    /// ```
    public mutating func move(fromOffsets source: IndexSet, toOffset destination: Int) {
        guard !source.isEmpty else { return }
        let moving = source.map { self[index(startIndex, offsetBy: $0)] }
        // Removed from the end first, so that the earlier offsets stay valid.
        for offset in source.reversed() {
            remove(at: index(startIndex, offsetBy: offset))
        }
        let before = source.count(in: 0..<Swift.max(0, Swift.min(destination, count + source.count)))
        let insertion = Swift.min(Swift.max(destination - before, 0), count)
        insert(contentsOf: moving, at: index(startIndex, offsetBy: insertion))
    }
}
#endif
