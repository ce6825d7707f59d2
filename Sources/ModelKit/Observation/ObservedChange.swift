// What an observer's evaluation hands to its delivery: the last value it saw, the change, and the
// payload that carries the change from the commit (under the lock) to the delivery (after it).

/// The last value an observer saw, and how it tells a new value from it.
@usableFromInline
final class ObservedValue<Value>: @unchecked Sendable {
    // Safety: `last` is read and written by the observer's evaluations, under the hierarchy lock.
    @usableFromInline @exclusivity(unchecked) var last: Value?
    @usableFromInline let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    @inlinable
    init(isDuplicate: (@Sendable (Value, Value) -> Bool)?) {
        self.isDuplicate = isDuplicate
    }

    /// The change to `value`, or nil when it is a duplicate of the last value (unless `forced`: the
    /// property was touched).
    @inlinable
    func update(_ value: Value, forced: Bool) -> ObservedPayload? {
        let old = last
        if let old, let isDuplicate, !forced, isDuplicate(old, value) { return nil }
        last = value
        return ObservedPayload(old: old, new: value)
    }
}

/// A change an observer delivers, boxed (see ``ObservedPayload``).
@usableFromInline
final class ObservedChange<Value> {
    // No `Optional<Value>` field: the class's deinit is not specialized, and destroying an optional
    // of a generic type would look up its metadata at every change.
    @usableFromInline let oldOrNew: Value
    @usableFromInline let hasOld: Bool
    @usableFromInline let new: Value

    @inlinable
    init(old: Value?, new: Value) {
        if let old {
            oldOrNew = old
            hasOld = true
        } else {
            oldOrNew = new
            hasOld = false
        }
        self.new = new
    }

    /// The value before the change; nil for an observer's first value.
    @inlinable
    var old: Value? { hasOld ? oldOrNew : nil }
}

/// A change on its way from an observer's evaluation to its delivery.
///
/// Values of a trivial type of at most 16 bytes (`Int`, `Bool`, `Double`, `Date`, `UUID`, small
/// enums) travel inline, as their bytes, so that the usual observed write allocates nothing; other
/// values, and the changes of observers that are not expressions, travel in a box.
@usableFromInline
struct ObservedPayload {
    /// The boxed change (an `ObservedChange<Value>` for an expression's values); nil when inline.
    @usableFromInline let box: AnyObject?
    // The inline values' bytes. Safety: written and read only through `store`/`load`, for types
    // `isInline` accepts: trivial (no references to retain, so bytes are a complete copy), at most
    // 16 bytes, aligned at most as the words are, so they always fit and loads are aligned.
    @usableFromInline var oldBytes: (UInt64, UInt64) = (0, 0)
    @usableFromInline var newBytes: (UInt64, UInt64) = (0, 0)
    @usableFromInline var hasOld = false

    /// A boxed change.
    @inlinable
    init(box: AnyObject) {
        self.box = box
    }

    /// The change from `old` (nil for the first value) to `new`.
    @inlinable
    init<Value>(old: Value?, new: Value) {
        guard Self.isInline(Value.self) else {
            box = ObservedChange(old: old, new: new)
            return
        }
        box = nil
        if let old {
            hasOld = true
            Self.store(old, in: &oldBytes)
        }
        Self.store(new, in: &newBytes)
    }

    /// Whether values of type `Value` travel inline. Known at compile time where specialized.
    @inlinable
    static func isInline<Value>(_: Value.Type) -> Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<(UInt64, UInt64)>.size
            && MemoryLayout<Value>.alignment <= MemoryLayout<UInt64>.alignment
    }

    /// The new value; `Value` is the type the payload was made with.
    @inlinable
    func new<Value>(as _: Value.Type) -> Value {
        guard Self.isInline(Value.self) else { return Self.boxed(box, Value.self).new }
        return Self.load(newBytes, Value.self)
    }

    /// The old value, nil for an observer's first value; `Value` is the type the payload was made with.
    @inlinable
    func old<Value>(as _: Value.Type) -> Value? {
        guard Self.isInline(Value.self) else { return Self.boxed(box, Value.self).old }
        return hasOld ? Self.load(oldBytes, Value.self) : nil
    }

    @inlinable
    static func boxed<Value>(_ box: AnyObject?, _: Value.Type) -> ObservedChange<Value> {
        // Safety: a payload of a type that is not inline was made with an `ObservedChange<Value>`.
        unsafeDowncast(box.unsafelyUnwrapped, to: ObservedChange<Value>.self)
    }

    @inlinable
    static func store<Value>(_ value: Value, in bytes: inout (UInt64, UInt64)) {
        withUnsafeMutableBytes(of: &bytes) { $0.storeBytes(of: value, as: Value.self) }
    }

    @inlinable
    static func load<Value>(_ bytes: (UInt64, UInt64), _: Value.Type) -> Value {
        withUnsafeBytes(of: bytes) { $0.load(as: Value.self) }
    }
}
