/// Tracked model state: reads are observed, writes are recorded and notified.
///
/// Declare tracked state with `@Tracked var` and list it in the model's `register(_:)`:
///
/// ```swift
/// struct CountModel: Model {
///     var node = ModelNode<Self>()
///     @Tracked var count = 0
///     @Tracked var history: [Int] = []
///
///     func incrementTapped() {
///         count += 1              // atomic: no other write lands in between
///         history.append(count)
///     }
///
///     static func register(_ r: inout ModelRegistrar<Self>) {
///         r.track("count", \.$count)
///         r.track("history", \.$history)
///     }
/// }
/// ```
///
/// The setter is `nonmutating`: all copies of a model share the same storage. Compound updates
/// (`count += 1`, `history.append(…)`) are atomic. Writing a value equal to the current one (for
/// `Equatable` values) does nothing: no notification, no recorded change.
///
/// - Note: Safe from any thread. Inside a compound update the mutation runs while the hierarchy is
///   locked; it may read the model on the same thread, but must not wait for another thread that does.
@propertyWrapper
public struct Tracked<Value: Sendable>: Sendable {
    @usableFromInline let cell: Cell<Value>

    /// Tracks a value.
    @inlinable
    public init(wrappedValue: Value) {
        cell = Cell.make(wrappedValue)
    }

    /// Tracks an `Equatable` value: writing an equal value is a no-op.
    @inlinable
    public init(wrappedValue: Value) where Value: Equatable {
        cell = EquatableCell.makeEquatable(wrappedValue)
    }

    init(cell: Cell<Value>) {
        self.cell = cell
    }

    @inlinable
    public var wrappedValue: Value {
        get { cell.read() }
        nonmutating set { cell.write(newValue) }
        nonmutating _modify {
            // `token.cell` is this cell, or the live cell it forwards to (a newer instance with the
            // same id continued the model).
            let token = cell.beginModify()
            if token.context == nil {
                // Not anchored: the update claims the cell, runs on a copy outside any lock (it may
                // read anchored models, whose locks come first in the lock order), and is written
                // back (see `UnboundUpdates`).
                var copy = token.old.unsafelyUnwrapped
                defer { token.cell.endUnboundModify(copy) }
                yield &copy
            } else {
                defer { token.cell.endModify(token) }
                yield &token.cell.value
            }
        }
    }

    /// The property wrapper itself, so that `\.$count` is a `WritableKeyPath` for registration.
    public var projectedValue: Tracked<Value> {
        get { self }
        set { self = newValue }
    }
}

/// Lets the registration check find `@Tracked` storage by reflection.
protocol AnyTracked {
    var anyCell: AnyCell { get }
}

extension Tracked: AnyTracked {
    var anyCell: AnyCell { cell }
}
