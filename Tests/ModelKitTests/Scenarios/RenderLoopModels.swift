import ModelKit

// A feed app shaped like a SwiftUI one, for the render loop of RenderLoopHarness.swift: a list of rows
// refreshed from a server by id, a filter memoized over it, a starred badge, a detail screen that
// shares its row with the list, a sheet that contributes a preference, and a theme in the environment.

struct FeedThemeKey: ModelEnvironmentKey { static let defaultValue = "light" }
struct FeedDraftsKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelEnvironmentValues {
    var feedTheme: String { get { self[FeedThemeKey.self] } set { self[FeedThemeKey.self] = newValue } }
}

extension ModelPreferenceValues {
    var feedDrafts: Int { get { self[FeedDraftsKey.self] } set { self[FeedDraftsKey.self] = newValue } }
}

/// One row as the server sends it.
struct ServerRow: Sendable {
    var id: Int
    var title: String
    var likes = 0
    var isStarred = false
}

struct FeedRow: Model, Equatable {
    let id: Int
    var node = ModelNode<Self>()
    @Tracked var title: String
    @Tracked var likes: Int
    @Tracked var isStarred: Bool
    /// Alive while this instance (or the live row it became) is: shows when the row was freed.
    let token: LifetimeTracker.Token?

    init(_ row: ServerRow, token: LifetimeTracker.Token? = nil) {
        self.id = row.id
        self.title = row.title
        self.likes = row.likes
        self.isStarred = row.isStarred
        self.token = token
    }

    var theme: String { node.environment.feedTheme }

    /// Likes the row `times` times from a task of its own, then calls `done`.
    func likeInBackground(times: Int, done: @escaping @Sendable () -> Void) {
        node.task {
            for _ in 0..<times { likes += 1 }
            done()
        }
    }

    /// Renames the row and sets its likes in one commit.
    func publish(version: Int) {
        node.transaction {
            title = "row \(id) v\(version)"
            likes = version
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$likes)
        r.track(\.$isStarred)
    }
}

struct FeedDetail: Model, Equatable {
    var node = ModelNode<Self>()
    @Tracked var row: FeedRow
    @Tracked var note = ""

    init(row: FeedRow) {
        self.row = row
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$row)
        r.track(\.$note)
    }
}

struct FeedSheet: Model, Equatable {
    var node = ModelNode<Self>()
    @Tracked var draft = ""
    let token: LifetimeTracker.Token?

    init(token: LifetimeTracker.Token? = nil) {
        self.token = token
    }

    /// Sets the draft and the app's count of unsaved drafts in one commit.
    func type(_ text: String) {
        node.transaction {
            draft = text
            node.preference.feedDrafts = text.isEmpty ? 0 : 1
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$draft)
    }
}

struct FeedApp: Model, Equatable {
    var node = ModelNode<Self>()
    @Tracked var rows: [FeedRow] = []
    @Tracked var query = ""
    @Tracked var detail: FeedDetail? = nil
    @Tracked var sheet: FeedSheet? = nil

    init(rows: [ServerRow] = []) {
        self.rows = rows.map { FeedRow($0) }
    }

    /// The rows whose title contains the query (all of them for an empty query).
    var visibleRows: [FeedRow] {
        node.memoize { query.isEmpty ? rows : rows.filter { $0.title.contains(query) } }
    }

    var starredCount: Int {
        node.memoize(for: "starred") { rows.reduce(0) { $0 + ($1.isStarred ? 1 : 0) } }
    }

    func row(_ id: Int) -> FeedRow? { rows.first { $0.id == id } }

    func open(_ id: Int) { detail = row(id).map { FeedDetail(row: $0) } }

    func delete(_ id: Int) { rows.removeAll { $0.id == id } }

    /// Replaces the rows with what the server sent: rows with a known id continue the live ones.
    func refresh(from server: [ServerRow]) { rows = server.map { FeedRow($0) } }

    func star(_ ids: [Int]) {
        node.transaction {
            for id in ids { row(id)?.isStarred = true }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$rows)
        r.track(\.$query)
        r.track(\.$detail)
        r.track(\.$sheet)
    }
}

extension ServerRow {
    /// Rows `0..<count`, titled "row <id>".
    static func page(_ count: Int) -> [ServerRow] {
        (0..<count).map { ServerRow(id: $0, title: "row \($0)") }
    }
}

// MARK: - Views

/// The views of the feed app, as SwiftUI bodies over the models: each reads what it shows.
enum FeedViews {
    static func app(_ app: FeedApp) -> Rendered {
        var children = [ChildView(key: "toolbar", app, toolbar), ChildView(key: "list", app, list)]
        if let detail = app.detail { children.append(ChildView(key: "detail", detail, Self.detail)) }
        if let sheet = app.sheet { children.append(ChildView(key: "sheet", sheet, Self.sheet)) }
        return Rendered(text: "feed", children: children)
    }

    static func toolbar(_ app: FeedApp) -> Rendered {
        Rendered(text: "★\(app.starredCount) drafts \(app.node.preference.feedDrafts) query \(app.query)")
    }

    static func list(_ app: FeedApp) -> Rendered {
        let rows = app.visibleRows
        return Rendered(
            text: "\(rows.count) rows",
            children: rows.map { ChildView(key: "\($0.id)", $0, row) }
        )
    }

    static func row(_ row: FeedRow) -> Rendered {
        Rendered(text: "\(row.title) ♥\(row.likes)\(row.isStarred ? " ★" : "") [\(row.theme)]")
    }

    static func detail(_ detail: FeedDetail) -> Rendered {
        let row = detail.row
        return Rendered(text: "\(row.title) ♥\(row.likes) note \(detail.note) [\(row.theme)]")
    }

    static func sheet(_ sheet: FeedSheet) -> Rendered {
        Rendered(text: "draft \(sheet.draft)")
    }
}
