/// The elements one reader of a stream took from its buffer in one hold of the stream's lock, handed
/// out one per `next()` without the lock.
///
/// Each ``ModelStream/Iterator`` makes its own, so the reader takes the lock once per batch instead
/// of once per element: while a producer keeps writing, the lock and the buffer stay with it and the
/// reader comes back only when its batch is empty (see ``StreamStorage/next(refilling:isolation:)``).
///
/// The elements are the reader's once taken, in the order they were buffered: they are handed out
/// even if the stream ends meanwhile (as if they had been read one by one), and released with the
/// batch when the reader is dropped before reading them all. The batch is not `Sendable`, and
/// neither is the iterator that holds it: one task at a time uses it.
@usableFromInline
final class StreamBatch<Element: Sendable> {
    // Safety: these fields are used only by the iterator that made the batch, which is not
    // `Sendable`, so by one task at a time; no access calls out, so none overlaps another.
    /// The batch's elements from `head` on (those before it were handed out and are nil).
    @usableFromInline @exclusivity(unchecked) var elements: [Element?] = []
    @usableFromInline @exclusivity(unchecked) var head = 0
    /// How many times in a row the reader refilled the batch without waiting for the producer.
    @usableFromInline @exclusivity(unchecked) var refillsWithoutWaiting = 0

    @inlinable
    init() {}

    /// The batch's next element; nil once every element was handed out.
    @inlinable
    func takeNext() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head].take()
        head &+= 1
        return element
    }

    /// Counts a refill that found elements buffered; true once every 256 such refills in a row,
    /// when the reader should yield its thread (see ``StreamStorage/next(refilling:isolation:)``).
    @inlinable
    func countRefillWithoutWaiting() -> Bool {
        refillsWithoutWaiting &+= 1
        guard refillsWithoutWaiting >= 256 else { return false }
        refillsWithoutWaiting = 0
        return true
    }

    /// Readies the batch to take the buffer's elements: every element was handed out, so only
    /// empty slots are removed, and the array's capacity goes back to the buffer by the swap.
    @inlinable
    func empty() {
        elements.removeAll(keepingCapacity: true)
        head = 0
    }
}
