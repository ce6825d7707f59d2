import Observation
import Synchronization

/// What ModelKit knows about a model type: its registered properties, built once per type from the
/// first instance it meets. That instance is also where the names omitted in `register(_:)` are
/// found: every path that needs a schema (anchoring, a frozen copy, a printed value) holds a model
/// value, so a model needs no `init()` for its names to be known.
///
/// It is also the subject ModelKit reports to Swift's Observation framework: each context owns an
/// `ObservationRegistrar`, and a tracked property is identified by the key path
/// `\AnySchema.[property: index]`. The pair (registrar, key path) is unique per model instance and
/// property, so `withObservationTracking` sees exactly the properties read, per model.
class AnySchema: Observable, @unchecked Sendable {
    // Safety: immutable after init, except `registrationChecked` and `registrationErrorsReported`
    // (atomic) and `unvisitedModelsReported` (its own mutex).
    let typeName: String
    /// The model type, to tell schemas apart without a cast.
    let modelTypeID: ObjectIdentifier
    let names: [String]
    /// Each property's registration options (`.private`, `.transient`).
    let options: [TrackOptions]
    let childSlotIndices: [Int]
    private let childSlotMask: UInt64
    private let childSlotFlags: [Bool]
    /// Each child slot's visit of its cell's value (nil for other properties). Kept here, outside
    /// the generic subclass, so that a visit looks up no generic metadata.
    private let childVisitors: [((AnyCell, inout ContainerVisitor) -> Void)?]
    /// Whether some property holds values that are not plain data (reset when a model is destructed).
    let retiresValues: Bool
    /// Whether the model's id is its `ModelID` (unique per instance: no two instances share it).
    let usesInstanceIdentity: Bool
    /// Where each property's storage reference sits inside a model value, found once; nil when it
    /// could not be found unambiguously (then key paths are used).
    let cellOffsets: [Int]?
    /// Whether a context holds a model of this type in its own storage (see ``ModelStorage``).
    let holdsModelInPlace: Bool
    let registrationChecked = Atomic<Bool>(false)
    /// What `register(_:)` got wrong that anchoring reports in every build (properties left out,
    /// see `refuseForeignStorage`), and whether it was reported.
    let registrationErrors: [ModelIssue]
    let registrationErrorsReported = Atomic<Bool>(false)
    #if DEBUG
    /// The child slots whose custom container was reported for a model its `visit(_:)` skips.
    let unvisitedModelsReported = Mutex<Set<Int>>([])
    #endif
    /// `\AnySchema.[property: i]` for each property, built once.
    private let observationKeyPaths: [KeyPath<AnySchema, Int>]

    init(
        modelType: Any.Type, names: [String], options: [TrackOptions],
        childVisitors: [((AnyCell, inout ContainerVisitor) -> Void)?],
        retiresValues: Bool, usesInstanceIdentity: Bool, cellOffsets: [Int]?, holdsModelInPlace: Bool,
        registrationErrors: [ModelIssue] = []
    ) {
        self.registrationErrors = registrationErrors
        self.typeName = ModelKit.typeName(modelType)
        self.modelTypeID = ObjectIdentifier(modelType)
        self.names = names
        self.options = options
        self.childVisitors = childVisitors
        let childSlots = childVisitors.map { $0 != nil }
        self.childSlotFlags = childSlots
        self.childSlotIndices = childSlots.indices.filter { childSlots[$0] }
        var mask: UInt64 = 0
        for index in childSlotIndices where index < 64 { mask |= 1 << UInt64(index) }
        self.childSlotMask = mask
        self.retiresValues = retiresValues
        self.usesInstanceIdentity = usesInstanceIdentity
        self.cellOffsets = cellOffsets
        self.holdsModelInPlace = holdsModelInPlace
        // Past the properties: the indices of memoized values (`node.memoize`), a few built ahead.
        self.observationKeyPaths = (0..<(names.count + Self.prebuiltMemoKeyPaths)).map { \AnySchema.[property: $0] }
    }

    var count: Int { names.count }

