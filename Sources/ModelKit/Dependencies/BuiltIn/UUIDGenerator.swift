import Foundation

/// Makes UUIDs. Models call it as `node.uuid()` so that tests get predictable ids.
///
/// In apps it returns random UUIDs. Under a Tester each tested hierarchy has its own incrementing
/// generator: `00000000-0000-0000-0000-000000000000`, then `…-000000000001`, and so on.
///
/// ```swift
/// func addAttendeeButtonTapped() {
///     standup.attendees.append(Attendee(id: node.uuid()))
/// }
/// ```
public struct UUIDGenerator: Sendable {
    private let generate: @Sendable () -> UUID

    /// A generator calling `generate` for each UUID.
    public init(_ generate: @escaping @Sendable () -> UUID) {
        self.generate = generate
    }

    /// A new UUID.
    public func callAsFunction() -> UUID {
        generate()
    }

    /// Random UUIDs (`UUID()`).
    public static let random = UUIDGenerator { UUID() }

    /// Always the same UUID.
    public static func constant(_ uuid: UUID) -> UUIDGenerator {
        UUIDGenerator { uuid }
    }

    /// UUIDs counting up from `00000000-0000-0000-0000-000000000000`; each generator counts on its own.
    public static func incrementing() -> UUIDGenerator {
        let counter = Protected(0)
        return UUIDGenerator {
            let next = counter.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            return UUID(counting: next)
        }
    }
}

extension UUID {
    /// The UUID whose last 16 hexadecimal digits spell `n`'s 64 bits: `00000000-0000-0000-0000-00000000000a`
    /// for 10 (a negative `n` gives its two's complement, `…-ffff-ffffffffffff` for -1).
    package init(counting n: Int) {
        let bits = UInt64(bitPattern: Int64(n))
        func byte(_ index: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: bits >> (8 * (7 - index))) }
        self.init(uuid: (
            0, 0, 0, 0, 0, 0, 0, 0,
            byte(0), byte(1), byte(2), byte(3), byte(4), byte(5), byte(6), byte(7)
        ))
    }
}

enum UUIDGeneratorKey: DependencyKey {
    static let liveValue = UUIDGenerator.random
    static var testValue: UUIDGenerator { .incrementing() }
}

extension DependencyValues {
    /// Makes UUIDs: random in apps, incrementing under a Tester.
    public var uuid: UUIDGenerator {
        get { self[UUIDGeneratorKey.self] }
        set { self[UUIDGeneratorKey.self] = newValue }
    }
}
