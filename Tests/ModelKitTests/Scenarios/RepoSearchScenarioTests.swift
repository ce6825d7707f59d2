import Foundation
import ModelKit
import ModelKitTesting
import Testing

// The repository search of RepoSearchModels.swift under a full-exhaustivity Tester and a TestClock:
// the search waits 300 ms after the last keystroke and takes 100 ms, rows load their detail line in
// 200 ms, and the filter's saves are probed.

private let repos = [
    RepoSearchRepo(id: 1, name: "swift", owner: "apple", stars: 60_000, language: "C++"),
    RepoSearchRepo(id: 2, name: "vapor", owner: "vapor", stars: 24_000, language: "Swift"),
    RepoSearchRepo(id: 3, name: "alamofire", owner: "Alamofire", stars: 40_000, language: "Swift"),
    RepoSearchRepo(id: 4, name: "awesome-swift", owner: "matteocrippa", stars: 25_000, language: nil),
]

private struct RepoSearchHarness {
    let clock = TestClock()
    let searches = TestProbe("search")
    let saves = TestProbe("save")
    /// How long a search takes on the server.
    var latency = Duration.milliseconds(100)

    func start() -> (RepoSearchApp, Tester) {
        let (clock, searches, saves, latency) = (clock, searches, saves, latency)
        let (app, tester) = RepoSearchApp().andTester {
            $0.continuousClock = clock
            $0.repoSearchClient.search = { query in
                searches.call(query)
                try await clock.sleep(for: latency)
                if query == "rate limit" { throw RepoSearchError(message: "API rate limit exceeded.") }
                return repos.filter { $0.name.contains(query) || $0.owner.lowercased().contains(query) }
            }
            $0.repoSearchSettings.save = { sortBy, language in saves.call(sortBy, language) }
        }
        tester.install(searches)
        tester.install(saves)
        return (app, tester)
    }
}

/// Searches for `query` and lets the results and their detail lines arrive, asserting all of it.
private func search(_ query: String, _ h: RepoSearchHarness, _ app: RepoSearchApp, _ tester: Tester) async {
    let search = app.search
    search.query = query
    await h.clock.advance(by: .milliseconds(300))
    await tester.assert {
        search.query == query
        search.isSearching
        h.searches.wasCalled(with: query)
    }
    await h.clock.advance(by: .milliseconds(100))
    await tester.assert {
        !search.isSearching
        !search.results.isEmpty
    }
    await h.clock.advance(by: .milliseconds(200))
    await tester.assert(search.results.allSatisfy { $0.detailLine != nil })
}

@Suite struct RepoSearchScenarioTests {
    @Test func aSearchRunsAfterThePauseAndItsRowsLoadTheirDetail() async {
        let h = RepoSearchHarness()
        let (app, tester) = h.start()
        let search = app.search
        search.query = "sw"
        await h.clock.advance(by: .milliseconds(299))
        search.query = "swift"
        await h.clock.advance(by: .milliseconds(299))
        await tester.assert {
            search.query == "swift"
            !search.isSearching
        }
        await h.clock.advance(by: .milliseconds(1))
        await tester.assert {
            search.isSearching
            h.searches.wasCalled(with: "swift")
        }
        await h.clock.advance(by: .milliseconds(100))
        await tester.assert {
            !search.isSearching
            search.results.map(\.repo.name) == ["swift", "awesome-swift"]
            search.results.allSatisfy { $0.detailLine == nil }
        }
        await h.clock.advance(by: .milliseconds(200))
        await tester.assert {
            search.results.map(\.detailLine) == ["Written in C++", "Language unknown"]
        }
        search.results[1].toggleExpanded()
        await tester.assert(search.results[1].isExpanded)
        await tester.finish()
    }

    @Test func aNewQueryCancelsTheSearchInFlight() async {
        var h = RepoSearchHarness()
        h.latency = .seconds(1)
        let (app, tester) = h.start()
        let search = app.search
        search.query = "apple"
        await h.clock.advance(by: .milliseconds(300))
        await tester.assert {
            search.query == "apple"
            search.isSearching
            h.searches.wasCalled(with: "apple")
        }
        search.query = "vapor"
        await h.clock.advance(by: .milliseconds(300))
        await tester.assert {
            search.query == "vapor"
            search.isSearching
            h.searches.wasCalled(with: "vapor")
        }
        // The search for "apple" would have answered now: it was cancelled.
        await h.clock.advance(by: .milliseconds(700))
        #expect(search.results.isEmpty && search.isSearching)
        await h.clock.advance(by: .milliseconds(300))
        await tester.assert {
            !search.isSearching
            search.results.map(\.repo.name) == ["vapor"]
        }
        await h.clock.advance(by: .milliseconds(200))
        await tester.assert(search.results[0].detailLine == "Written in Swift")
        await tester.finish()
    }

    @Test func aFailedSearchKeepsTheLastResultsUnderItsMessage() async {
        let h = RepoSearchHarness()
        let (app, tester) = h.start()
        await search("vapor", h, app, tester)
        app.search.query = "rate limit"
        await h.clock.advance(by: .milliseconds(400))
        await tester.assert {
            app.search.query == "rate limit"
            !app.search.isSearching
            app.search.errorMessage == "API rate limit exceeded."
            app.search.results.map(\.repo.name) == ["vapor"]
            h.searches.wasCalled(with: "rate limit")
        }
        app.search.query = " "
        await h.clock.advance(by: .milliseconds(300))
        await tester.assert {
            app.search.query == " "
            app.search.errorMessage == nil
            app.search.results.isEmpty
        }
        await tester.finish()
    }

