#if DEBUG
extension Hierarchy {
    /// Checks, once per model type, that `register(_:)` lists every `@Tracked` property once, under
    /// its declared name. Reports each mistake naming the type and the property.
    func checkRegistration<M: Model>(of model: M, schema: Schema<M>) {
        guard !schema.registrationChecked.exchange(true, ordering: .relaxed) else { return }
        for issue in registrationIssues(of: model, schema: schema) {
            deferIssue(issue)
        }
        // Looked for once the section has anchored everything it anchors: a model also placed in a
        // slot by this write is not hidden.
        let check: @Sendable () -> Void = { [self] in
            for issue in hiddenModelIssues(of: model, schema: schema) { report(issue) }
        }
        if lock.isHeldByCurrentThread { pendingActions.append(.run(check)) } else { check() }
    }
}

/// The registration mistakes of `M`, found by comparing its registration with its declared
/// `@Tracked` properties (by reflection).
func registrationIssues<M: Model>(of model: M, schema: Schema<M>) -> [ModelIssue] {
    let type = typeName(M.self)
    let declaredProperties = DeclaredProperties(of: model)
    var declared: [ObjectIdentifier: String] = [:]
    for entry in declaredProperties.entries where declared[entry.cell] == nil {
        declared[entry.cell] = entry.name
    }
    var issues: [ModelIssue] = []
    var registeredCells: [ObjectIdentifier: String] = [:]
    var registeredNames: Set<String> = []
    for (position, property) in schema.properties.enumerated() {
        if let issue = namingIssue(property.naming, type: type, call: position + 1) {
            issues.append(issue)
        }
        let cell = ObjectIdentifier(property.cellOf(model))
        if let first = registeredCells[cell] {
            let name = declared[cell] ?? property.name
            let names = first == property.name ? "" : " (as \"\(first)\" and \"\(property.name)\")"
            issues.append(ModelIssue(
                "\(type).register(_:) registers the property `\(name)` twice\(names).",
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
        if property.naming == .given, let name = declared[cell], name != property.name {
            issues.append(ModelIssue(
                "\(type).register(_:) registers the property `\(name)` under the name \"\(property.name)\".",
                fixes: ["Write `r.track(\"\(name)\", \\.$\(name))` in \(type).register(_:)."]
            ))
        }
    }
    for entry in declaredProperties.entries where registeredCells[entry.cell] == nil {
        guard declared[entry.cell] == entry.name else { continue }
        issues.append(ModelIssue(
            "\(type) declares `@Tracked var \(entry.name)` but \(type).register(_:) does not register it; its changes are not tracked.",
            fixes: ["Add `r.track(\"\(entry.name)\", \\.$\(entry.name))` to \(type).register(_:)."]
        ))
    }
    return issues
}

/// The report for a property registered without a name that could not be found.
private func namingIssue(_ naming: PropertyNaming, type: String, call: Int) -> ModelIssue? {
    switch naming {
    case .given, .inferred:
        return nil
    case .notFound:
        return ModelIssue(
            "\(type).register(_:) registers a property without a name (track call #\(call)), and its key path leads to no `@Tracked` property that \(type) declares; it is named \"#\(call)\".",
            fixes: [
                "Register the `@Tracked` property itself: `r.track(\\.$name)`.",
                "Or pass the name: `r.track(\"name\", keyPath)`.",
            ]
        )
    case .ambiguous(let names):
        let list = names.map { "`\($0)`" }.joined(separator: " and ")
        return ModelIssue(
            "\(type).register(_:) registers a property without a name (track call #\(call)) whose storage is shared by \(list); its name cannot be inferred.",
            fixes: ["Pass the name: `r.track(\"\(names[0])\", \\.$\(names[0]))`, or give each property its own storage."]
        )
    }
}
#endif
