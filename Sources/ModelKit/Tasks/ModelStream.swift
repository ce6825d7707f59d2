import Synchronization

/// An asynchronous sequence of a model's values or events: what ``Model/change(of:initial:fileID:filePath:line:column:)``,
/// ``ModelNode/observe(initial:fileID:filePath:line:column:_:)`` and the `event` streams return.
///
/// Consume it with ``ModelNode/forEach(_:name:cancelPrevious:fileID:filePath:line:column:perform:catch:)``,
/// which ties the loop to the model's lifetime, or with `for await`:
///
/// ```swift
/// func onActivate() {
///     node.forEach(change(of: \.count)) { count in
///         print("count is now", count)
///     }
/// }
/// ```
///
/// A stream listens from the moment it is created and buffers what arrives until it is read, so
/// nothing is lost in between. It ends when its model is removed. Dropping the stream, or
/// cancelling the task that waits on it, stops the listening.
///
/// It works like an unbounded `AsyncStream`, with two differences that matter for speed (see
/// Documentation/Performance.md): its code is specialized for `Element` where it is used, so
/// handing over a value costs a lock and an append rather than generic lookups; and a reader that
/// finds nothing buffered watches for up to about two microseconds before it suspends, so that a
/// burst of values is handed over without waking the reader for each.
///
/// - Note: Meant for one consumer. If several tasks iterate the same stream, each element goes to
///   one of them.
public struct ModelStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    @usableFromInline let handle: StreamHandle<Element>

    @inlinable
    init(handle: StreamHandle<Element>) {
        self.handle = handle
    }

    /// A new stream and the storage its producer writes to.
    @inlinable
    static func make() -> (ModelStream, StreamStorage<Element>) {
        let storage = StreamStorage<Element>()
        return (ModelStream(handle: StreamHandle(storage)), storage)
    }

    /// A stream that has already ended.
    @inlinable
    static func finished() -> ModelStream {
        let (stream, storage) = make()
        storage.finish()
        return stream
    }

    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(handle: handle)
    }

    /// Reads a ``ModelStream``.
    ///
    /// An iterator takes what the stream has buffered in one go and hands it out one element per
    /// call; copies of an iterator share what it took.
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline let handle: StreamHandle<Element>
        /// What this iterator took from the buffer and has not handed out yet.
        @usableFromInline let batch: StreamBatch<Element>

        @inlinable
        init(handle: StreamHandle<Element>) {
            self.handle = handle
            self.batch = StreamBatch()
        }

        /// The next element, or nil once the stream has ended (or the waiting task is cancelled).
        @inlinable
        public mutating func next() async -> Element? {
            if let element = batch.takeNext() { return element }
            return await handle.storage.next(refilling: batch, isolation: nil)
        }

        /// The next element, waiting without leaving `actor`.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            if let element = batch.takeNext() { return element }
            return await handle.storage.next(refilling: batch, isolation: actor)
        }
    }
}

/// Keeps a stream's storage listening while the stream (or one of its iterators) exists; when the
/// last is dropped the storage stops, so that its producer lets go of it.
@usableFromInline
final class StreamHandle<Element: Sendable>: Sendable {
    @usableFromInline let storage: StreamStorage<Element>

    @inlinable
    init(_ storage: StreamStorage<Element>) {
        self.storage = storage
    }

    deinit {
        storage.terminate()
    }
}

