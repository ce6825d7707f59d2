/// What a ``Tester`` requires a test to assert.
///
/// ```swift
/// let (model, tester) = AppModel().andTester(exhaustivity: [.state, .events])
/// tester.exhaustivity = .off     // assert only what you choose
/// await tester.withExhaustivity(.off) {
///     model.importTapped()       // a step whose details this test does not check
///     await tester.assert(model.isImported)
/// }
/// ```
public struct Exhaustivity: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Every change of tracked state must be asserted.
    public static let state = Exhaustivity(rawValue: 1 << 0)
    /// Every sent event must be asserted with `didSend`.
    public static let events = Exhaustivity(rawValue: 1 << 1)
    /// No task may still be running when the test ends.
    public static let tasks = Exhaustivity(rawValue: 1 << 2)
    /// Every call of an installed ``TestProbe`` must be asserted.
    public static let probes = Exhaustivity(rawValue: 1 << 3)
    /// Every environment value set (`node.environment.x = …`) must be asserted.
    public static let environment = Exhaustivity(rawValue: 1 << 4)
    /// Every preference contribution set (`node.preference.x = …`) must be asserted.
    public static let preferences = Exhaustivity(rawValue: 1 << 5)

    /// Everything (the default).
    public static let full: Exhaustivity = [.state, .events, .tasks, .probes, .environment, .preferences]
    /// Nothing: only what the test asserts is checked.
    public static let off: Exhaustivity = []
}
