/// The `@Tracked` properties a model value declares, found by reflection: each one's declared name
/// and the identity of its storage.
///
/// A property wrapper's storage appears in a `Mirror` as `_name`; a property declared as a plain
/// `Tracked` value appears under its own name. The storage reference (the cell) is what a registered
/// key path leads to, so matching cells tells which declaration a key path names. This is how
/// `r.track(\.$count)` learns the name `"count"`, and how the registration check finds forgotten,
/// doubled and misnamed entries.
struct DeclaredProperties {
    struct Entry {
        let name: String
        let cell: ObjectIdentifier
    }

    /// The declared `@Tracked` properties, in declaration order.
    let entries: [Entry]

    init(of model: any Model) {
        var entries: [Entry] = []
        for child in Mirror(reflecting: model).children {
            guard let label = child.label, let tracked = child.value as? any AnyTracked else { continue }
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            entries.append(Entry(name: name, cell: ObjectIdentifier(tracked.anyCell)))
        }
        self.entries = entries
    }

    /// The declared names of the properties whose storage is `cell` (more than one only when an
    /// initializer made two properties share their storage).
    func names(of cell: ObjectIdentifier) -> [String] {
        entries.lazy.filter { $0.cell == cell }.map(\.name)
    }
}

/// Where a registered property's name comes from.
enum PropertyNaming: Equatable {
    /// Written in the `track` call.
    case given
    /// Omitted, and found from the declaration.
    case inferred
    /// Omitted, and the key path leads to no `@Tracked` property declared by the model itself (it
    /// goes through a nested value or a computed property, or the model has a custom mirror).
    case notFound
    /// Omitted, and the key path's storage is shared by several declared properties.
    case ambiguous([String])
}

extension ModelRegistrar {
    /// Gives each property registered without a name its declared name, found in `sample` (any
    /// instance of `M`: the first one ModelKit meets). Runs once per type, when its schema is built.
    mutating func inferNames(from sample: M) {
        guard properties.contains(where: { $0.naming != .given }) else { return }
        let declared = DeclaredProperties(of: sample)
        for index in properties.indices where properties[index].naming != .given {
            let names = declared.names(of: ObjectIdentifier(properties[index].cellOf(sample)))
            switch names.count {
            case 1:
                properties[index].name = names[0]
                properties[index].naming = .inferred
            case 0:
                properties[index].naming = .notFound
            default:
                properties[index].naming = .ambiguous(names)
            }
        }
    }
}
