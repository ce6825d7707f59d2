import ModelKit

// An offline-first issue tracker, written as an app team writes it against API.md: projects →
// issues → comments edited locally, an outbox of pending mutations built from `modifications`, a
// sync task that pushes it to a server actor with retries and backoff on the clock, and server
// refreshes that bring the same ids back, merged field by field.

enum TrkStatus: String, Sendable, Equatable { case open, inProgress, done }

/// What a push or a refresh carries: the whole document, flattened.
struct TrkServerComment: Sendable, Equatable { var id: Int; var body: String }
struct TrkServerIssue: Sendable, Equatable {
    var id: Int
    var title: String
    var status: TrkStatus
    var estimate: Int
    var comments: [TrkServerComment]
}
struct TrkServerProject: Sendable, Equatable { var id: Int; var name: String; var issues: [TrkServerIssue] }

enum TrkServerError: Error, Equatable { case unavailable }

/// The server: an actor holding the projects, with a latency taken on the clock it is given and
/// failures a test injects.
actor TrkServer {
    private(set) var projects: [TrkServerProject]
    /// The paths of each push it accepted, in order.
    private(set) var pushes: [[String]] = []
    private(set) var revision = 0
    private var latency: Duration = .zero
    private var failuresLeft = 0
    private let clock: any Clock<Duration>
    private let onPush: @Sendable ([String]) -> Void

    init(
        projects: [TrkServerProject] = [], clock: any Clock<Duration>,
        onPush: @escaping @Sendable ([String]) -> Void = { _ in }
    ) {
        self.projects = projects
        self.clock = clock
        self.onPush = onPush
    }

    func setLatency(_ latency: Duration) { self.latency = latency }
    func failNext(_ count: Int) { failuresLeft = count }
    /// Someone else edits on the server.
    func edit(_ change: @Sendable (inout [TrkServerProject]) -> Void) { change(&projects) }

    func push(paths: [String], document: [TrkServerProject]) async throws -> Int {
        if latency > .zero { try await clock.sleep(for: latency) }
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw TrkServerError.unavailable
        }
        pushes.append(paths)
        onPush(paths)
        projects = document
        revision += 1
        return revision
    }

    func fetch() async throws -> [TrkServerProject] {
        if latency > .zero { try await clock.sleep(for: latency) }
        return projects
    }
}

struct TrkBackend: Sendable {
    var server: TrkServer
}

extension TrkBackend: DependencyKey {
    static let liveValue = TrkBackend(server: TrkServer(clock: ContinuousClock()))
}

extension DependencyValues {
    var trkBackend: TrkBackend { get { self[TrkBackend.self] } set { self[TrkBackend.self] = newValue } }
}

struct TrkComment: Model {
    let id: Int
    var node = ModelNode<Self>()
    @Tracked var body: String

    init(id: Int, body: String) {
        self.id = id
        self.body = body
    }

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$body)
    }
}

struct TrkIssue: Model {
    let id: Int
    var node = ModelNode<Self>()
    @Tracked var title: String
    @Tracked var status: TrkStatus
    @Tracked var estimate: Int
    @Tracked var comments: [TrkComment]
    /// Whether the user changed the title since the last push: local wins for it in a merge.
    @Tracked var titleEdited = false
    /// How many drafts of the title the issue saved locally (its own task, debounced).
    @Tracked var draftsSaved = 0
    /// What the issue's draft task last wrote.
    @Tracked var draft = ""

    init(id: Int, title: String, status: TrkStatus = .open, estimate: Int = 0, comments: [TrkComment] = []) {
        self.id = id
        self.title = title
        self.status = status
        self.estimate = estimate
        self.comments = comments
        self.draft = title
    }

    func onActivate() {
        node.trackUndo(\.title, \.status, \.estimate, \.comments)
        // A local draft of the title, half a second after the last keystroke.
        node.task(id: title) { title in
            guard title != withUntrackedModelReads({ draft }) else { return }
            try await node.continuousClock.sleep(for: .milliseconds(500))
            node.transaction {
                draft = title
                draftsSaved += 1
            }
        }
    }

    func rename(_ newTitle: String) {
        node.transaction {
            title = newTitle
            titleEdited = true
        }
    }

    func addComment(id: Int, _ body: String) { comments.append(TrkComment(id: id, body: body)) }

    var server: TrkServerIssue {
        TrkServerIssue(id: id, title: title, status: status, estimate: estimate,
                       comments: comments.map { TrkServerComment(id: $0.id, body: $0.body) })
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$status)
        r.track(\.$estimate)
        r.track(\.$comments)
        r.track(\.$titleEdited, options: .transient)
        r.track(\.$draftsSaved, options: .transient)
        r.track(\.$draft, options: .transient)
    }
}

struct TrkProject: Model {
    let id: Int
    var node = ModelNode<Self>()
    @Tracked var name: String
    @Tracked var issues: [TrkIssue]

    init(id: Int, name: String, issues: [TrkIssue] = []) {
        self.id = id
        self.name = name
        self.issues = issues
    }

    func onActivate() { node.trackUndo(\.name, \.issues) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$issues)
    }
}

/// The editable subtree: what the outbox watches.
struct TrkWorkspace: Model {
    var node = ModelNode<Self>()
    @Tracked var projects: [TrkProject]

    init(projects: [TrkProject] = []) { self.projects = projects }

