/// Where a model is in its life: created, living in a hierarchy, removed, or a frozen snapshot.
///
/// ```swift
/// let model = CountModel()            // .initial
/// let anchored = model.withAnchor()   // .anchored (and so is `model`: it is the same model)
/// let snapshot = anchored.frozenCopy  // .frozen
/// ```
public enum ModelLifetime: Hashable, Sendable, CustomStringConvertible {
    /// Created but not yet part of an anchored hierarchy. Its `node` APIs are not available yet.
    case initial
    /// Part of a live hierarchy: its dependencies, tasks and events work.
    case anchored
    /// Removed from its hierarchy (or its hierarchy was released). Writes are ignored and reported.
    case destructed
    /// A snapshot made by ``Model/frozenCopy``. Writes are ignored and reported.
    case frozen

    public var description: String {
        switch self {
        case .initial: "initial"
        case .anchored: "anchored"
        case .destructed: "destructed"
        case .frozen: "frozen"
        }
    }
}

extension ModelLifetime {
    /// How a report names a model of type `name` in this stage: "a Counter that is already
    /// anchored", "a Counter that was removed from its hierarchy", "a frozen copy of Counter".
    package func describing(_ name: String) -> String {
        switch self {
        case .initial: "a \(name) that is not anchored"
        case .anchored: "a \(name) that is already anchored"
        case .destructed: "a \(name) that was removed from its hierarchy"
        case .frozen: "a frozen copy of \(name)"
        }
    }
}