    @inline(__always)
    final func isChildSlot(_ index: Int) -> Bool {
        index < 64 ? childSlotMask & (1 << UInt64(index)) != 0 : index < childSlotFlags.count && childSlotFlags[index]
    }

    final func name(_ index: Int) -> String {
        names.indices.contains(index) ? names[index] : "#\(index)"
    }

    /// Whether property `index` is registered `.private`: a Tester does not require its changes to
    /// be asserted (they are still observed and printed).
    final func isPrivate(_ index: Int) -> Bool {
        options.indices.contains(index) && options[index].contains(.private)
    }

    /// Whether property `index` is registered `.transient`: not part of the document, so left out of
    /// `modifications` and undo.
    final func isTransient(_ index: Int) -> Bool {
        options.indices.contains(index) && options[index].contains(.transient)
    }

    /// Identifies property `index` to Observation; never called for its value.
    subscript(property index: Int) -> Int { index }

    /// How many observation key paths past the properties are built with the schema.
    static let prebuiltMemoKeyPaths = 8

    @inline(__always)
    final func observationKeyPath(_ index: Int) -> KeyPath<AnySchema, Int> {
        index < observationKeyPaths.count ? observationKeyPaths[index] : KeyedKind.observationKeyPath(index)
    }

    /// The cells of the model value at `model` (an instance of this schema's type), in
    /// registration order.
    final func cells(ofModelAt model: UnsafeRawPointer) -> [AnyCell] {
        guard let cellOffsets else { return cellsByKeyPath(ofModelAt: model) }
        return cellOffsets.map { cellReference(at: $0, in: model).takeUnretainedValue() }
    }

    /// The cell of property `index` of the model value at `model`.
    final func cell(_ index: Int, ofModelAt model: UnsafeRawPointer) -> AnyCell {
        guard let cellOffsets else { return cellsByKeyPath(ofModelAt: model)[index] }
        return cellReference(at: cellOffsets[index], in: model).takeUnretainedValue()
    }

    // MARK: The model value a context holds (see `ModelStorage`), typed by `Schema<M>`

    /// Calls `body` with the address of the model value held by the context storage at `storage`,
    /// for reading.
    @inline(__always)
    final func withModelValue(in storage: UnsafeMutableRawPointer, _ body: (UnsafeRawPointer) -> Void) {
        if holdsModelInPlace { return body(UnsafeRawPointer(storage)) }
        withBoxedModelValue(in: storage, body)
    }

    func withBoxedModelValue(in storage: UnsafeMutableRawPointer, _ body: (UnsafeRawPointer) -> Void) { abstract() }
    func cellsByKeyPath(ofModelAt model: UnsafeRawPointer) -> [AnyCell] { abstract() }
    /// A copy of the model value held by the storage at `storage`.
    func copyModel(in storage: UnsafeMutableRawPointer) -> any Model { abstract() }
    /// Destroys the model value held by the storage at `storage`.
    func destroyModel(in storage: UnsafeMutableRawPointer) { abstract() }
    /// Moves the model value held by the storage at `storage` out, then releases it: the storage is
    /// not touched once the value's release may have freed the context that holds it.
    func releaseModel(in storage: UnsafeMutableRawPointer) { abstract() }
    /// Assigns the model value at `source` (of this type) over the one held by the storage at
    /// `storage`, in place.
    func assignModel(in storage: UnsafeMutableRawPointer, from source: UnsafeRawPointer) { abstract() }
    /// The id of the model value held by the storage at `storage`, as a dictionary key. A custom
    /// `id` getter runs.
    func idKey(in storage: UnsafeMutableRawPointer) -> IDKey { abstract() }
    /// Whether the id of the model value held by the storage at `storage` is `key`.
    func modelHasID(in storage: UnsafeMutableRawPointer, _ key: IDKey) -> Bool { abstract() }
    /// Activates `context`, anchored and holding a model of this type: marks it active, unlocks
    /// the hierarchy if `unlocking`, then calls `onActivate` and the handlers on a copy of the model.
    /// Caller holds the lock.
    func activate(_ context: Context, handlers: [@Sendable (Any) -> Void], unlocking: Bool) { abstract() }

