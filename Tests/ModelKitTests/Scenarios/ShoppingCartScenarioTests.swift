import Foundation
import ModelKit
import ModelKitTesting
import Observation
import Synchronization
import Testing

// The shopping cart of ShoppingCartModels.swift, seen as SwiftUI sees it (Swift's Observation
// directly: `withObservationTracking`, a view invalidated at most once per render) and driven as its
// team's tests drive it, under a full-exhaustivity Tester.

private let catalog = [
    Product(id: "apple", name: "Apple", listPrice: 10),
    Product(id: "pear", name: "Pear", listPrice: 20),
    Product(id: "fig", name: "Fig", listPrice: 30),
]

private func makeCatalog() -> [Product] {
    catalog.map { Product(id: $0.id, name: $0.name, listPrice: $0.listPrice) }
}

/// A "view" as SwiftUI drives one: its body is rendered under `withObservationTracking`; a change of
/// what it read invalidates it (once per render), and the next frame (`update()`) renders it again.
/// What the model reads at the moment of invalidation, and on which thread, is kept too.
private final class ViewHost: Sendable {
    private struct State {
        var renders: [String] = []
        var invalidations = 0
        var seenAtInvalidation: [String] = []
        var isInvalid = false
        var threads: Set<ObjectIdentifier> = []
    }

    private let state = Protected(State())
    private let body: @Sendable () -> String
    private let rendersOnInvalidation: Bool

    /// - Parameter rendersOnInvalidation: render again at once, on the writing thread, rather than
    ///   at the next `update()`.
    init(rendersOnInvalidation: Bool = false, _ body: @escaping @Sendable () -> String) {
        self.body = body
        self.rendersOnInvalidation = rendersOnInvalidation
        render()
    }

    var renders: [String] { state.withLock { $0.renders } }
    var invalidations: Int { state.withLock { $0.invalidations } }
    var seenAtInvalidation: [String] { state.withLock { $0.seenAtInvalidation } }
    /// The threads the view was invalidated on.
    var invalidationThreads: Set<ObjectIdentifier> { state.withLock { $0.threads } }

    /// The next frame: renders again if invalidated since the last render.
    func update() {
        let isInvalid = state.withLock { state in
            defer { state.isInvalid = false }
            return state.isInvalid
        }
        if isInvalid { render() }
    }

    private func render() {
        let output = withObservationTracking { body() } onChange: { [self] in invalidated() }
        state.withLock { $0.renders.append(output) }
    }

    private func invalidated() {
        let seen = body()
        let thread = ObjectIdentifier(Thread.current)
        state.withLock {
            $0.invalidations += 1
            $0.seenAtInvalidation.append(seen)
            $0.isInvalid = true
            $0.threads.insert(thread)
        }
        if rendersOnInvalidation { update() }
    }
}

@Suite struct ShoppingCartScenarioTests {
    // MARK: - Views and Observation

    @Test func aSingleWriteInvalidatesTheViewsThatReadItOnceAndNoOthers() {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("apple")
        let line = shop.cart.lines[0]
        let quantityView = ViewHost { "\(line.name) ×\(line.quantity)" }
        let catalogView = ViewHost { shop.catalog.map(\.name).joined(separator: ",") }

        line.increment()
        #expect(quantityView.invalidations == 1)
        #expect(quantityView.seenAtInvalidation == ["Apple ×2"])
        #expect(catalogView.invalidations == 0)
        quantityView.update()
        catalogView.update()
        #expect(quantityView.renders == ["Apple ×1", "Apple ×2"])
        #expect(catalogView.renders == ["Apple,Pear,Fig"])
        withExtendedLifetime(anchor) {}
    }

    @Test func aTransactionInvalidatesOnceAfterItEndsShowingItsLastValues() {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("apple")
        shop.addToCart("pear")
        let apple = shop.cart.lines[0], pear = shop.cart.lines[1]
        let view = ViewHost { "\(apple.quantity)+\(pear.quantity)=\(shop.cart.total)" }

        shop.node.transaction {
            apple.quantity = 3
            pear.quantity = 2
            #expect(view.invalidations == 0)
        }
        #expect(view.invalidations == 1)
        #expect(view.seenAtInvalidation == ["3+2=70"])
        view.update()
        #expect(view.renders == ["1+1=30", "3+2=70"])
        withExtendedLifetime(anchor) {}
    }

