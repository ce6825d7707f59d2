import Foundation
import ModelKit

// SwiftModel's Search example, ported to ModelKit: a GitHub repository search that runs 300 ms after
// the last keystroke and cancels the search in flight, rows that load a detail line after they
// appear, a filter sheet that saves its settings on every change and sorts or filters the results
// when dismissed, a detail sheet, and a deep link that sets the query.

struct RepoSearchRepo: Sendable, Equatable {
    var id: Int
    var name: String
    var owner: String
    var stars: Int
    var language: String?
}

struct RepoSearchError: Error, Equatable {
    var message: String
}

struct RepoSearchClient: Sendable {
    var search: @Sendable (String) async throws -> [RepoSearchRepo]
}

extension RepoSearchClient: DependencyKey {
    static let liveValue = RepoSearchClient { _ in [] }
}

/// Where the filter's settings are saved (user defaults, in the app).
struct RepoSearchSettingsStore: Sendable {
    var save: @Sendable (_ sortBy: RepoSearchSort, _ language: String) -> Void
}

extension RepoSearchSettingsStore: DependencyKey {
    static let liveValue = RepoSearchSettingsStore { _, _ in }
    static let testValue = RepoSearchSettingsStore { _, _ in }
}

extension DependencyValues {
    var repoSearchClient: RepoSearchClient {
        get { self[RepoSearchClient.self] }
        set { self[RepoSearchClient.self] = newValue }
    }
    var repoSearchSettings: RepoSearchSettingsStore {
        get { self[RepoSearchSettingsStore.self] }
        set { self[RepoSearchSettingsStore.self] = newValue }
    }
}

enum RepoSearchSort: String, Sendable, Equatable {
    case stars, name
}

/// The filter sheet: saves its settings whenever any of them changes.
struct RepoSearchFilter: Model {
    var node = ModelNode<Self>()
    @Tracked var sortBy = RepoSearchSort.stars
    @Tracked var language = ""

    func onActivate() {
        node.forEach(node.modifications(of: .self)) { _ in
            node.repoSearchSettings.save(sortBy, language)
        }
    }

    func clearLanguage() { language = "" }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$sortBy)
        r.track(\.$language)
    }
}

/// One row of results: loads its detail line once it has appeared (200 ms, on the clock).
struct RepoSearchResult: Model {
    var node = ModelNode<Self>()
    let repo: RepoSearchRepo
    @Tracked var detailLine: String?
    @Tracked var isExpanded = false

    var id: Int { repo.id }

    init(repo: RepoSearchRepo) { self.repo = repo }

    func onActivate() {
        node.task {
            try await node.continuousClock.sleep(for: .milliseconds(200))
            detailLine = repo.language.map { "Written in \($0)" } ?? "Language unknown"
        }
    }

    func toggleExpanded() { isExpanded.toggle() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$detailLine)
        r.track(\.$isExpanded)
    }
}

struct RepoSearchDetail: Model {
    var node = ModelNode<Self>()
    let repo: RepoSearchRepo

    init(repo: RepoSearchRepo) { self.repo = repo }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

struct RepoSearch: Model {
    var node = ModelNode<Self>()
    @Tracked var query = ""
    @Tracked var results: [RepoSearchResult] = []
    @Tracked var isSearching = false
    @Tracked var errorMessage: String?
    @Tracked var filter: RepoSearchFilter?
    @Tracked var detail: RepoSearchDetail?

    func onActivate() {
        node.forEach(
            node.observe { query }.debounce(for: .milliseconds(300), clock: node.continuousClock),
            cancelPrevious: true
        ) { query in
            await search(for: query)
        }
    }

    func filterTapped() { filter = filter ?? RepoSearchFilter() }

    func filterDismissed() {
        if let filter { apply(filter) }
        filter = nil
    }

    func resultTapped(_ result: RepoSearchResult) { detail = RepoSearchDetail(repo: result.repo) }
    func detailDismissed() { detail = nil }

    private func search(for query: String) async {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            results = []
            errorMessage = nil
            isSearching = false
            return
        }
        isSearching = true
        errorMessage = nil
        defer { isSearching = false }
        do {
            let repos = try await node.repoSearchClient.search(trimmed)
            results = repos.map { RepoSearchResult(repo: $0) }
        } catch is CancellationError {
            // A newer query took over.
        } catch {
            // The last results stay visible under the message.
            errorMessage = (error as? RepoSearchError)?.message ?? "\(error)"
        }
    }

    private func apply(_ filter: RepoSearchFilter) {
        var sorted = results
        switch filter.sortBy {
        case .stars: sorted.sort { $0.repo.stars > $1.repo.stars }
        case .name: sorted.sort { $0.repo.name < $1.repo.name }
        }
        let language = filter.language.trimmingCharacters(in: .whitespaces).lowercased()
        if !language.isEmpty {
            sorted = sorted.filter { $0.repo.language?.lowercased() == language }
        }
        results = sorted
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$query)
        r.track(\.$results)
        r.track(\.$isSearching)
        r.track(\.$errorMessage)
        r.track(\.$filter)
        r.track(\.$detail)
    }
}

struct RepoSearchApp: Model {
    var node = ModelNode<Self>()
    @Tracked var search: RepoSearch

    init(search: RepoSearch = RepoSearch()) { self.search = search }

    /// `githubsearch://search?q=swift` sets the query.
    func handleURL(_ url: URL) {
        guard url.host == "search",
              let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let query = components.queryItems?.first(where: { $0.name == "q" })?.value
        else { return }
        search.query = query
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$search)
    }
}