/// The buffer between a stream's producer (ModelKit, after a commit or a send) and its consumer.
///
/// Lock discipline: every field is guarded by `lock`, taken as a leaf lock (nothing else is locked
/// and no other code runs while it is held). Continuations are resumed and the termination handler
/// is called after it is released.
@usableFromInline
final class StreamStorage<Element: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = RankedLock.forLeafSections()
    // Safety: the fields below are guarded by `lock`.
    /// The elements not taken by a reader yet, oldest first. A reader takes them all at once (see
    /// ``next(refilling:isolation:)``); they are optional so that its batch can hand them out by
    /// moving them, and swap its emptied array back in.
    @usableFromInline @exclusivity(unchecked) var buffer: [Element?] = []
    /// The tasks waiting for an element, first come first served (almost always at most one).
    @usableFromInline @exclusivity(unchecked) var waiters: [UnsafeContinuation<Element?, Never>] = []
    /// No element will be added (the buffer is still read to its end).
    @usableFromInline @exclusivity(unchecked) var isFinished = false
    @usableFromInline @exclusivity(unchecked) var onTermination: (@Sendable () -> Void)?
    /// How many elements were ever buffered (written under the lock, read without it): lets a
    /// reader that found the buffer empty see a new element arrive without taking the lock.
    @usableFromInline let appended = Atomic<Int>(0)
    /// How many coming waits skip the watch (see ``watchForAppend(after:)``).
    @usableFromInline let watchesToSkip = Atomic<Int>(0)

    @inlinable
    init() {}

    /// Hands `element` to a waiting consumer, or buffers it. Dropped once the stream has ended.
    @inlinable
    func yield(_ element: Element) {
        lock.lockLeaf()
        if isFinished {
            lock.unlockLeaf()
            return
        }
        if !waiters.isEmpty {
            let waiter = waiters.removeFirst()
            lock.unlockLeaf()
            waiter.resume(returning: element)
            return
        }
        buffer.append(element)
        appended.add(1, ordering: .relaxed)
        lock.unlockLeaf()
    }

    /// Ends the stream: the consumer reads what is buffered, then nil.
    @inlinable
    func finish() {
        end(discardingBuffer: false)
    }

    /// Ends the stream and discards what is buffered: the consumer stopped listening.
    @usableFromInline
    func terminate() {
        end(discardingBuffer: true)
    }

    @usableFromInline
    func end(discardingBuffer: Bool) {
        lock.lockLeaf()
        guard !isFinished else {
            lock.unlockLeaf()
            return
        }
        isFinished = true
        let waiting = waiters
        waiters = []
        let handler = onTermination
        onTermination = nil
        let discarded = discardingBuffer ? buffer : []
        if discardingBuffer {
            buffer = []
        }
        lock.unlockLeaf()
        // Elements are released here, outside the lock: they may be models with deinits.
        withExtendedLifetime(discarded) {}
        for waiter in waiting { waiter.resume(returning: nil) }
        handler?()
    }

    /// Calls `handler` once when the stream ends, whether its producer finished it or its consumer
    /// stopped listening; at once if it has already ended.
    @usableFromInline
    func onTermination(_ handler: @escaping @Sendable () -> Void) {
        lock.lockLeaf()
        if isFinished {
            lock.unlockLeaf()
            handler()
            return
        }
        onTermination = handler
        lock.unlockLeaf()
    }

    /// The first of the elements buffered, which `batch` (empty) takes all at once; nil once the
    /// stream has ended (or the waiting task is cancelled). Waits when nothing is buffered.
    ///
    /// A reader that finds elements buffered 256 times in a row without ever waiting yields
    /// its thread once: a loop whose body writes what it observes (a feedback loop, user error)
    /// then still lets the other jobs of its executor run, and a Tester settling it reaches its
    /// timeout instead of hanging.
    @inlinable
    func next(refilling batch: StreamBatch<Element>, isolation actor: isolated (any Actor)?) async -> Element? {
        batch.empty()
        lock.lockLeaf()
        if takeBuffered(into: batch) {
            lock.unlockLeaf()
            if batch.countRefillWithoutWaiting() { await Task.yield() }
            return batch.takeNext()
        }
        if isFinished {
            lock.unlockLeaf()
            return nil
        }
        let seen = appended.load(ordering: .relaxed)
        lock.unlockLeaf()
        // Before suspending, watch briefly for the next element: a producer writing in a burst then
        // hands elements over through the buffer, instead of paying for waking this task (a thread
        // wake-up, dearer than the write itself) on every element.
        if watchForAppend(after: seen) {
            lock.lockLeaf()
            if takeBuffered(into: batch) {
                lock.unlockLeaf()
                if batch.countRefillWithoutWaiting() { await Task.yield() }
                return batch.takeNext()
            }
            lock.unlockLeaf()
        }
        batch.refillsWithoutWaiting = 0
        return await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: actor) { continuation in
                lock.lockLeaf()
                if takeBuffered(into: batch) {
                    lock.unlockLeaf()
                    continuation.resume(returning: batch.takeNext())
                } else if isFinished {
                    lock.unlockLeaf()
                    continuation.resume(returning: nil)
                } else {
                    waiters.append(continuation)
                    lock.unlockLeaf()
                }
            }
        } onCancel: {
            terminate()
        }
    }

    /// Watches `appended` for up to about two microseconds (about what waking a suspended task
    /// costs); true as soon as it moves past `seen`. The clock is read every 32 checks.
    ///
    /// The watch only pays when the producer runs on another core meanwhile. When a watch finds
    /// nothing (no burst, or one core shared with the producer, whose time it would take), the next
    /// eight waits suspend at once; then it is tried again.
    @usableFromInline
    func watchForAppend(after seen: Int) -> Bool {
        if watchesToSkip.load(ordering: .relaxed) > 0 {
            watchesToSkip.subtract(1, ordering: .relaxed)
            return false
        }
        let deadline = ContinuousClock.now.advanced(by: .microseconds(2))
        var checks = 0
        while appended.load(ordering: .relaxed) == seen {
            checks &+= 1
            if checks & 31 == 0, ContinuousClock.now >= deadline {
                watchesToSkip.store(8, ordering: .relaxed)
                return false
            }
        }
        return true
    }

    /// Moves every buffered element into `batch` (emptied by its reader) by swapping arrays, so
    /// that the buffer keeps the batch's capacity; false when nothing is buffered. Caller holds the
    /// lock.
    @inlinable
    func takeBuffered(into batch: StreamBatch<Element>) -> Bool {
        guard !buffer.isEmpty else { return false }
        swap(&buffer, &batch.elements)
        return true
    }
}
