import Dispatch
import Foundation
import ModelKit
import Testing

/// A sequence that, like a debounce flushing its pending element, answers the cancellation of its
/// reader with one last element. `waitUntilDecided()` returns once the reader has either started a
/// body for that element or dropped its iterator.
private final class LastElementOnCancel: AsyncSequence, Sendable {
    typealias Element = String

    private let waiting = Protected<CheckedContinuation<String?, Never>?>(nil)
    private let decided = DispatchSemaphore(value: 0)

    var isWaiting: Bool { waiting.withLock { $0 != nil } }

    /// Called by a body: the reader took the element.
    func bodyStarted() { decided.signal() }

    /// Blocks the calling thread until the reader decided; bounded only so that a broken reader
    /// fails the test instead of hanging it.
    func waitUntilDecided() { _ = decided.wait(timeout: .now() + 20) }

    final class Iterator: AsyncIteratorProtocol {
        let source: LastElementOnCancel
        init(source: LastElementOnCancel) { self.source = source }
        deinit { source.decided.signal() }

        func next() async -> String? {
            let source = source
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    source.waiting.withLock { $0 = continuation }
                }
            } onCancel: {
                let continuation = source.waiting.withLock { state in
                    defer { state = nil }
                    return state
                }
                continuation?.resume(returning: "last")
            }
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(source: self) }
}

private struct Reader: Model {
    var node = ModelNode<Self>()
    let source: LastElementOnCancel
    let log: Log

    func onActivate() {
        // Registered first, so it runs first: it holds the removal until the loop has decided.
        node.onCancel { source.waitUntilDecided() }
        node.forEach(source) { element in
            log.add("body \(element)")
            source.bodyStarted()
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

private struct Shelf: Model {
    var node = ModelNode<Self>()
    @Tracked var readers: [Reader] = []
    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$readers) }
}

/// A `forEach` whose model is removed starts no body afterwards, even for an element its sequence
/// delivers in answer to the cancellation (API.md section 4: work runs while the model is anchored).
@Suite struct ForEachCancellationTests {
    @Test func aForEachOfARemovedModelRunsNoBodyForAnElementDeliveredByTheRemoval() async {
        let log = Log()
        let source = LastElementOnCancel()
        let shelf = Shelf().withAnchor()
        shelf.readers = [Reader(source: source, log: log)]
        #expect(await eventually { source.isWaiting })
        // Removed from a thread of its own: the reader's `onCancel` holds that thread.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                shelf.readers = []
                done.resume()
            }.start()
        }
        #expect(log.entries(withPrefix: "body").isEmpty)
    }
}
