/// Collects a model type's tracked properties; the argument of ``Model/register(_:)``.
///
/// Registration replaces the code a macro would generate: each `@Tracked` property is listed once,
/// with the key path of its projected value. Its name is the declared name, found by reflection
/// when omitted, or written out:
///
/// ```swift
/// struct AppModel: Model {
///     var node = ModelNode<Self>()
///     @Tracked var counters: [CounterRowModel] = []   // a child slot
///     @Tracked var title = "Counters"                 // a plain value
///     @Tracked var isSaving = false
///
///     static func register(_ r: inout ModelRegistrar<Self>) {
///         r.track(\.$counters)                           // named "counters"
///         r.track("title", \.$title)                     // the same, spelled out
///         r.track(\.$isSaving, options: .private)
///     }
/// }
/// ```
///
/// There is one `track` call for every kind of property. When the value holds models (a model, an
/// optional, array or dictionary of models, a custom ``ModelContainer``, or any `Sendable`
/// mutable, random-access, range-replaceable collection of them) the property is a *child slot*:
/// models assigned to it are anchored, activated and torn down automatically, matched by `id`.
///
/// In debug builds the first anchoring of each model type checks the registration against the
/// type's declared `@Tracked` properties and reports a forgotten, doubled or misnamed entry.
///
/// - Note: Registration runs once per type, when ModelKit first meets an instance of it (anchoring
///   it, taking a frozen copy, printing it); omitted names are found then, in that instance.
///   Nothing is looked up per access.
public struct ModelRegistrar<M: Model> {
    @usableFromInline var properties: [PropertyDescriptor<M>] = []

    init() {}

    @usableFromInline
    mutating func append<Value: Sendable>(
        _ name: String?, _ keyPath: WritableKeyPath<M, Tracked<Value>>, options: TrackOptions,
        visitChildren: ((AnyCell, inout ContainerVisitor) -> Void)?
    ) {
        properties.append(PropertyDescriptor(
            name: name ?? "#\(properties.count + 1)", naming: name == nil ? .notFound : .given,
            keyPath: keyPath, options: options, visitChildren: visitChildren
        ))
    }

    // MARK: Plain values

    /// Registers a tracked property under its declared name.
    ///
    /// ```swift
    /// @Tracked var count = 0
    ///
    /// static func register(_ r: inout ModelRegistrar<Self>) {
    ///     r.track(\.$count)                       // named "count"
    ///     r.track(\.$draft, options: .transient)
    /// }
    /// ```
    ///
    /// The name is found once per type, by reflection, in the first instance ModelKit meets. When
    /// the key path does not lead to a `@Tracked` property the model declares itself (it goes
    /// through a nested struct or a computed property), the name cannot be found: pass it with
    /// `track(_:_:options:)`; debug builds report the omission.
    ///
    /// - Parameters:
    ///   - keyPath: The key path of the property's projected value: `\.$count`.
    ///   - options: How ModelKit treats the property (``TrackOptions``); none by default.
    public mutating func track<Value: Sendable>(
        _ keyPath: WritableKeyPath<M, Tracked<Value>>, options: TrackOptions = []
    ) {
        append(nil, keyPath, options: options, visitChildren: nil)
    }

