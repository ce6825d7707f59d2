import ModelKit

// An inventory and contacts app with navigation as an app team writes it against API.md: a stack of
// screens held as an array of enum destinations (push, pop, pop to root, replace, deep links), each
// screen polling the server while it is shown; an edit form presented as a sheet (an optional enum),
// with validation, undo of its own, a save in flight and a nested supplier picker sheet; a delete
// confirmation dialog; an "editing" flag and a theme in the environment, and the number of forms
// with unsaved changes folded up as a preference. Used by the Navigation*ScenarioTests suites.

struct NavItem: Sendable, Equatable {
    var id: Int
    var name: String
    var stock: Int
    var supplier: String = ""
}

/// The server.
struct NavAPI: Sendable {
    /// Which server this is ("live", "test", "preview"): shown on the screens that use it.
    var label: String
    var fetchStock: @Sendable (_ itemID: Int) async throws -> Int
    var save: @Sendable (NavItem) async throws -> Void
    var suppliers: @Sendable (_ query: String) async throws -> [String] = { _ in [] }
}

extension NavAPI: DependencyKey {
    static let liveValue = NavAPI(label: "live", fetchStock: { _ in 0 }, save: { _ in })
    static let testValue = NavAPI(label: "test", fetchStock: { _ in 0 }, save: { _ in })
    /// Canned answers for a sheet shown as a preview: nothing reaches the server.
    static let previewValue = NavAPI(
        label: "preview", fetchStock: { _ in 99 }, save: { _ in }, suppliers: { _ in ["Preview Co"] }
    )
}

extension DependencyValues {
    var navAPI: NavAPI { get { self[NavAPI.self] } set { self[NavAPI.self] = newValue } }
}

struct NavEditingKey: ModelEnvironmentKey { static let defaultValue = false }
struct NavThemeKey: ModelEnvironmentKey { static let defaultValue = "light" }
struct NavUnsavedFormsKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelEnvironmentValues {
    var navIsEditing: Bool { get { self[NavEditingKey.self] } set { self[NavEditingKey.self] = newValue } }
    var navTheme: String { get { self[NavThemeKey.self] } set { self[NavThemeKey.self] = newValue } }
}

extension ModelPreferenceValues {
    var navUnsavedForms: Int {
        get { self[NavUnsavedFormsKey.self] } set { self[NavUnsavedFormsKey.self] = newValue }
    }
}

// MARK: Screens of the stack

/// An item's screen. Every push is a new screen (default id), so one item can be pushed twice.
struct NavItemScreen: Model {
    var node = ModelNode<Self>()
    let itemID: Int
    @Tracked var stock: Int?
    @Tracked var refreshes = 0
    /// A form edited inline on the screen (its unsaved changes count as the sheet's do).
    @Tracked var quickEdit: NavEditForm?

    init(itemID: Int) { self.itemID = itemID }

    /// Loads the stock, then reloads it every five seconds while the screen is shown.
    func onActivate() {
        node.forEach(node.event(fromType: NavEditForm.self)) { _, form in
            if form == quickEdit { quickEdit = nil }
        }
        // The polling's schedule starts when the screen is shown. Started after the first load, it
        // would start late whenever the clock moved between the load's write and the timer's creation
        // (a test that sees the stock and advances the clock at once).
        let polls = node.continuousClock.timer(interval: .seconds(5))
        node.task {
            stock = try await node.navAPI.fetchStock(itemID)
            for try await _ in polls {
                stock = try await node.navAPI.fetchStock(itemID)
                refreshes += 1
            }
        }
    }

    /// How the screen's header looks: the theme and editing flag set at the root of the stack.
    var header: String {
        "#\(itemID) \(node.environment.navTheme)\(node.environment.navIsEditing ? " editing" : "")"
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$stock)
        r.track(\.$refreshes)
        r.track(\.$quickEdit)
    }

    func quickEditTapped(_ item: NavItem) { quickEdit = NavEditForm(item: item) }
}

/// A contact's screen, identified by the contact: the same contact is one screen.
struct NavContactScreen: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var name: String
    @Tracked var presenceChecks = 0

    init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    func onActivate() {
        node.forEach(node.continuousClock.timer(interval: .seconds(1))) { _ in presenceChecks += 1 }
    }

    var header: String { "\(name) \(node.environment.navTheme)" }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$presenceChecks)
    }
}

