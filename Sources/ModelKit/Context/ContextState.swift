/// The life stage of a context.
enum ContextState: UInt8 {
    /// Created and bound, `onActivate` not yet called.
    case anchored
    /// `onActivate` called.
    case active
    /// Removed from its hierarchy, or the hierarchy was released.
    case destructed
    /// The context of a frozen copy.
    case frozen

    var acceptsWrites: Bool { self == .anchored || self == .active }
    var isLive: Bool { acceptsWrites }

    var lifetime: ModelLifetime {
        switch self {
        case .anchored, .active: .anchored
        case .destructed: .destructed
        case .frozen: .frozen
        }
    }
}
