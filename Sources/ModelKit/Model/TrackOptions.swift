/// How ModelKit treats one tracked property beyond tracking it; passed to
/// ``ModelRegistrar/track(_:options:)``.
///
/// Most properties need no options. Mark state that is the model's own business `.private`, and
/// state that is not part of the document (a selection, a scroll position, a loading flag)
/// `.transient`:
///
/// ```swift
/// static func register(_ r: inout ModelRegistrar<Self>) {
///     r.track(\.$title)
///     r.track(\.$isLoading, options: .private)
///     r.track(\.$selection, options: [.private, .transient])
/// }
/// ```
public struct TrackOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    @inlinable
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Internal state: a Tester does not require its changes to be asserted.
    ///
    /// Its changes are still observed, streamed and printed; an `assert` that reads the property
    /// still checks its value.
    public static let `private` = TrackOptions(rawValue: 1 << 0)

    /// Not part of the document: the property is left out of `modifications` and of undo.
    public static let transient = TrackOptions(rawValue: 1 << 1)
}

extension ChangeRecord {
    /// Whether the changed property is registered `.private`: a Tester does not require the change to
    /// be asserted.
    package var isPrivate: Bool { context.schema.isPrivate(index) }

    /// Whether the changed property is registered `.transient`: not part of the document.
    package var isTransient: Bool { context.schema.isTransient(index) }
}