    /// Registers a tracked property under the name given, which must be its declared name.
    ///
    /// ```swift
    /// r.track("count", \.$count)
    /// r.track("isLoading", \.$isLoading, options: .private)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The property's declared name (`"count"` for `@Tracked var count`). It names the
    ///     property in printed changes and test failures; debug builds check it.
    ///   - keyPath: The key path of the property's projected value: `\.$count`.
    ///   - options: How ModelKit treats the property (``TrackOptions``); none by default.
    public mutating func track<Value: Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<M, Tracked<Value>>, options: TrackOptions = []
    ) {
        append(name, keyPath, options: options, visitChildren: nil)
    }

    // MARK: Child slots

    /// Registers a tracked property holding models (a model, or an optional, array, dictionary or
    /// custom container of models) under its declared name: a *child slot*.
    ///
    /// ```swift
    /// @Tracked var destination: Destination?
    ///
    /// static func register(_ r: inout ModelRegistrar<Self>) {
    ///     r.track(\.$destination)
    /// }
    /// ```
    ///
    /// Models assigned to a child slot of an anchored model are anchored and activated; models
    /// removed from it are torn down. A new instance with the `id` of a live child continues that
    /// child.
    @inlinable
    public mutating func track<Value: ModelContainer & Sendable>(
        _ keyPath: WritableKeyPath<M, Tracked<Value>>, options: TrackOptions = []
    ) {
        append(nil, keyPath, options: options, visitChildren: Self.containerVisit(Value.self))
    }

    /// Registers a tracked property holding models (a child slot) under the name given, which must
    /// be its declared name.
    ///
    /// ```swift
    /// r.track("destination", \.$destination)
    /// ```
    @inlinable
    public mutating func track<Value: ModelContainer & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<M, Tracked<Value>>, options: TrackOptions = []
    ) {
        append(name, keyPath, options: options, visitChildren: Self.containerVisit(Value.self))
    }

    /// Registers a tracked collection of models under its declared name: a *child slot*, with no
    /// conformance to write.
    ///
    /// Any `Sendable` collection that is mutable, random-access and range-replaceable, and whose
    /// elements are models (or custom containers), qualifies: `IdentifiedArrayOf<Item>` from
    /// swift-identified-collections, say. Elements are matched by `id`, as in arrays, and appear
    /// in printed paths by position (`ListModel.items[2].title`).
    ///
    /// ```swift
    /// @Tracked var items: IdentifiedArrayOf<ItemModel> = []
    ///
    /// static func register(_ r: inout ModelRegistrar<Self>) {
    ///     r.track(\.$items)
    /// }
    /// ```
    @inlinable
    public mutating func track<C>(_ keyPath: WritableKeyPath<M, Tracked<C>>, options: TrackOptions = [])
    where C: MutableCollection & RandomAccessCollection & RangeReplaceableCollection & Sendable,
          C.Element: ModelContainer {
        append(nil, keyPath, options: options, visitChildren: Self.collectionVisit(C.self))
    }

    /// Registers a tracked collection of models (a child slot, with no conformance to write) under
    /// the name given, which must be its declared name.
    ///
    /// ```swift
    /// r.track("items", \.$items)
    /// ```
    @inlinable
    public mutating func track<C>(
        _ name: String, _ keyPath: WritableKeyPath<M, Tracked<C>>, options: TrackOptions = []
    ) where C: MutableCollection & RandomAccessCollection & RangeReplaceableCollection & Sendable,
            C.Element: ModelContainer {
        append(name, keyPath, options: options, visitChildren: Self.collectionVisit(C.self))
    }

    // An array of containers is both a container and a collection of containers; so is a
    // collection that conforms to `ModelContainer` itself. These overloads, more specific than
    // both, pick the container's own `visit` for them, and keep such calls unambiguous.

    /// Registers an array of models (a child slot) under its declared name.
    ///
    /// ```swift
    /// r.track(\.$rows)    // @Tracked var rows: [RowModel]
    /// ```
    @inlinable
    public mutating func track<Element: ModelContainer & Sendable>(
        _ keyPath: WritableKeyPath<M, Tracked<[Element]>>, options: TrackOptions = []
    ) {
        append(nil, keyPath, options: options, visitChildren: Self.containerVisit([Element].self))
    }

    /// Registers an array of models (a child slot) under the name given.
    ///
    /// ```swift
    /// r.track("rows", \.$rows)
    /// ```
    @inlinable
    public mutating func track<Element: ModelContainer & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<M, Tracked<[Element]>>, options: TrackOptions = []
    ) {
        append(name, keyPath, options: options, visitChildren: Self.containerVisit([Element].self))
    }

    /// Registers, under its declared name, a collection that conforms to ``ModelContainer``
    /// itself: its own ``ModelContainer/visit(_:)`` is used.
    ///
    /// ```swift
    /// r.track(\.$columns)    // @Tracked var columns: Columns, a collection visiting its models
    /// ```
    @inlinable
    public mutating func track<C>(_ keyPath: WritableKeyPath<M, Tracked<C>>, options: TrackOptions = [])
    where C: ModelContainer & MutableCollection & RandomAccessCollection & RangeReplaceableCollection,
          C: Sendable, C.Element: ModelContainer {
        append(nil, keyPath, options: options, visitChildren: Self.containerVisit(C.self))
    }

    /// Registers, under the name given, a collection that conforms to ``ModelContainer`` itself.
    ///
    /// ```swift
    /// r.track("columns", \.$columns)
    /// ```
    @inlinable
    public mutating func track<C>(
        _ name: String, _ keyPath: WritableKeyPath<M, Tracked<C>>, options: TrackOptions = []
    ) where C: ModelContainer & MutableCollection & RandomAccessCollection & RangeReplaceableCollection,
            C: Sendable, C.Element: ModelContainer {
        append(name, keyPath, options: options, visitChildren: Self.containerVisit(C.self))
    }

    // MARK: Misuse

    /// Unavailable: register the projected value, `\.$count`, not the value `\.count`.
    @available(*, unavailable, message: "pass the projected value of the @Tracked property: \\.$name, not \\.name")
    public mutating func track<Value>(_ keyPath: KeyPath<M, Value>, options: TrackOptions = []) {}

    /// Unavailable: register the projected value, `\.$count`, not the value `\.count`.
    @available(*, unavailable, message: "pass the projected value of the @Tracked property: \\.$name, not \\.name")
    public mutating func track<Value>(
        _ name: String, _ keyPath: KeyPath<M, Value>, options: TrackOptions = []
    ) {}

    // MARK: Visiting

    /// Visits a slot's value through its own `ModelContainer` conformance. Inlined into the `track`
    /// call so that visiting is specialized for the slot's type.
    @inlinable
    static func containerVisit<Value: ModelContainer & Sendable>(
        _: Value.Type
    ) -> (AnyCell, inout ContainerVisitor) -> Void {
        { cell, visitor in visitor.visit(unsafeDowncast(cell, to: Cell<Value>.self).peek) }
    }

    /// Visits a slot's value as a collection of containers, in order.
    @inlinable
    static func collectionVisit<C: RandomAccessCollection & Sendable>(
        _: C.Type
    ) -> (AnyCell, inout ContainerVisitor) -> Void where C.Element: ModelContainer {
        { cell, visitor in visitor.visit(elementsOf: unsafeDowncast(cell, to: Cell<C>.self).peek) }
    }
}

