import Foundation

/// Tells the current date. Models read it as `node.date.now` so that tests control time.
///
/// Under a Tester the date is fixed at 2009-02-13 23:31:30 UTC (`Date(timeIntervalSince1970: 1_234_567_890)`)
/// unless the test overrides it:
///
/// ```swift
/// let (model, tester) = RecordMeeting(standup: .mock).andTester {
///     $0.date = .constant(Date(timeIntervalSince1970: 0))
/// }
/// ```
public struct DateGenerator: Sendable {
    private let generate: @Sendable () -> Date

    /// A generator calling `generate` for each date.
    public init(_ generate: @escaping @Sendable () -> Date) {
        self.generate = generate
    }

    /// The current date, as this generator tells it.
    public var now: Date { generate() }

    /// The date `now`.
    public func callAsFunction() -> Date { generate() }

    /// The system clock (`Date()`).
    public static let system = DateGenerator { Date() }

    /// Always `date`.
    public static func constant(_ date: Date) -> DateGenerator {
        DateGenerator { date }
    }
}

enum DateGeneratorKey: DependencyKey {
    static let liveValue = DateGenerator.system
    static var testValue: DateGenerator { .constant(Date(timeIntervalSince1970: 1_234_567_890)) }
}

extension DependencyValues {
    /// The current date: the system clock in apps, a fixed date under a Tester.
    public var date: DateGenerator {
        get { self[DateGeneratorKey.self] }
        set { self[DateGeneratorKey.self] = newValue }
    }
}
