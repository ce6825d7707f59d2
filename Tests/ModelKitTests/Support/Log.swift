import ModelKit
import Synchronization

/// An ordered, thread-safe record of what happened (activations, cancellations, task steps).
final class Log: Sendable {
    private let entries = Protected<[String]>([])

    func add(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    var all: [String] { entries.withLock { $0 } }

    func clear() {
        entries.withLock { $0.removeAll() }
    }

    func count(of entry: String) -> Int {
        entries.withLock { $0.filter { $0 == entry }.count }
    }

    /// The entries starting with `prefix`, in order.
    func entries(withPrefix prefix: String) -> [String] {
        entries.withLock { $0.filter { $0.hasPrefix(prefix) } }
    }

    /// Waits until `entry` was logged.
    func waitFor(_ entry: String) async -> Bool {
        await eventually { self.all.contains(entry) }
    }

    /// Waits until at least `count` entries were logged.
    func waitForCount(_ count: Int) async -> Bool {
        await eventually { self.all.count >= count }
    }
}
