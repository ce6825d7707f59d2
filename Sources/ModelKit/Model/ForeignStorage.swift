/// Registered key paths that lead outside the model's own storage: into another model
/// (`\.child.$count`, `\.inner.$count`), through a class or a collection. Tracking such a property
/// would take the storage of the model it belongs to (which then cannot be anchored), or share it
/// between copies, so the schema leaves it out and a report names it.
extension ModelRegistrar {
    /// Removes the properties whose storage is not `sample`'s own, and returns a report for each.
    /// Runs once per type, when its schema is built, after the names are inferred.
    mutating func refuseForeignStorage(of sample: M) -> [ModelIssue] {
        let modelName = typeName(M.self)
        // The models `sample` holds in its own stored properties, with the storage they declare.
        let nestedModels = Mirror(reflecting: sample).children.compactMap { child -> (label: String, type: String, cells: Set<ObjectIdentifier>)? in
            guard let label = child.label, let model = child.value as? any Model else { return nil }
            return (label, typeName(type(of: model)), Set(DeclaredProperties(of: model).entries.map(\.cell)))
        }
        var issues: [ModelIssue] = []
        properties.removeAll { property in
            let cell = property.cellOf(sample)
            let owner = nestedModels.first { $0.cells.contains(ObjectIdentifier(cell)) }
            if owner == nil && !wordOffsets(of: cell, in: sample).isEmpty { return false }
            let place = owner.map { "into the \($0.type) in `\($0.label)`" }
                ?? "through another model's tracked property, a class or a collection"
            issues.append(ModelIssue(
                "\(modelName).register(_:) tracks \"\(property.name)\" with a key path that leads outside \(modelName)'s own storage (\(place)); it is not tracked.",
                fixes: [
                    "Register only \(modelName)'s own `@Tracked` properties: `r.track(\\.$name)`.",
                    "Read another model's state through that model, or declare a computed property on \(modelName) that reads it.",
                ]
            ))
            return true
        }
        return issues
    }
}

/// The offsets of the words of `instance`'s value that hold a reference to `cell`: where a
/// property's storage sits when it is one of the value's own (or of a struct it holds inline).
func wordOffsets<M>(of cell: AnyCell, in instance: M) -> [Int] {
    let target = UnsafeRawPointer(Unmanaged.passUnretained(cell).toOpaque())
    return withUnsafePointer(to: instance) { pointer in
        let raw = UnsafeRawPointer(pointer)
        var offsets: [Int] = []
        var offset = 0
        while offset + MemoryLayout<UnsafeRawPointer>.size <= MemoryLayout<M>.size {
            if raw.loadUnaligned(fromByteOffset: offset, as: UnsafeRawPointer.self) == target { offsets.append(offset) }
            offset += MemoryLayout<UnsafeRawPointer>.alignment
        }
        return offsets
    }
}
