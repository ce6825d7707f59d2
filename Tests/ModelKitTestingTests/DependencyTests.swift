import Foundation
import ModelKit
import ModelKitTesting
import Testing

@Suite struct TesterDependencyTests {
    @Test func overriddenDependencyIsUsed() async {
        let (model, tester) = Welcome().andTester {
            $0.greeter.greet = { "Hi \($0)" }
        }
        model.greet("Ana")
        await tester.assert(model.message == "Hi Ana")
    }

    @Test func missingTestValueFailsNamingTheKeyAndUsesTheLiveValue() async {
        let (model, tester) = Welcome().andTester()
        await withKnownIssue {
            model.greet("Ana")
            await tester.assert(model.message == "Hello, Ana!")
        } matching: { issue in
            text(issue) == """
            Welcome used the dependency Greeter, which has no testValue and was not overridden in this test; its liveValue was used.

            To fix, either:
              • Override it for this test: `andTester { $0[Greeter.self] = … }` (or through its `DependencyValues` property).
              • Or give Greeter a `static let testValue` in its `DependencyKey` conformance.
            """
        }
    }

    @Test func uuidCountsUpPerTester() async {
        let (first, firstTester) = Welcome().andTester()
        let (second, secondTester) = Welcome().andTester()
        first.stamp()
        await firstTester.assert { first.id == UUID(0); first.createdAt == Date(timeIntervalSince1970: 1_234_567_890) }
        first.stamp()
        await firstTester.assert(first.id == UUID(1))
        second.stamp()
        await secondTester.assert { second.id == UUID(0); second.createdAt == Date(timeIntervalSince1970: 1_234_567_890) }
    }

    @Test func uuidInitializerSpellsTheCount() {
        #expect(UUID(0).uuidString == "00000000-0000-0000-0000-000000000000")
        #expect(UUID(10).uuidString == "00000000-0000-0000-0000-00000000000A")
    }

    @Test func everyIntSpellsAUUID() {
        #expect(UUID(10).uuidString == "00000000-0000-0000-0000-00000000000A")
        #expect(UUID(1 << 48).uuidString == "00000000-0000-0000-0001-000000000000")
        #expect(UUID(-1).uuidString == "00000000-0000-0000-FFFF-FFFFFFFFFFFF")
        #expect(UUID(Int.max) != UUID(Int.min))
    }

    @Test func clockIsImmediateByDefault() async {
        let (ticker, tester) = Ticker().andTester(exhaustivity: .off)
        await tester.assert(ticker.ticks >= 3)
    }
}
