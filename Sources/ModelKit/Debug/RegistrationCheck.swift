#if DEBUG
extension Hierarchy {
    /// Checks, once per model type, that `register(_:)` lists every `@Tracked` property once, under
    /// its declared name. Reports each mistake naming the type and the property.
    func checkRegistration<M: Model>(of model: M, schema: Schema<M>) {
        guard !schema.registrationChecked.exchange(true, ordering: .relaxed) else { return }
        for issue in registrationIssues(of: model, schema: schema) {
            deferIssue(issue)
        }
    }
}

/// The registration mistakes of `M`, found by comparing its registration with its declared
/// `@Tracked` properties (by reflection).
func registrationIssues<M: Model>(of model: M, schema: Schema<M>) -> [ModelIssue] {
    let type = typeName(M.self)
    var declared: [ObjectIdentifier: String] = [:]
    var declaredOrder: [String] = []
    for child in Mirror(reflecting: model).children {
        guard let label = child.label, let tracked = child.value as? any AnyTracked else { continue }
        let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
        declared[ObjectIdentifier(tracked.anyCell)] = name
        declaredOrder.append(name)
    }
    var issues: [ModelIssue] = []
    var registeredCells: [ObjectIdentifier: String] = [:]
    var registeredNames: Set<String> = []
    for property in schema.properties {
        let cell = ObjectIdentifier(property.cellOf(model))
        if let first = registeredCells[cell] {
            let name = declared[cell] ?? property.name
            issues.append(ModelIssue(
                "\(type).register(_:) registers the property `\(name)` twice (as \"\(first)\" and \"\(property.name)\").",
                fixes: ["Remove the second `r.track(…)` call for `\(name)` from \(type).register(_:)."]
            ))
            continue
        }
        registeredCells[cell] = property.name
        if !registeredNames.insert(property.name).inserted {
            issues.append(ModelIssue(
                "\(type).register(_:) uses the name \"\(property.name)\" for two properties.",
                fixes: ["Register each property under its own declared name."]
            ))
        }
        if let name = declared[cell], name != property.name {
            issues.append(ModelIssue(
                "\(type).register(_:) registers the property `\(name)` under the name \"\(property.name)\".",
                fixes: ["Write `r.track(\"\(name)\", \\.$\(name))` in \(type).register(_:)."]
            ))
        }
    }
    for name in declaredOrder {
        guard let cell = declared.first(where: { $0.value == name })?.key, registeredCells[cell] == nil else { continue }
        issues.append(ModelIssue(
            "\(type) declares `@Tracked var \(name)` but \(type).register(_:) does not register it; its changes are not tracked.",
            fixes: ["Add `r.track(\"\(name)\", \\.$\(name))` to \(type).register(_:)."]
        ))
    }
    return issues
}
#endif
