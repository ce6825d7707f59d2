import Synchronization

/// What ModelKit knows about a model type: its registered properties, built once per type.
class AnySchema: @unchecked Sendable {
    // Safety: immutable after init, except `registrationChecked` (atomic).
    let modelType: Any.Type
    let typeName: String
    let names: [String]
    let childSlotIndices: [Int]
    private let childSlotMask: UInt64
    private let childSlotFlags: [Bool]
    let registrationChecked = Atomic<Bool>(false)

    init(modelType: Any.Type, names: [String], childSlots: [Bool]) {
        self.modelType = modelType
        self.typeName = ModelKit.typeName(modelType)
        self.names = names
        self.childSlotFlags = childSlots
        self.childSlotIndices = childSlots.indices.filter { childSlots[$0] }
        var mask: UInt64 = 0
        for index in childSlotIndices where index < 64 { mask |= 1 << UInt64(index) }
        self.childSlotMask = mask
    }

    var count: Int { names.count }

    @inline(__always)
    func isChildSlot(_ index: Int) -> Bool {
        index < 64 ? childSlotMask & (1 << UInt64(index)) != 0 : childSlotFlags[index]
    }

    func name(_ index: Int) -> String {
        names.indices.contains(index) ? names[index] : "#\(index)"
    }

    /// Visits the models held by a child slot's cell. The caller holds the lock.
    func visitChildren(_ index: Int, cell: AnyCell, _ visitor: inout ContainerVisitor) {}
}

final class Schema<M: Model>: AnySchema, @unchecked Sendable {
    // Safety: immutable after init.
    let properties: [PropertyDescriptor<M>]

    private init() {
        var registrar = ModelRegistrar<M>()
        M.register(&registrar)
        properties = registrar.properties
        super.init(
            modelType: M.self,
            names: registrar.properties.map(\.name),
            childSlots: registrar.properties.map { $0.visitChildren != nil }
        )
    }

    /// The schema of `M`, built on first use.
    static var shared: Schema<M> {
        let key = ObjectIdentifier(M.self)
        if let schema = schemaCache.withLock({ $0[key] }) {
            return unsafeDowncast(schema, to: Schema<M>.self)
        }
        // Built outside the lock: `register` is user code.
        let schema = Schema<M>()
        return schemaCache.withLock { cache in
            if let existing = cache[key] { return unsafeDowncast(existing, to: Schema<M>.self) }
            cache[key] = schema
            return schema
        }
    }

    override func visitChildren(_ index: Int, cell: AnyCell, _ visitor: inout ContainerVisitor) {
        properties[index].visitChildren?(cell, &visitor)
    }

    func cells(of model: M) -> [AnyCell] {
        properties.map { $0.cellOf(model) }
    }
}

private let schemaCache = Protected<[ObjectIdentifier: AnySchema]>([:])
