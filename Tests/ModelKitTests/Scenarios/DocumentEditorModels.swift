import ModelKit

// A document editor as an app team would write it, against the public API only: a workspace with
// open documents in a dictionary, a selection enum, a custom pane container; documents holding
// pages and an optional comment thread. Used by DocumentEditorScenarioTests.

struct DocumentID: Hashable, Comparable, Sendable, CustomStringConvertible {
    let raw: Int
    init(_ raw: Int) { self.raw = raw }
    static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
    var description: String { "doc\(raw)" }
}

/// App-wide events, sent down from the workspace or up from a page.
enum EditorEvent: Sendable, Equatable {
    case saveAll
    case pageEdited(page: Int)
}

struct EditorThemeKey: ModelEnvironmentKey { static let defaultValue = "light" }
struct UnsavedPagesKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}
extension ModelEnvironmentValues {
    var editorTheme: String {
        get { self[EditorThemeKey.self] } set { self[EditorThemeKey.self] = newValue }
    }
}
extension ModelPreferenceValues {
    var unsavedPages: Int {
        get { self[UnsavedPagesKey.self] } set { self[UnsavedPagesKey.self] = newValue }
    }
}

/// Where documents are saved; a test overrides it with a probe.
struct DocumentStore: DependencyKey, Sendable {
    var save: @Sendable (String) -> Void
    static let liveValue = DocumentStore { _ in }
    static let testValue = DocumentStore { _ in }
}

struct Page: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log?
    @Tracked var text: String
    @Tracked var isEdited = false

    init(id: Int, text: String = "", log: Log? = nil) {
        self.id = id
        self.log = log
        self.text = text
    }

    func onActivate() {
        log?.add("activate page\(id)")
        node.onCancel { [log, id] in log?.add("cancel page\(id)") }
        node.onChange(of: \.text) { _, _ in
            isEdited = true
            node.preference.unsavedPages = 1
            node.send(EditorEvent.pageEdited(page: id))
        }
        node.onChange(of: node.environment.editorTheme) { [log, id] _, theme in
            log?.add("page\(id) theme \(theme)")
        }
    }

    /// The documents this page sits in (a page dragged between documents changes it).
    var owners: [DocumentID] {
        node.mapHierarchy(for: .ancestors) { ($0 as? Document)?.id }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
        r.track(\.$isEdited, options: .private)
    }
}

struct CommentThread: Model {
    var node = ModelNode<Self>()
    @Tracked var comments: [String] = []

    func add(_ comment: String) { comments.append(comment) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$comments)
    }
}

struct Document: Model {
    enum Event: Sendable, Equatable {
        case saved(title: String)
    }

    var node = ModelNode<Self>()
    let id: DocumentID
    let log: Log?
    @Tracked var title: String
    @Tracked var pages: [Page]
    @Tracked var comments: CommentThread?
    @Tracked var saveCount = 0
    /// The theme this document last saw, kept by an `onChange` of the environment.
    @Tracked var seenTheme = ""

    init(id: DocumentID, title: String, pages: [Page] = [], comments: CommentThread? = nil, log: Log? = nil) {
        self.id = id
        self.log = log
        self.title = title
        self.pages = pages
        self.comments = comments
    }

    func onActivate() {
        log?.add("activate \(id)")
        node.onCancel { [log, id] in log?.add("cancel \(id)") }
        node.onChange(of: node.environment.editorTheme, initial: true) { _, theme in
            seenTheme = theme
        }
        node.forEach(node.event(of: EditorEvent.saveAll)) { _ in save() }
    }

    func save() {
        node.documentStore.save(title)
        saveCount += 1
        node.send(.saved(title: title))
    }

    /// Saves after five seconds without another call; a new call restarts the wait.
    func scheduleAutosave() {
        node.task {
            try await node.continuousClock.sleep(for: .seconds(5))
            save()
        }
        .cancel(for: AutosaveID.self, cancelInFlight: true)
    }

    func cancelAutosave() { node.cancelAll(for: AutosaveID.self) }

    var unsavedPages: Int { node.preference.unsavedPages }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$pages)
        r.track(\.$comments)
        r.track(\.$saveCount)
        r.track(\.$seenTheme, options: .transient)
    }
}

enum AutosaveID {}

extension DependencyValues {
    var documentStore: DocumentStore {
        get { self[DocumentStore.self] } set { self[DocumentStore.self] = newValue }
    }
}

struct Inspector: Model {
    var node = ModelNode<Self>()
    @Tracked var target = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$target)
    }
}

enum Selection: ModelContainer, Sendable {
    case none
    case document(Document)
    case inspector(Inspector)

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .none: break
        case .document(let document): visitor.visit(document)
        case .inspector(let inspector): visitor.visit(inspector)
        }
    }

    var document: Document? {
        if case .document(let document) = self { return document }
        return nil
    }
}

/// A split pane: the document on the left and the inspector on the right.
struct Pane: ModelContainer, Sendable {
    var left: Document?
    var right: Inspector

    func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(left)
        visitor.visit(right)
    }
}

struct Workspace: Model {
    var node = ModelNode<Self>()
    let log: Log?
    @Tracked var documents: [DocumentID: Document] = [:]
    @Tracked var selection: Selection = .none
    @Tracked var pane: Pane?
    @Tracked var lastSaved: [String] = []
    @Tracked var lastEditedPage: Int?

    init(log: Log? = nil) { self.log = log }

    func onActivate() {
        log?.add("activate workspace")
        node.forEach(node.event(fromType: Document.self)) { event, _ in
            if case .saved(let title) = event { lastSaved.append(title) }
        }
        node.forEach(node.event(ofType: EditorEvent.self)) { event in
            if case .pageEdited(let page) = event { lastEditedPage = page }
        }
    }

    func open(_ document: Document) { documents[document.id] = document }
    func close(_ id: DocumentID) { documents[id] = nil }
    func saveAllTapped() { node.send(EditorEvent.saveAll, to: .descendants) }

    /// Drags a page from one open document to the end of another, in one transaction.
    func dragPage(_ pageID: Int, from source: DocumentID, to target: DocumentID) {
        node.transaction {
            guard let from = documents[source], let to = documents[target],
                  let index = from.pages.firstIndex(where: { $0.id == pageID }) else { return }
            let page = from.pages[index]
            from.pages.remove(at: index)
            to.pages.append(page)
        }
    }

    /// Moves a document out of the open documents into the selection, in one transaction.
    func focus(_ id: DocumentID) {
        node.transaction {
            guard let document = documents[id] else { return }
            documents[id] = nil
            selection = .document(document)
        }
    }

    /// Puts the selected document back among the open documents.
    func unfocus() {
        node.transaction {
            guard let document = selection.document else { return }
            selection = .none
            documents[document.id] = document
        }
    }

    var documentCount: Int {
        node.reduceHierarchy(for: .descendants, into: 0) { count, model in
            if model is Document { count += 1 }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$documents)
        r.track(\.$selection)
        r.track(\.$pane)
        r.track(\.$lastSaved)
        r.track(\.$lastEditedPage)
    }
}
