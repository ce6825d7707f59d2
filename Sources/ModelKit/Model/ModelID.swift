import Synchronization

/// The default identity of a model: unique per model instance, shared by all its copies.
///
/// A model that does not declare its own `id` gets a `ModelID`. Copies of a model share it, a frozen
/// copy keeps it, and a new instance gets a new one.
///
/// ```swift
/// let counter = CountModel()
/// let copy = counter
/// assert(copy.id == counter.id)
/// assert(CountModel().id != counter.id)
/// ```
public struct ModelID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64

    private static let counter = Atomic<UInt64>(0)

    static func next() -> ModelID {
        ModelID(rawValue: counter.add(1, ordering: .relaxed).newValue)
    }

    public var description: String { "ModelID(\(rawValue))" }
}