/// A screen of the stack.
enum NavDestination: ModelContainer, Sendable {
    case item(NavItemScreen)
    case contact(NavContactScreen)

    var item: NavItemScreen? {
        if case .item(let screen) = self { return screen }
        return nil
    }

    var contact: NavContactScreen? {
        if case .contact(let screen) = self { return screen }
        return nil
    }

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .item(let screen): visitor.visit(screen)
        case .contact(let screen): visitor.visit(screen)
        }
    }
}

// MARK: Sheets and dialogs

/// A sheet over the edit form: searches suppliers as the query changes.
struct NavSupplierPicker: Model {
    enum Event: Sendable, Equatable {
        case picked(String)
        case dismissed
    }

    var node = ModelNode<Self>()
    @Tracked var query = ""
    @Tracked var results: [String] = []

    func onActivate() {
        node.task(id: query) { query in
            results = try await node.navAPI.suppliers(query)
        }
    }

    func pick(_ supplier: String) { node.send(.picked(supplier)) }
    func closeTapped() { node.send(.dismissed) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$query)
        r.track(\.$results)
    }
}

/// An item's edit form, shown as a sheet or inline on an item's screen. It asks its presenter to
/// close it by sending an event. `Equatable` is identity (Models.md): presenters compare the form
/// that sent an event with the one they show.
struct NavEditForm: Model, Equatable {
    enum Event: Sendable, Equatable {
        case cancelled
        case saved(NavItem)
    }

    var node = ModelNode<Self>()
    let id: Int
    /// The item as presented. Tracked rather than a `let`: presenting the form again for an item
    /// changed since continues this form (same id), and its handlers, running with the first
    /// instance as `self`, must compare with the new values (Hierarchy.md, "Same-id continuity").
    @Tracked private(set) var original: NavItem
    @Tracked var name: String
    @Tracked var stock: Int
    @Tracked var supplier: String
    @Tracked var nameError: String?
    @Tracked var isSaving = false
    @Tracked var saveError: String?
    @Tracked var supplierPicker: NavSupplierPicker?

    init(item: NavItem) {
        id = item.id
        original = item
        name = item.name
        stock = item.stock
        supplier = item.supplier
    }

    var draft: NavItem { NavItem(id: id, name: name, stock: stock, supplier: supplier) }

    /// Whether the draft differs from the item it edits.
    var isDirty: Bool { node.memoize { draft != original } }

    /// Whether "Save" is enabled.
    var canSave: Bool { node.memoize { !name.isEmpty && stock >= 0 && !isSaving } }

    func onActivate() {
        node.trackUndo(\.name, \.stock, \.supplier)
        node.onChange(of: name.isEmpty, initial: true) { _, isEmpty in
            nameError = isEmpty ? "A name is required" : nil
        }
        node.onChange(of: isDirty, initial: true) { _, isDirty in
            if isDirty {
                node.preference.navUnsavedForms = 1
            } else {
                node.removePreference(\.navUnsavedForms)
            }
        }
        node.forEach(node.event(fromType: NavSupplierPicker.self)) { event, _ in
            switch event {
            case .picked(let picked):
                node.transaction {
                    supplier = picked
                    supplierPicker = nil
                }
            case .dismissed:
                supplierPicker = nil
            }
        }
    }

    func chooseSupplierTapped() { supplierPicker = NavSupplierPicker() }
    func undoTapped() { node.undoStack.undo() }
    func redoTapped() { node.undoStack.redo() }
    func cancelTapped() { node.send(.cancelled) }

    /// Saves through the API, then asks to be closed. Does nothing while "Save" is disabled.
    func saveTapped() {
        guard canSave else { return }
        isSaving = true
        let item = draft
        node.task {
            try await node.navAPI.save(item)
            isSaving = false
            node.send(.saved(item))
        } catch: { error in
            node.transaction {
                isSaving = false
                saveError = "\(error)"
            }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$original, options: .private)
        r.track(\.$name)
        r.track(\.$stock)
        r.track(\.$supplier)
        r.track(\.$nameError)
        r.track(\.$isSaving, options: .transient)
        r.track(\.$saveError, options: .transient)
        r.track(\.$supplierPicker)
    }
}