    var document: [TrkServerProject] { Self.document(of: projects) }

    static func document(of projects: [TrkProject]) -> [TrkServerProject] {
        projects.map { TrkServerProject(id: $0.id, name: $0.name, issues: $0.issues.map(\.server)) }
    }

    func onActivate() { node.trackUndo(\.projects) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$projects)
    }
}

enum TrkSyncStatus: Sendable, Equatable {
    case idle
    case syncing(attempt: Int)
    case waitingToRetry(attempt: Int)
    case failed(String)
}

struct TrkApp: Model {
    enum SyncID: Hashable, Sendable { case push }

    var node = ModelNode<Self>()
    @Tracked var workspace: TrkWorkspace
    /// The paths of each local commit not pushed yet, in commit order.
    @Tracked var outbox: [String] = []
    @Tracked var syncStatus = TrkSyncStatus.idle
    @Tracked var revision = 0
    /// How many refreshes merged the server's projects.
    @Tracked var refreshes = 0
    /// How many modifications the server's own refreshes made, which the outbox ignores.
    ///
    /// A modification does not say which commit made it, so this is a count: exact while edits and
    /// refreshes come one after the other (as in the Tester suite), approximate when another thread
    /// edits during a refresh (an edit delivered after a refresh committed is taken for it).
    @Tracked var pendingServerCommits = 0

    /// How long the outbox waits after an edit before pushing; each new edit restarts the wait.
    static let pushDelay = Duration.seconds(1)
    static let maxAttempts = 3

    init(workspace: TrkWorkspace = TrkWorkspace()) { self.workspace = workspace }

    func onActivate() {
        node.forEach(workspace.node.modifications()) { modification in
            let fromServer = node.transaction { () -> Bool in
                guard pendingServerCommits == 0 else {
                    pendingServerCommits -= 1
                    return true
                }
                outbox.append(contentsOf: modification.paths)
                return false
            }
            if !fromServer { schedulePush(after: Self.pushDelay) }
        }
    }

    /// Only the latest push counts: a new one cancels the one in flight.
    func schedulePush(after delay: Duration = .zero) {
        node.task {
            if delay > .zero { try await node.continuousClock.sleep(for: delay) }
            try await pushOutbox()
        } catch: { error in
            syncStatus = .failed("\(error)")
        }
        .cancel(for: SyncID.push, cancelInFlight: true)
    }

    func cancelSyncTapped() {
        node.cancelAll(for: SyncID.push)
        syncStatus = .idle
    }

    /// Pushes the outbox, retrying a failure after 1 s, then 2 s, up to `maxAttempts` attempts.
    func pushOutbox() async throws {
        var attempt = 1
        while true {
            let (paths, document) = withUntrackedModelReads { (outbox, workspace.document) }
            guard !paths.isEmpty else { return }
            syncStatus = .syncing(attempt: attempt)
            do {
                let revision = try await node.trkBackend.server.push(paths: paths, document: document)
                // A push cancelled while the server worked leaves the outbox to the push that
                // replaced it.
                try Task.checkCancellation()
                node.transaction {
                    // Edits made while the push was in flight stay for the next push.
                    outbox.removeFirst(min(paths.count, outbox.count))
                    self.revision = revision
                    syncStatus = .idle
                    for project in workspace.projects {
                        for issue in project.issues { issue.titleEdited = false }
                    }
                }
                return
            } catch is TrkServerError where attempt < Self.maxAttempts {
                syncStatus = .waitingToRetry(attempt: attempt)
                try await node.continuousClock.sleep(for: .seconds(1 << (attempt - 1)))
                attempt += 1
            }
        }
    }

    func refreshTapped() {
        node.task {
            let projects = try await node.trkBackend.server.fetch()
            merge(projects)
        }
    }

    /// Merges the server's projects field by field: the server wins for names, statuses and
    /// comments; the local title wins while the user's edit is not pushed, the larger estimate wins.
    func merge(_ server: [TrkServerProject], forgettingUndo: Bool = true) {
        node.transaction {
            let live = Dictionary(
                workspace.projects.flatMap(\.issues).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let merged = server.map { project in
                TrkProject(id: project.id, name: project.name, issues: project.issues.map { incoming in
                    let local = live[incoming.id]
                    let keepTitle = local?.titleEdited ?? false
                    let issue = TrkIssue(
                        id: incoming.id,
                        title: keepTitle ? local!.title : incoming.title,
                        status: incoming.status,
                        estimate: max(incoming.estimate, local?.estimate ?? 0),
                        comments: incoming.comments.map { TrkComment(id: $0.id, body: $0.body) })
                    // The new instance's transient values are applied too: carry the live ones over.
                    issue.titleEdited = keepTitle
                    issue.draftsSaved = local?.draftsSaved ?? 0
                    issue.draft = local?.draft ?? ""
                    return issue
                })
            }
            if workspace.document != TrkWorkspace.document(of: merged) {
                pendingServerCommits += 1
            }
            workspace.projects = merged
            refreshes += 1
        }
        // The user does not undo past what the server says.
        if forgettingUndo { node.undoStack.removeAll() }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$workspace)
        r.track(\.$outbox, options: .transient)
        r.track(\.$syncStatus, options: .transient)
        r.track(\.$revision, options: .transient)
        r.track(\.$refreshes, options: .transient)
        r.track(\.$pendingServerCommits, options: [.private, .transient])
    }
}
