import Foundation
import ModelKit

// A synced todo app, written as an app team writes it against API.md: lists of items with explicit
// ids, a debounced search, a server refresh, autosave, an unsaved count, a theme, undo and events.

struct TodoThemeKey: ModelEnvironmentKey { static let defaultValue = "light" }
struct TodoQueryKey: ModelEnvironmentKey { static let defaultValue = "" }
struct TodoUnsavedKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelEnvironmentValues {
    var todoTheme: String { get { self[TodoThemeKey.self] } set { self[TodoThemeKey.self] = newValue } }
    var todoQuery: String { get { self[TodoQueryKey.self] } set { self[TodoQueryKey.self] = newValue } }
}

extension ModelPreferenceValues {
    var todoUnsaved: Int { get { self[TodoUnsavedKey.self] } set { self[TodoUnsavedKey.self] = newValue } }
}

/// The server: saving takes the app's document as lines (`"Home/Buy milk/done"`).
struct TodoServer: Sendable {
    var save: @Sendable ([String]) async -> Void
}

extension TodoServer: DependencyKey {
    static let liveValue = TodoServer { _ in }
}

extension DependencyValues {
    var todoServer: TodoServer { get { self[TodoServer.self] } set { self[TodoServer.self] = newValue } }
}

enum TodoFilter: String, Sendable, Equatable {
    case all, active, done

    func admits(_ item: TodoItem) -> Bool {
        switch self {
        case .all: true
        case .active: !item.isDone
        case .done: item.isDone
        }
    }
}

struct TodoItem: Model {
    enum Event: Sendable, Equatable { case completed, reopened }

    let id: UUID
    var node = ModelNode<Self>()
    @Tracked var title: String
    @Tracked var isDone: Bool
    /// What the server holds; the item is unsaved while its title differs.
    @Tracked var savedTitle: String
    /// Written by the reminder timer; not part of the document.
    @Tracked var reminders = 0
    @Tracked var isEditing = false

    init(id: UUID, title: String, isDone: Bool = false) {
        self.id = id
        self.title = title
        self.isDone = isDone
        self.savedTitle = title
    }

    var theme: String { node.environment.todoTheme }
    var line: String { "\(title)\(isDone ? "/done" : "")" }

    func onActivate() {
        node.trackUndo(\.title, \.isDone)
        node.forEach(node.continuousClock.timer(interval: .seconds(60))) { _ in
            if !isDone { reminders += 1 }
        }
        node.onChange(of: \.isDone) { _, isDone in
            node.send(isDone ? .completed : .reopened)
        }
        node.onChange(of: title != savedTitle, initial: true) { _, isUnsaved in
            if isUnsaved {
                node.preference.todoUnsaved = 1
            } else {
                node.removePreference(\.todoUnsaved)
            }
        }
    }

    func toggleTapped() { isDone.toggle() }
    func rename(_ newTitle: String) { title = newTitle }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$isDone)
        r.track(\.$savedTitle, options: .transient)
        r.track(\.$reminders, options: .transient)
        r.track(\.$isEditing, options: .transient)
    }
}

struct TodoList: Model {
    let id: UUID
    var node = ModelNode<Self>()
    @Tracked var name: String
    @Tracked var items: [TodoItem]
    @Tracked var filter = TodoFilter.all
    @Tracked var completedCount = 0

    init(id: UUID, name: String, items: [TodoItem] = []) {
        self.id = id
        self.name = name
        self.items = items
    }

    /// The items the filter and the app's search (an environment value) let through.
    var visibleItems: [TodoItem] {
        node.memoize {
            let query = node.environment.todoQuery
            return items.filter { item in
                filter.admits(item) && (query.isEmpty || item.title.lowercased().contains(query.lowercased()))
            }
        }
    }

    var visibleTitles: [String] { visibleItems.map(\.title) }

    func onActivate() {
        node.trackUndo(\.name, \.items)
        node.forEach(node.event(fromType: TodoItem.self)) { event, _ in
            switch event {
            case .completed: completedCount += 1
            case .reopened: completedCount -= 1
            }
        }
    }

    func highContrastToggled() { node.environment.todoTheme = "contrast" }
    func followAppThemeTapped() { node.removeEnvironment(\.todoTheme) }
    func addItem(_ title: String) { items.append(TodoItem(id: node.uuid(), title: title)) }
    func remove(_ item: TodoItem) { items.removeAll { $0.id == item.id } }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$items)
        r.track(\.$filter, options: .transient)
        r.track(\.$completedCount, options: .transient)
    }
}

/// A list as the server sends it.
struct ServerList: Sendable {
    var id: UUID
    var name: String
    var items: [(id: UUID, title: String, isDone: Bool)]
}

struct TodoApp: Model {
    enum SaveID: Hashable, Sendable { case save }

    var node = ModelNode<Self>()
    @Tracked var lists: [TodoList]
    @Tracked var searchText = ""
    @Tracked var activity: [String] = []
    @Tracked var lastSaved: [String] = []
    /// How many debounced rounds of edits autosave has seen.
    @Tracked var autosaveRounds = 0

    /// The app starts from what the server has: `lastSaved` is that document.
    init(lists: [TodoList] = []) {
        self.lists = lists
        self.lastSaved = Self.document(of: lists)
    }

    var unsavedCount: Int { node.preference.todoUnsaved }
    var theme: String { node.environment.todoTheme }
    var document: [String] { Self.document(of: lists) }

    static func document(of lists: [TodoList]) -> [String] {
        lists.flatMap { list in list.items.map { "\(list.name)/\($0.line)" } }
    }

    func onActivate() {
        node.trackUndo(\.lists)
        node.task(id: searchText) { text in
            try await node.continuousClock.sleep(for: .milliseconds(300))
            node.environment.todoQuery = text
        }
        let edits = node.modifications().debounce(for: .seconds(2), clock: node.continuousClock)
        node.forEach(edits) { _ in
            autosaveRounds += 1
            await save()
        }
        node.forEach(node.event(fromType: TodoItem.self)) { event, item in
            if event == .completed { activity.append("done: \(item.title)") }
        }
    }

    /// Saves the document unless the server has it already, then marks every item saved.
    func save() async {
        let document = withUntrackedModelReads { self.document }
        guard document != withUntrackedModelReads({ lastSaved }) else { return }
        await node.todoServer.save(document)
        node.transaction {
            lastSaved = document
            for list in lists {
                for item in list.items { item.savedTitle = item.title }
            }
        }
    }

    /// A save the user asked for: waits a second (the network), cancels one already in flight.
    func saveNowTapped() {
        node.task {
            try await node.continuousClock.sleep(for: .seconds(1))
            await save()
        }
        .cancel(for: SaveID.save, cancelInFlight: true)
    }

    func cancelSavingTapped() { node.cancelAll(for: SaveID.save) }
    func darkModeToggled() { node.environment.todoTheme = theme == "dark" ? "light" : "dark" }
    func undoTapped() { node.undoStack.undo() }
    func redoTapped() { node.undoStack.redo() }

    func refresh(from server: [ServerList]) {
        lists = server.map { list in
            TodoList(id: list.id, name: list.name, items: list.items.map {
                TodoItem(id: $0.id, title: $0.title, isDone: $0.isDone)
            })
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$lists)
        r.track(\.$searchText, options: .transient)
        r.track(\.$activity, options: .transient)
        r.track(\.$lastSaved, options: .transient)
        r.track(\.$autosaveRounds, options: .transient)
    }
}
