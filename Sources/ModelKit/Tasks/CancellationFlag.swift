import Synchronization

/// Whether a model's work was cancelled, set by its cancellation: a loop checks it with one load.
@usableFromInline
final class CancellationFlag: Sendable {
    @usableFromInline let flag = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    @inlinable
    var isSet: Bool { flag.load(ordering: .acquiring) }

    @usableFromInline
    func set() { flag.store(true, ordering: .releasing) }
}