    private func abstract() -> Never {
        fatalError("ModelKit internal error: \(typeName)'s schema is not a Schema<\(typeName)>")
    }

    /// Visits the models held by a child slot's cell. The caller holds the lock.
    final func visitChildren(_ index: Int, cell: AnyCell, _ visitor: inout ContainerVisitor) {
        childVisitors[index]?(cell, &visitor)
    }
}

/// The cell whose reference sits at `offset` (one of a schema's `cellOffsets`) in the model value
/// at `base`, unretained. Safety: the caller keeps the model value, and so the cell, alive while it
/// uses the reference.
@inline(__always)
func cellReference(at offset: Int, in base: UnsafeRawPointer) -> Unmanaged<AnyCell> {
    Unmanaged<AnyCell>.fromOpaque(base.loadUnaligned(fromByteOffset: offset, as: UnsafeRawPointer.self))
}

final class Schema<M: Model>: AnySchema, @unchecked Sendable {
    // Safety: immutable after init.
    let properties: [PropertyDescriptor<M>]

    private init(instance: M) {
        var registrar = ModelRegistrar<M>()
        M.register(&registrar)
        registrar.inferNames(from: instance)
        let refused = registrar.refuseForeignStorage(of: instance)
        let properties = registrar.properties
        self.properties = properties
        super.init(
            modelType: M.self,
            names: properties.map(\.name),
            options: properties.map(\.options),
            childVisitors: properties.map(\.visitChildren),
            retiresValues: properties.contains { !$0.holdsPlainData },
            usesInstanceIdentity: M.ID.self == ModelID.self,
            cellOffsets: Self.findCellOffsets(in: instance, properties: properties),
            holdsModelInPlace: ModelStorage.holdsInPlace(M.self),
            registrationErrors: refused
        )
    }

    /// The schema of `M`, built on first use from `instance`.
    static func shared(_ instance: M) -> Schema<M> {
        let key = ObjectIdentifier(M.self)
        if let schema = schemaCache.withLock({ $0[key] }) {
            return unsafeDowncast(schema, to: Schema<M>.self)
        }
        // Built outside the lock: `register` is user code.
        let schema = Schema<M>(instance: instance)
        return schemaCache.withLock { cache in
            if let existing = cache[key] { return unsafeDowncast(existing, to: Schema<M>.self) }
            cache[key] = schema
            return schema
        }
    }

    override func cellsByKeyPath(ofModelAt model: UnsafeRawPointer) -> [AnyCell] {
        let model = model.assumingMemoryBound(to: M.self)
        return properties.map { $0.cellOf(model.pointee) }
    }

    override func withBoxedModelValue(in storage: UnsafeMutableRawPointer, _ body: (UnsafeRawPointer) -> Void) {
        ModelStorage.withAddress(at: storage, as: M.self, body)
    }

    override func copyModel(in storage: UnsafeMutableRawPointer) -> any Model {
        ModelStorage.withValue(at: storage, as: M.self) { $0 }
    }

    override func destroyModel(in storage: UnsafeMutableRawPointer) {
        ModelStorage.destroy(at: storage, as: M.self)
    }

    override func releaseModel(in storage: UnsafeMutableRawPointer) {
        ModelStorage.release(at: storage, as: M.self)
    }

    override func assignModel(in storage: UnsafeMutableRawPointer, from source: UnsafeRawPointer) {
        let source = source.assumingMemoryBound(to: M.self)
        ModelStorage.withValue(at: storage, as: M.self) { $0 = source.pointee }
    }

    override func idKey(in storage: UnsafeMutableRawPointer) -> IDKey {
        ModelStorage.withValue(at: storage, as: M.self) { IDKey($0.id, of: M.self) }
    }

    override func modelHasID(in storage: UnsafeMutableRawPointer, _ key: IDKey) -> Bool {
        ModelStorage.withValue(at: storage, as: M.self) { key.isKey(of: $0.id, in: M.self) }
    }