    @Test func aMemoizedTotalWhoseInputsChangeButValueDoesNotInvalidatesNothing() {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("apple")
        shop.addToCart("apple")
        shop.addToCart("fig")
        let totalView = ViewHost { "total \(shop.cart.total)" }
        let emptyView = ViewHost { shop.cart.isEmpty ? "empty" : "has items" }
        let apple = shop.cart.lines[0]

        // Reordering the lines, and moving 10 from one line to another, keep the total.
        shop.cart.lines.reverse()
        #expect(totalView.invalidations == 0)
        shop.node.transaction {
            apple.quantity = 5          // +30
            shop.cart.lines[0].unitPrice = 0   // the fig, -30
        }
        #expect(totalView.invalidations == 0)
        // Adding a line changes what `isEmpty` read, not its value.
        shop.addToCart("pear")
        #expect(emptyView.invalidations == 0)
        #expect(totalView.invalidations == 1)
        #expect(totalView.seenAtInvalidation == ["total 70"])
        totalView.update()
        emptyView.update()
        #expect(totalView.renders == ["total 50", "total 70"])
        #expect(emptyView.renders == ["has items"])
        withExtendedLifetime(anchor) {}
    }

    @Test func touchInvalidatesReadersOfTheValueAndOfTheMemoizedValuesBuiltOnIt() {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("apple")
        let countView = ViewHost { "\(shop.cart.lines.count) lines" }
        let totalView = ViewHost { "total \(shop.cart.total)" }
        let badgeView = ViewHost { "badge \(shop.badge)" }

        shop.cart.node.touch(\.lines)
        #expect(countView.invalidations == 1)
        #expect(totalView.invalidations == 1)
        #expect(badgeView.invalidations == 0)   // the count did not change: onChange does not run
        #expect(shop.badge == 1)
        countView.update()
        totalView.update()
        #expect(countView.renders == ["1 lines", "1 lines"])
        #expect(totalView.renders == ["total 10", "total 10"])
        withExtendedLifetime(anchor) {}
    }

    @Test func untrackedReadsRegisterNothingWithTheView() {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("apple")
        shop.addToCart("pear")
        let view = ViewHost {
            let items = withUntrackedModelReads { shop.cart.lines.reduce(0) { $0 + $1.quantity } }
            return "\(items) items, badge \(shop.badge)"
        }

        shop.cart.lines[0].increment()
        shop.cart.lines[1].quantity = 4
        #expect(view.invalidations == 0)
        shop.addToCart("fig")   // a new line: the badge changes through the onChange reaction
        #expect(view.invalidations == 1)
        #expect(view.seenAtInvalidation == ["7 items, badge 3"])
        withExtendedLifetime(anchor) {}
    }

    @Test func aSameIDCatalogRefreshShowsTheServersValuesToViewsOfTheContinuedProducts() {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        let apple = shop.catalog[0]   // a row view holds its product
        let rowView = ViewHost { "\(apple.name) \(apple.listPrice)" }
        let listView = ViewHost { shop.catalog.map { "\($0.id):\($0.listPrice)" }.joined(separator: " ") }
        let figView = ViewHost { "\(shop.catalog[2].name)" }

        shop.refreshCatalog([("apple", "Apple", 12), ("pear", "Pear", 20), ("fig", "Fig", 30)])
        #expect(apple.lifetime == .anchored)
        #expect(rowView.invalidations == 1)
        #expect(rowView.seenAtInvalidation == ["Apple 12"])
        #expect(listView.seenAtInvalidation == ["apple:12 pear:20 fig:30"])
        // The slot still holds the same products: a view of another product's name is not invalidated.
        #expect(figView.invalidations == 0)
        rowView.update()
        listView.update()
        figView.update()
        #expect(rowView.renders == ["Apple 10", "Apple 12"])
        #expect(listView.renders == ["apple:10 pear:20 fig:30", "apple:12 pear:20 fig:30"])
        #expect(figView.renders == ["Fig"])
        // The handle keeps working after the refresh.
        apple.listPrice = 11
        #expect(rowView.seenAtInvalidation == ["Apple 12", "Apple 11"])
        #expect(shop.catalog[0].listPrice == 11)
        withExtendedLifetime(anchor) {}
    }

