import ModelKit

/// Collects the elements of an async sequence in a background task, like ``Collector``, behind
/// ModelKit's `Protected` lock.
///
/// Use it in tests that run under Thread Sanitizer: `Protected` makes each hand-over of its lock
/// visible to TSan, whereas a plain `Mutex` contended by two threads waits in code TSan does not
/// see and shows up as a (false) data race.
final class Recorder<Element: Sendable>: Sendable {
    private let state = Protected<(elements: [Element], finished: Bool)>(([], false))
    private let task = Protected<Task<Void, Never>?>(nil)

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        let state = self.state
        let consumer = Task {
            do {
                for try await element in sequence {
                    state.withLock { $0.elements.append(element) }
                }
            } catch {}
            state.withLock { $0.finished = true }
        }
        task.withLock { $0 = consumer }
    }

    var elements: [Element] { state.withLock { $0.elements } }
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Waits until at least `count` elements arrived.
    func waitForCount(_ count: Int) async -> Bool {
        await eventually { self.elements.count >= count }
    }

    /// Waits until the sequence ended.
    func waitForFinish() async -> Bool {
        await eventually { self.isFinished }
    }

    func cancel() {
        task.withLock { $0 }?.cancel()
    }
}