/// One registered property of a model type.
@usableFromInline
struct PropertyDescriptor<M: Model>: @unchecked Sendable {
    // Safety: immutable once its schema is built (the name is settled before); key paths are
    // immutable values.
    var name: String
    var naming: PropertyNaming
    let options: TrackOptions
    let cellOf: (M) -> AnyCell
    let replaceCell: (inout M, AnyCell) -> Void
    /// Visits the models in the cell's current value (child slots only). The caller holds the lock.
    let visitChildren: ((AnyCell, inout ContainerVisitor) -> Void)?
    /// Whether the property's values are plain data (kept when the model is destructed).
    let holdsPlainData: Bool

    init<Value: Sendable>(
        name: String,
        naming: PropertyNaming,
        keyPath: WritableKeyPath<M, Tracked<Value>>,
        options: TrackOptions,
        visitChildren: ((AnyCell, inout ContainerVisitor) -> Void)?
    ) {
        self.name = name
        self.naming = naming
        self.options = options
        self.cellOf = { $0[keyPath: keyPath].cell }
        self.replaceCell = { model, cell in
            model[keyPath: keyPath] = Tracked(cell: unsafeDowncast(cell, to: Cell<Value>.self))
        }
        self.visitChildren = visitChildren
        self.holdsPlainData = isPlainData(Value.self)
    }
}
