import Synchronization

/// Counts live tokens, so a test can prove that everything a model captured was freed.
///
/// Put tokens in model `let` properties and capture them in closures (tasks, `onCancel`, dependency
/// overrides); once the model is removed (or its hierarchy released) and its work has ended, the
/// count returns to zero.
final class LifetimeTracker: Sendable {
    private let live = Atomic<Int>(0)

    /// The number of tokens still alive.
    var liveCount: Int { live.load(ordering: .acquiring) }

    /// A new token, alive until its last reference is gone.
    func token() -> Token {
        live.add(1, ordering: .relaxed)
        return Token(tracker: self)
    }

    fileprivate func tokenDidDeinit() {
        live.subtract(1, ordering: .releasing)
    }

    /// Waits until every token was freed (see ``eventually(timeout:_:)``).
    func allFreed(timeout: Duration = defaultWaitTimeout) async -> Bool {
        await eventually(timeout: timeout) { self.liveCount == 0 }
    }

    final class Token: Sendable {
        private let tracker: LifetimeTracker

        fileprivate init(tracker: LifetimeTracker) {
            self.tracker = tracker
        }

        deinit {
            tracker.tokenDidDeinit()
        }
    }
}
