/// A cell of a value that is not trivial, which keeps the value it was created with.
@usableFromInline
final class RetiringCell<Value: Sendable>: Cell<Value>, @unchecked Sendable {
    /// The initial value, put back by `retire()` for values that are not plain data.
    final let genesis: Value

    @usableFromInline
    override init(_ value: Value) {
        genesis = value
        super.init(value)
    }

    override func retire() -> Any? { retire(restoring: genesis) }

    override func makeCell(_ value: Value) -> Cell<Value> { RetiringCell(value) }
}

@usableFromInline
class EquatableCell<Value: Sendable & Equatable>: Cell<Value>, @unchecked Sendable {
    @usableFromInline
    override init(_ value: Value) {
        super.init(value)
    }

    /// A new cell for `value`: one that keeps its initial value unless the value is trivial.
    @inlinable
    static func makeEquatable(_ value: Value) -> Cell<Value> {
        _isPOD(Value.self) ? EquatableCell(value) : RetiringEquatableCell(value)
    }

    @usableFromInline
    override func isEqual(_ lhs: Value, _ rhs: Value) -> Bool { lhs == rhs }

    @usableFromInline
    override var comparesValues: Bool { true }

    /// Compares in place, without the call to ``isEqual(_:_:)``.
    @_specialize(where Value == Int)
    @_specialize(where Value == Bool)
    @_specialize(where Value == String)
    @_specialize(where Value == Double)
    override final func differs(fromSameProperty other: AnyCell) -> Bool {
        !(value == Self.typed(other).value)
    }

    override func makeCell(_ value: Value) -> Cell<Value> { EquatableCell(value) }
}

/// An `Equatable` ``RetiringCell``.
@usableFromInline
final class RetiringEquatableCell<Value: Sendable & Equatable>: EquatableCell<Value>, @unchecked Sendable {
    final let genesis: Value

    @usableFromInline
    override init(_ value: Value) {
        genesis = value
        super.init(value)
    }

    override func retire() -> Any? { retire(restoring: genesis) }

    override func makeCell(_ value: Value) -> Cell<Value> { RetiringEquatableCell(value) }
}

extension Cell {
    /// What the retiring cells' `retire()` does: puts `genesis` back unless the value is plain data,
    /// and returns the value taken out.
    final func retire(restoring genesis: Value) -> Any? {
        guard !isPlainData(Value.self) else { return nil }
        let current = value
        value = genesis
        return current
    }
}

/// A cell of a value `Equatable` only at run time: a generic model's `@Tracked var value: V`, with
/// `V` unconstrained, holding an `Int`. The statically chosen initializer sees no `Equatable`, but
/// API.md promises that writing an equal value is a no-op for every `Equatable` value; this cell
/// compares through the conformance `E` that ``Cell/make(_:)`` found (`E` is `Value`, so the
/// casts below always succeed). Only generic models pay for it: their writes cast both values.
@usableFromInline
final class OpenedEquatableCell<Value: Sendable, E: Equatable>: Cell<Value>, @unchecked Sendable {
    /// The initial value, put back by `retire()`, for values that are not plain data (nil for
    /// trivial ones, which keep their last value, as in ``Cell``).
    final let genesis: Value?

    init(_ value: Value, keepsGenesis: Bool) {
        genesis = keepsGenesis ? value : nil
        super.init(value)
    }

    override func isEqual(_ lhs: Value, _ rhs: Value) -> Bool {
        guard let lhs = lhs as? E, let rhs = rhs as? E else { return false }
        return lhs == rhs
    }

    override var comparesValues: Bool { true }

    override func retire() -> Any? {
        guard let genesis else { return nil }
        return retire(restoring: genesis)
    }

    override func makeCell(_ value: Value) -> Cell<Value> {
        OpenedEquatableCell(value, keepsGenesis: genesis != nil)
    }
}

extension Cell {
    /// A cell that compares values, when `Value` is `Equatable` at run time though not in the
    /// code that declared the property (see ``OpenedEquatableCell``); nil otherwise.
    @usableFromInline
    static func makeComparingIfEquatable(_ value: Value) -> Cell<Value>? {
        guard let type = Value.self as? any Equatable.Type else { return nil }
        return makeComparing(value, as: type)
    }

    private static func makeComparing<E: Equatable>(_ value: Value, as type: E.Type) -> Cell<Value> {
        OpenedEquatableCell<Value, E>(value, keepsGenesis: !_isPOD(Value.self))
    }
}