    override func activate(_ context: Context, handlers: [@Sendable (Any) -> Void], unlocking: Bool) {
        let model = context.withModel(as: M.self) { $0 }
        context.state = .active
        if unlocking { context.lock.unlock() }
        ActivationScope.current.withValue(context) {
            model.onActivate()
            for handler in handlers {
                handler(model)
            }
        }
    }

    /// The cells of `model`, in registration order.
    func cells(of model: M) -> [AnyCell] {
        withUnsafePointer(to: model) { cells(ofModelAt: UnsafeRawPointer($0)) }
    }

    /// Binds the cells of `model` to `context` (its new context), unless one of them belongs to a
    /// context already: then nothing is bound and the index of the first such cell is returned.
    /// Reads the cells in place, without collecting them. The caller holds `unboundLock`.
    func bindCells(of model: M, to context: Context) -> Int? {
        guard let cellOffsets else {
            let cells = properties.map { $0.cellOf(model) }
            if let index = cells.firstIndex(where: { $0.isClaimed }) { return index }
            for (index, cell) in cells.enumerated() { cell.bind(to: context, index: index) }
            return nil
        }
        return withUnsafePointer(to: model) { pointer -> Int? in
            // The model value holds its cells for as long as this call: no retains needed.
            let raw = UnsafeRawPointer(pointer)
            for (index, offset) in cellOffsets.enumerated()
            where cellReference(at: offset, in: raw)._withUnsafeGuaranteedRef({ $0.isClaimed }) {
                return index
            }
            for (index, offset) in cellOffsets.enumerated() {
                cellReference(at: offset, in: raw)._withUnsafeGuaranteedRef { $0.bind(to: context, index: index) }
            }
            return nil
        }
    }

    /// Finds where each property's storage reference sits in `instance`: the one word equal to the
    /// reference the key path yields. Any doubt (not found, found twice) falls back to key paths.
    private static func findCellOffsets(in instance: M, properties: [PropertyDescriptor<M>]) -> [Int]? {
        let cells = properties.map { $0.cellOf(instance) }
        guard Set(cells.map(ObjectIdentifier.init)).count == cells.count else { return nil }
        var offsets: [Int] = []
        for cell in cells {
            let matches = wordOffsets(of: cell, in: instance)
            guard matches.count == 1 else { return nil }
            offsets.append(matches[0])
        }
        return offsets
    }
}

private let schemaCache = Protected<[ObjectIdentifier: AnySchema]>([:])

/// The schema of `M`, as ``Schema/shared(_:)`` returns it. A free function: calling the static
/// method of the generic class instantiates `Schema<M>`'s metadata first (a lookup in the runtime's
/// cache, ~330 instructions in unspecialized code such as anchoring), which a cached schema does
/// not need. The last schema it returned is kept for the next call, found without a lock (a
/// parent's children are usually of one type).
func schema<M: Model>(of model: M) -> Schema<M> {
    let bits = lastSchemaBits.load(ordering: .acquiring)
    if bits != 0 {
        let last = Unmanaged<AnySchema>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
        if last._withUnsafeGuaranteedRef({ $0.modelTypeID == ObjectIdentifier(M.self) }) {
            return unsafeDowncast(last.takeUnretainedValue(), to: Schema<M>.self)
        }
    }
    let found: Schema<M>
    if let cached = schemaCache.withLock({ $0[ObjectIdentifier(M.self)] }) {
        found = unsafeDowncast(cached, to: Schema<M>.self)
    } else {
        found = Schema<M>.shared(model)
    }
    lastSchemaBits.store(UInt(bitPattern: Unmanaged.passUnretained(found).toOpaque()), ordering: .releasing)
    return found
}

/// The schema `schema(of:)` returned last (`Unmanaged<AnySchema>` bits, 0 before the first call).
/// Safety: held without a retain because no schema is ever freed (`schemaCache` keeps each one for
/// the life of the process); a schema is immutable once built, and published by the release store.
private let lastSchemaBits = Atomic<UInt>(0)
