/// A type-erased hashable value known to be `Sendable` (`AnyHashable` is not).
@usableFromInline
struct SendableHashable: Hashable, @unchecked Sendable {
    // Safety: only built from `Hashable & Sendable` values.
    let base: AnyHashable

    init(_ value: some Hashable & Sendable) {
        base = AnyHashable(value)
    }
}