    @Test func theFilterSavesEachChangeAndAppliesWhenDismissed() async throws {
        let h = RepoSearchHarness()
        let (app, tester) = h.start()
        await search("a", h, app, tester)
        #expect(app.search.results.map(\.repo.name) == ["swift", "vapor", "alamofire", "awesome-swift"])
        app.search.filterTapped()
        let filter = try await tester.unwrap(app.search.filter)
        filter.sortBy = .name
        await tester.assert {
            filter.sortBy == .name
            h.saves.wasCalled(with: RepoSearchSort.name, "")
        }
        filter.language = "swift"
        await tester.assert {
            filter.language == "swift"
            h.saves.wasCalled(with: RepoSearchSort.name, "swift")
        }
        app.search.filterDismissed()
        await tester.assert {
            app.search.filter == nil
            app.search.results.map(\.repo.name) == ["alamofire", "vapor"]
        }
        #expect(filter.lifetime == .destructed)
        await tester.finish()
    }

    @Test func aResultOpensItsDetailAndADeepLinkSearches() async throws {
        let h = RepoSearchHarness()
        let (app, tester) = h.start()
        app.handleURL(URL(string: "githubsearch://search?q=alamofire")!)
        await h.clock.advance(by: .milliseconds(600))
        await tester.assert {
            app.search.query == "alamofire"
            !app.search.isSearching
            app.search.results.map(\.detailLine) == ["Written in Swift"]
            h.searches.wasCalled(with: "alamofire")
        }
        app.search.resultTapped(app.search.results[0])
        let detail = try await tester.unwrap(app.search.detail)
        #expect(detail.repo.owner == "Alamofire")
        app.search.detailDismissed()
        await tester.assert(app.search.detail == nil)
        app.handleURL(URL(string: "githubsearch://elsewhere?q=nope")!)
        await tester.settle()
        #expect(app.search.query == "alamofire")
        await tester.finish()
    }

    @Test func rowsFilteredOutBeforeTheirDetailLoadsStopLoading() async throws {
        let h = RepoSearchHarness()
        let (app, tester) = h.start()
        app.search.query = "swift"
        await h.clock.advance(by: .milliseconds(400))
        await tester.assert {
            app.search.query == "swift"
            !app.search.isSearching
            app.search.results.map(\.repo.name) == ["swift", "awesome-swift"]
            h.searches.wasCalled(with: "swift")
        }
        let unknown = app.search.results[1]
        app.search.filterTapped()
        let filter = try await tester.unwrap(app.search.filter)
        filter.language = "C++"
        // The save is the filter's own work: it runs on its own task, so the test waits for it
        // before dismissing (an edit made just before dismissal may or may not be saved).
        await tester.assert {
            filter.language == "C++"
            h.saves.wasCalled(with: RepoSearchSort.stars, "C++")
        }
        app.search.filterDismissed()
        await tester.assert {
            app.search.filter == nil
            app.search.results.map(\.repo.name) == ["swift"]
        }
        #expect(unknown.lifetime == .destructed)
        await h.clock.advance(by: .milliseconds(200))
        await tester.assert(app.search.results[0].detailLine == "Written in C++")
        #expect(unknown.detailLine == nil)
        await tester.finish()
    }

    /// SwiftModel's search suite leaves state out of exhaustivity (`.removing(.state)`); here the
    /// same test asserts only the probe, and settles what activation did with exhaustivity off.
    @Test func withoutStateExhaustivityOnlyTheSearchCallsAreAsserted() async {
        let h = RepoSearchHarness()
        let (clock, searches) = (h.clock, h.searches)
        let (app, tester) = RepoSearchApp().andTester(exhaustivity: Exhaustivity.full.subtracting(.state)) {
            $0.continuousClock = clock
            $0.repoSearchClient.search = { query in
                searches.call(query)
                return repos.filter { $0.owner == query }
            }
        }
        tester.install(searches)
        await tester.withExhaustivity(.off) { await tester.settle() }
        app.search.query = "vapor"
        await h.clock.advance(by: .milliseconds(500))
        await tester.assert(searches.wasCalled(with: "vapor"))
        #expect(app.search.results.map(\.detailLine) == ["Written in Swift"])
        await tester.finish()
    }

    // MARK: - Without a Tester

    @Test func aRepeatedSearchContinuesItsRowsWithTheNewRowsValues() async {
        let app = RepoSearchApp().withAnchor {
            $0.continuousClock = ImmediateClock()
            $0.repoSearchClient.search = { query in repos.filter { $0.name == query } }
        }
        let details = app.node.observe { app.search.results.map(\.detailLine) }
        app.search.query = "vapor"
        for await lines in details where lines == ["Written in Swift"] { break }
        let row = app.search.results[0]
        let laterDetails = app.node.observe { app.search.results.map(\.detailLine) }
        app.search.query = "vapor "
        // One live row (same id): the new instance's values are applied, so the detail line that
        // its `onActivate` loaded is back to nil, and `onActivate` does not run again to reload it.
        for await lines in laterDetails where lines == [nil] { break }
        #expect(row.lifetime == .anchored && app.search.results[0].lifetime == .anchored)
        #expect(row.detailLine == nil)
    }

    @Test func withActivationPrefillsTheQuery() async {
        let app = RepoSearchApp(search: RepoSearch().withActivation { $0.query = "swift" }).withAnchor {
            $0.continuousClock = ImmediateClock()
            $0.repoSearchClient.search = { query in repos.filter { $0.name == query } }
        }
        let names = app.node.observe { app.search.results.map(\.repo.name) }
        for await found in names where found == ["swift"] { break }
        #expect(app.search.results.count == 1)
    }
}
