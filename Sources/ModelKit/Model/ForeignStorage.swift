/// Registered key paths that lead outside the model's own storage: into another model
/// (`\.child.$count`, `\.inner.$count`), through a class or a collection. Tracking such a property
/// would take the storage of the model it belongs to (which then cannot be anchored), or share it
/// between copies, so the schema leaves it out and a report names it.
extension ModelRegistrar {
    /// Removes the properties whose storage is not `sample`'s own, and returns a report for each.
    /// Runs once per type, when its schema is built, after the names are inferred.
    mutating func refuseForeignStorage(of sample: M) -> [ModelIssue] {
        let modelName = typeName(M.self)
        let nestedModels = Mirror(reflecting: sample).children.compactMap { child -> (String, any Model)? in
            guard let label = child.label, let model = child.value as? any Model else { return nil }
            return (label, model)
        }
        var issues: [ModelIssue] = []
        properties.removeAll { property in
            let cell = property.cellOf(sample)
            let owner = nestedModels.first { !DeclaredProperties(of: $0.1).names(of: ObjectIdentifier(cell)).isEmpty }
            if owner == nil && isStored(cell, inline: sample) { return false }
            let place = owner.map { "into the \(typeName(type(of: $0.1))) in `\($0.0)`" }
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

/// Whether the reference to `cell` is one of the words of `model`'s value: the storage of one of
/// its own properties, or of a property of a struct it holds inline.
private func isStored<M>(_ cell: AnyCell, inline model: M) -> Bool {
    let target = UnsafeRawPointer(Unmanaged.passUnretained(cell).toOpaque())
    return withUnsafePointer(to: model) { pointer in
        let raw = UnsafeRawPointer(pointer)
        var offset = 0
        while offset + MemoryLayout<UnsafeRawPointer>.size <= MemoryLayout<M>.size {
            if raw.loadUnaligned(fromByteOffset: offset, as: UnsafeRawPointer.self) == target { return true }
            offset += MemoryLayout<UnsafeRawPointer>.alignment
        }
        return false
    }
}