    @Test func removingTheCheckoutInvalidatesTheViewsThatReadItAndLeavesItsDetailViewQuiet() {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("pear")
        shop.beginCheckout()
        let checkout = shop.checkout!
        let sheetView = ViewHost { shop.checkout.map { "checkout \($0.amount) \($0.status)" } ?? "no checkout" }
        let detailView = ViewHost { "status \(checkout.status)" }
        #expect(sheetView.renders == ["checkout 20 ready"])

        shop.checkout = nil
        #expect(sheetView.invalidations == 1)
        #expect(sheetView.seenAtInvalidation == ["no checkout"])
        #expect(checkout.lifetime == .destructed)
        #expect(detailView.invalidations == 0)
        detailView.update()
        #expect(detailView.renders == ["status ready"])
        withExtendedLifetime(anchor) {}
    }

    @Test func writesFromAnotherThreadInvalidateOnThatThreadOncePerWrite() async {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("apple")
        let line = shop.cart.lines[0]
        let view = ViewHost(rendersOnInvalidation: true) { "×\(line.quantity)" }

        let writerThread = Protected<ObjectIdentifier?>(nil)
        let writer = Thread {
            for _ in 0..<100 { line.increment() }
            writerThread.withLock { $0 = ObjectIdentifier(Thread.current) }
        }
        writer.start()
        await waitUntil { writerThread.withLock { $0 } != nil }
        #expect(view.invalidations == 100)
        #expect(view.invalidationThreads == [writerThread.withLock { $0 }!])
        #expect(view.renders == (1...101).map { "×\($0)" })
        #expect(line.quantity == 101)
        withExtendedLifetime(anchor) {}
    }

    @Test func concurrentWritersLeaveTheViewShowingTheLastCommittedTotal() async {
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("apple")
        shop.addToCart("pear")
        let apple = shop.cart.lines[0], pear = shop.cart.lines[1]
        let view = ViewHost { "total \(shop.cart.total)" }

        await withTaskGroup(of: Void.self) { group in
            group.addTask { for _ in 0..<50 { apple.increment() } }
            group.addTask { for _ in 0..<50 { pear.increment() } }
        }
        // Observation cancels a registration only after its `onChange` ran, so two commits on two
        // threads may both reach it before that (as with an `@Observable` class); the next frame
        // renders once all the same, and shows the last committed total.
        #expect((1...2).contains(view.invalidations))
        view.update()
        #expect(view.renders == ["total 30", "total \(51 * 10 + 51 * 20)"])
        withExtendedLifetime(anchor) {}
    }

    @Test func anObservationsSequenceSeesOneValuePerCommit() async {
        guard #available(macOS 26, iOS 26, *) else { return }
        let shop = Shop(catalog: makeCatalog())
        let anchor = shop.withAnchor()
        shop.addToCart("apple")
        let line = shop.cart.lines[0]
        var values = Observations { "\(line.quantity)×\(line.unitPrice)=\(shop.cart.total)" }.makeAsyncIterator()
        #expect(await values.next() == "1×10=10")
        shop.node.transaction {
            line.quantity = 2
            line.unitPrice = 5
        }
        #expect(await values.next() == "2×5=10")
        line.quantity = 3
        #expect(await values.next() == "3×5=15")
        withExtendedLifetime(anchor) {}
    }

    // MARK: - The app's own logic, under a full-exhaustivity Tester

    @Test func theCartIsPricedThroughItsOwnPricingClientAndTheBadgeFollowsItsLines() async {
        let memberCart = Cart().withDependencies { $0.pricing = PricingClient { _, listPrice in listPrice / 2 } }
        let (shop, tester) = Shop(catalog: makeCatalog(), cart: memberCart).andTester()

        shop.addToCart("pear")
        shop.addToCart("fig")
        shop.addToCart("pear")
        await tester.assert {
            shop.cart.lines.map(\.id) == ["pear", "fig"]
            shop.cart.lines.map(\.unitPrice) == [10, 15]
            shop.cart.lines.map(\.quantity) == [2, 1]
            shop.cart.total == 35
            shop.badge == 2
        }
        // The root keeps the live pricing: only the cart's subtree was overridden.
        #expect(shop.node.pricing.price("pear", 20) == 20)
        await tester.finish()
    }

