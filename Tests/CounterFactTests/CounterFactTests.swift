@testable import CounterFact
import ModelKit
import ModelKitTesting
import Testing

/// CounterFact's models driven through a ``Tester``, with full exhaustivity.
@Suite struct CounterFactTests {
    // Upstream: testExample.
    @Test func factOfACountOpensThePromptAndRowsAreRemovedThroughTheirCallbacks() async throws {
        let (app, tester) = AppModel().andTester {
            $0.factClient.fetch = { "\($0) is a good number." }
        }

        app.addButtonTapped()
        await tester.assert(app.counters.count == 1)

        let row = try await tester.unwrap(app.counters.first)
        row.counter.incrementTapped()
        await tester.assert(row.counter.count == 1)

        row.counter.factButtonTapped()
        await tester.assert {
            app.factPrompt?.count == 1
            app.factPrompt?.fact == "1 is a good number."
        }

        let factPrompt = try await tester.unwrap(app.factPrompt)
        factPrompt.dismissTapped()
        await tester.assert(app.factPrompt == nil)

        row.removeButtonTapped()
        await tester.assert(app.counters.isEmpty)
        await tester.finish()
    }

    // Upstream: testFactButtonTapped.
    @Test func factButtonHandsTheCountAndItsFactToOnFact() async {
        let onFact = TestProbe("onFact")
        let (counter, tester) = CounterModel(count: 2, onFact: onFact.call).andTester {
            $0.factClient.fetch = { "\($0) is a good number." }
        }
        tester.install(onFact)

        counter.factButtonTapped()
        await tester.assert(onFact.wasCalled(with: 2, "2 is a good number."))
        await tester.finish()
    }
}
