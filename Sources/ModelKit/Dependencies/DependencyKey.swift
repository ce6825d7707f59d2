/// A key for a dependency: its type, and the values used in apps and in tests.
///
/// ```swift
/// struct FactClient: Sendable {
///     var fetch: @Sendable (Int) async throws -> String
/// }
///
/// extension FactClient: DependencyKey {
///     static let liveValue = FactClient { n in try await fetchFact(n) }
///     static let testValue = FactClient { _ in "test fact" }   // optional
/// }
///
/// extension DependencyValues {
///     var factClient: FactClient {
///         get { self[FactClient.self] }
///         set { self[FactClient.self] = newValue }
///     }
/// }
/// ```
///
/// Under a Tester, using a dependency that has no `testValue` and was not overridden fails the test
/// (and still returns the `liveValue`, so the code goes on).
public protocol DependencyKey {
    /// The dependency's type; the key itself by default.
    associatedtype Value: Sendable = Self

    /// The value apps use.
    static var liveValue: Value { get }

    /// The value tests use. Each tested hierarchy resolves it once.
    static var testValue: Value { get }
}

extension DependencyKey {
    /// Without a test value of its own, a key falls back to its live value and ModelKit notes the
    /// omission, so that a Tester can fail the test that relied on it.
    public static var testValue: Value {
        MissingTestValue.note()
        return liveValue
    }
}

/// Notices, on the resolving thread, that a key's default `testValue` was used.
enum MissingTestValue {
    final class Flag {
        var isSet = false
    }

    private static let flag = ThreadLocal<Flag>()

    static func note() {
        flag.value?.isSet = true
    }

    /// Evaluates `body` and tells whether it used a default `testValue`.
    static func check<R>(_ body: () -> R) -> (R, missing: Bool) {
        let current = Flag()
        let result = flag.withValue(current, body)
        return (result, current.isSet)
    }
}