    @Test func replacingTheCartMovesTheBadgeToTheNewCartsLines() async {
        let (shop, tester) = Shop(catalog: makeCatalog()).andTester()
        shop.addToCart("apple")
        await tester.assert {
            shop.cart.lines.count == 1
            shop.badge == 1
        }
        let saved = Cart()
        saved.lines = [CartLine(id: "pear", name: "Pear", unitPrice: 20), CartLine(id: "fig", name: "Fig", unitPrice: 30)]
        shop.cart = saved
        await tester.assert {
            shop.cart.lines.map(\.id) == ["pear", "fig"]
            shop.cart.total == 50
            shop.badge == 2
        }
        await tester.finish()
    }

    @Test func aSyncThatContinuesALineWithTheServersQuantityIsUndoneAsOneEdit() async {
        let (shop, tester) = Shop(catalog: makeCatalog()).andTester()
        shop.addToCart("apple")
        await tester.assert {
            shop.cart.lines.count == 1
            shop.badge == 1
        }
        let line = shop.cart.lines[0]
        let view = ViewHost { "\(line.name) ×\(line.quantity), total \(shop.cart.total)" }
        shop.cart.lines = [CartLine(id: "apple", name: "Apple", unitPrice: 10, quantity: 5)]
        await tester.assert { shop.cart.lines[0].quantity == 5 }
        #expect(view.seenAtInvalidation == ["Apple ×5, total 50"])
        view.update()
        shop.cart.undo()
        await tester.assert { shop.cart.lines[0].quantity == 1 }
        #expect(line.lifetime == .anchored)
        #expect(view.seenAtInvalidation == ["Apple ×5, total 50", "Apple ×1, total 10"])
        await tester.finish()
    }

    @Test func aTotalAViewComputedBeforeTheAssertStillCountsItsInputsAsAsserted() async {
        let (shop, tester) = Shop(catalog: makeCatalog()).andTester()
        shop.addToCart("apple")
        await tester.assert {
            shop.cart.lines.count == 1
            shop.badge == 1
        }
        let view = ViewHost(rendersOnInvalidation: true) { "total \(shop.cart.total)" }
        shop.addToCart("apple")   // the view computes the new total before the test asserts it
        #expect(view.renders == ["total 10", "total 20"])
        await tester.assert { shop.cart.total == 20 }
        await tester.finish()
    }

    @Test func undoingARemovalBringsTheLineBackLive() async {
        let (shop, tester) = Shop(catalog: makeCatalog()).andTester()
        shop.addToCart("apple")
        shop.addToCart("pear")
        shop.cart.lines[1].increment()
        await tester.assert {
            shop.cart.lines.map(\.id) == ["apple", "pear"]
            shop.cart.lines.map(\.quantity) == [1, 2]
            shop.badge == 2
        }
        let removed = shop.cart.lines[1]
        let totalView = ViewHost { "total \(shop.cart.total)" }

        shop.cart.remove("pear")
        await tester.assert {
            shop.cart.lines.map(\.id) == ["apple"]
            shop.badge == 1
            removed.lifetime == .destructed
        }
        totalView.update()
        shop.cart.undo()
        await tester.assert {
            shop.cart.lines.map(\.id) == ["apple", "pear"]
            shop.cart.lines.map(\.quantity) == [1, 2]
            shop.badge == 2
        }
        let back = shop.cart.lines[1]
        #expect(back.lifetime == .anchored)
        back.increment()
        await tester.assert {
            shop.cart.lines[1].quantity == 3
            shop.cart.total == 70
        }
        #expect(totalView.seenAtInvalidation == ["total 10", "total 50"])
        totalView.update()
        back.increment()
        #expect(totalView.seenAtInvalidation == ["total 10", "total 50", "total 90"])
        await tester.assert {
            shop.cart.lines[1].quantity == 4
            shop.cart.total == 90
        }
        await tester.finish()
    }

