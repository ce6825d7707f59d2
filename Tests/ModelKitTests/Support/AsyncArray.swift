/// A finite async sequence of an array's elements.
struct AsyncArray<Element: Sendable>: AsyncSequence, Sendable {
    let elements: [Element]

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[Element]>

        mutating func next() async -> Element? {
            base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: elements.makeIterator())
    }
}

extension Array where Element: Sendable {
    var async: AsyncArray<Element> { AsyncArray(elements: self) }
}
