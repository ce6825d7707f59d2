/// Which models an event is sent to, relative to the sender.
///
/// ```swift
/// node.send(AppEvent.logout, to: .descendants)   // every model below the sender
/// node.send(.deleteStandup)                      // default: [.self, .ancestors]
/// ```
///
/// A model reachable along several routes (a shared model, or one both a child and a descendant)
/// receives each event once.
public struct ModelRelation: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The sender itself.
    public static let `self` = ModelRelation(rawValue: 1 << 0)
    /// The sender's parents (a shared model has several).
    public static let parent = ModelRelation(rawValue: 1 << 1)
    /// All models above the sender.
    public static let ancestors = ModelRelation(rawValue: 1 << 2)
    /// The sender's direct children.
    public static let children = ModelRelation(rawValue: 1 << 3)
    /// All models below the sender.
    public static let descendants = ModelRelation(rawValue: 1 << 4)
}