    @Test func placingAnOrderTwiceCancelsTheFirstPlacementInFlight() async throws {
        let clock = TestClock()
        let placed = TestProbe()
        let (shop, tester) = Shop(catalog: makeCatalog()).andTester {
            $0.orders = OrderClient { amount in
                placed.call(amount)
                try await clock.sleep(for: .seconds(2))
                return "order-\(amount)"
            }
        }
        tester.install(placed)
        shop.addToCart("fig")
        shop.beginCheckout()
        let checkout = try #require(shop.checkout)
        await tester.assert {
            shop.badge == 1
            shop.cart.lines.count == 1
            shop.checkout?.amount == checkout.amount
            checkout.status == "ready"
        }

        checkout.placeOrder()
        await tester.assert {
            checkout.attempts == 1
            checkout.isPlacing
            placed.wasCalled(with: 30)
        }
        await clock.advance(by: .seconds(1))
        checkout.placeOrder()   // a second tap: the first placement is cancelled and unwinds
        await tester.assert {
            checkout.attempts == 2
            checkout.isPlacing
            placed.wasCalled(with: 30)
        }
        await clock.advance(by: .seconds(2))
        await tester.assert {
            checkout.orderNumber == "order-30"
            checkout.status == "placed"
            !checkout.isPlacing
        }
        await tester.finish()
    }

    /// A shop with an apple in the cart, whose checkout is placing its order: the order service
    /// answers after two seconds of `clock`.
    private func placingAnApple(clock: TestClock) async throws -> (Shop, Tester, Checkout) {
        let (shop, tester) = Shop(catalog: makeCatalog()).andTester {
            $0.orders = OrderClient { amount in
                try await clock.sleep(for: .seconds(2))
                return "order-\(amount)"
            }
        }
        shop.addToCart("apple")
        shop.beginCheckout()
        let checkout = try #require(shop.checkout)
        checkout.placeOrder()
        await tester.assert {
            shop.badge == 1
            shop.cart.lines.count == 1
            shop.checkout?.amount == checkout.amount
            checkout.status == "ready"
            checkout.attempts == 1
            checkout.isPlacing
        }
        return (shop, tester, checkout)
    }

    @Test func cancellingTheCheckoutMidFlightStopsThePlacement() async throws {
        let clock = TestClock()
        let (_, tester, checkout) = try await placingAnApple(clock: clock)
        checkout.cancelTapped()
        await tester.assert {
            checkout.status == "cancelled"
            !checkout.isPlacing
        }
        await clock.advance(by: .seconds(5))
        await tester.assert(checkout.orderNumber == nil)
        await tester.finish()
    }

    @Test func removingTheCheckoutWhileItPlacesTheOrderCancelsThePlacement() async throws {
        let clock = TestClock()
        let (shop, tester, checkout) = try await placingAnApple(clock: clock)
        let sheetView = ViewHost { shop.checkout.map { "placing: \($0.isPlacing)" } ?? "closed" }
        shop.checkout = nil
        await tester.assert {
            shop.checkout == nil
            checkout.lifetime == .destructed
        }
        await clock.advance(by: .seconds(5))
        #expect(checkout.orderNumber == nil)
        sheetView.update()
        #expect(sheetView.renders.last == "closed")
        await tester.finish()
    }

    @Test func releasingTheShopWhileAnOrderIsPlacedTearsItDownAndCancelsThePlacement() async {
        let started = Protected(false)
        let cancelled = Protected(false)
        let orders = OrderClient { _ in
            started.withLock { $0 = true }
            let (stream, continuation) = AsyncStream<Never>.makeStream()
            await withTaskCancellationHandler {
                for await _ in stream {}
            } onCancel: {
                cancelled.withLock { $0 = true }
                continuation.finish()
            }
            throw CancellationError()
        }
        let shop = Shop(catalog: makeCatalog())
        var anchor: Shop? = shop.withAnchor { $0.orders = orders }
        shop.addToCart("fig")
        shop.beginCheckout()
        let checkout = shop.checkout!
        checkout.placeOrder()
        await waitUntil { started.withLock { $0 } }

        anchor = nil
        await waitUntil { cancelled.withLock { $0 } }
        #expect(checkout.lifetime == .destructed)
        #expect(shop.lifetime == .destructed)
        withExtendedLifetime(anchor) {}
    }
}

/// Waits, yielding, until `condition` holds (bounded, so a broken test fails rather than hangs).
private func waitUntil(_ condition: () -> Bool) async {
    let deadline = ContinuousClock.now.advanced(by: .seconds(20))
    while !condition(), ContinuousClock.now < deadline { await Task.yield() }
    #expect(condition())
}
