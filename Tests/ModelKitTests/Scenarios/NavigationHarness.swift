import ModelKit
import ModelKitTesting

/// The inventory app (NavigationModels.swift) under a Tester, with a server that counts its calls
/// on probes and answers from a table, on a clock the test drives.
struct NavHarness {
    let clock = TestClock()
    let fetches = TestProbe("fetchStock")
    let saves = TestProbe("save")
    /// The stock the server answers for each item.
    let stock: [Int: Int] = [1: 40, 2: 12, 3: 7]

    func start(_ app: NavApp = NavApp(), saveDelay: Duration? = nil) -> (NavApp, Tester) {
        let (clock, fetches, saves, stock) = (clock, fetches, saves, stock)
        let (app, tester) = app.andTester {
            $0.continuousClock = clock
            $0.navAPI.fetchStock = { id in
                fetches.call(id)
                return stock[id] ?? 0
            }
            $0.navAPI.save = { item in
                if let saveDelay { try await clock.sleep(for: saveDelay) }
                saves.call(item.name)
            }
            $0.navAPI.suppliers = { query in
                ["Acme", "Bolt & Co", "Nutty"].filter { query.isEmpty || $0.lowercased().hasPrefix(query) }
            }
        }
        tester.install(fetches)
        tester.install(saves)
        return (app, tester)
    }

    /// Pushes item `id`'s screen and waits for its first load: the stock the server answers, one
    /// fetch of the item, both asserted.
    func pushLoadedItem(_ id: Int, on app: NavApp, _ tester: Tester) async throws -> NavItemScreen {
        app.pushItem(id)
        let screen = try await tester.unwrap(app.path.first?.item)
        await tester.assert {
            screen.stock == stock[id]
            fetches.wasCalled(with: id)
        }
        return screen
    }
}