/// "Delete this item?" with two buttons.
struct NavConfirmDialog: Model {
    enum Event: Sendable, Equatable {
        case confirmed(itemID: Int)
        case cancelled
    }

    var node = ModelNode<Self>()
    let itemID: Int

    func confirmTapped() { node.send(.confirmed(itemID: itemID)) }
    func cancelTapped() { node.send(.cancelled) }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// What the stack presents over itself.
enum NavSheet: ModelContainer, Sendable {
    case edit(NavEditForm)
    case contactPreview(NavContactScreen)

    var edit: NavEditForm? {
        if case .edit(let form) = self { return form }
        return nil
    }

    var contactPreview: NavContactScreen? {
        if case .contactPreview(let screen) = self { return screen }
        return nil
    }

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .edit(let form): visitor.visit(form)
        case .contactPreview(let screen): visitor.visit(screen)
        }
    }
}

enum NavAlert: ModelContainer, Sendable {
    case confirmDelete(NavConfirmDialog)
    case message(String)

    var confirmDelete: NavConfirmDialog? {
        if case .confirmDelete(let dialog) = self { return dialog }
        return nil
    }

    func visit(_ visitor: inout ContainerVisitor) {
        if case .confirmDelete(let dialog) = self { visitor.visit(dialog) }
    }
}

// MARK: The app

/// The root: the inventory, a navigation stack over it, a sheet and an alert.
struct NavApp: Model {
    var node = ModelNode<Self>()
    @Tracked var items: [Int: NavItem]
    @Tracked var path: [NavDestination] = []
    @Tracked var sheet: NavSheet?
    @Tracked var alert: NavAlert?

    init(items: [NavItem] = NavApp.sampleItems) {
        self.items = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
    }

    static let sampleItems = [
        NavItem(id: 1, name: "Bolts", stock: 40, supplier: "Acme"),
        NavItem(id: 2, name: "Nuts", stock: 12),
    ]

    func onActivate() {
        node.forEach(node.event(fromType: NavEditForm.self)) { event, form in
            guard form == sheet?.edit else { return }
            switch event {
            case .cancelled:
                sheet = nil
            case .saved(let item):
                node.transaction {
                    items[item.id] = item
                    sheet = nil
                }
            }
        }
        node.forEach(node.event(fromType: NavConfirmDialog.self)) { event, _ in
            node.transaction {
                if case .confirmed(let itemID) = event {
                    items[itemID] = nil
                    path.removeAll { $0.item?.itemID == itemID }
                }
                alert = nil
            }
        }
    }

    var hasUnsavedChanges: Bool { node.preference.navUnsavedForms > 0 }

    // Navigation
    func pushItem(_ itemID: Int) { path.append(.item(NavItemScreen(itemID: itemID))) }
    func pushContact(_ id: Int, name: String) { path.append(.contact(NavContactScreen(id: id, name: name))) }
    func pop() { if !path.isEmpty { path.removeLast() } }
    func popToRoot() { path.removeAll() }

    /// Opens a link such as `"item/1/contact/7/item/2"`: the whole stack at once.
    func open(link: String) {
        let parts = link.split(separator: "/")
        var screens: [NavDestination] = []
        for index in stride(from: 0, to: parts.count - 1, by: 2) {
            guard let id = Int(parts[index + 1]) else { continue }
            switch parts[index] {
            case "item": screens.append(.item(NavItemScreen(itemID: id)))
            case "contact": screens.append(.contact(NavContactScreen(id: id, name: "Contact \(id)")))
            default: continue
            }
        }
        path = screens
    }

    // Editing
    func setEditing(_ isEditing: Bool) { node.environment.navIsEditing = isEditing }

    /// Presents the edit form of an item; with `preview`, the form talks to the preview server only.
    func editTapped(_ itemID: Int, preview: Bool = false) {
        guard let item = items[itemID] else { return }
        sheet = .edit(NavEditForm(item: item).withDependencies {
            $0.undoStack = ModelUndoStack()
            if preview { $0.navAPI = .previewValue }
        })
    }

    func deleteTapped(_ itemID: Int) {
        alert = .confirmDelete(NavConfirmDialog(itemID: itemID))
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$items)
        r.track(\.$path)
        r.track(\.$sheet)
        r.track(\.$alert)
    }
}
