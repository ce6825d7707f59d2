import ModelKit

struct ThemeKey: ModelEnvironmentKey { static let defaultValue = "light" }
struct FontSizeKey: ModelEnvironmentKey { static let defaultValue = 12 }

extension ModelEnvironmentValues {
    var theme: String { get { self[ThemeKey.self] } set { self[ThemeKey.self] = newValue } }
    var fontSize: Int { get { self[FontSizeKey.self] } set { self[FontSizeKey.self] = newValue } }
}

struct UnsavedCountKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

/// Collects titles, to check the fold's order.
struct TitlesKey: ModelPreferenceKey {
    static let defaultValue: [String] = []
    static func reduce(value: inout [String], nextValue: [String]) { value += nextValue }
}

extension ModelPreferenceValues {
    var unsavedCount: Int { get { self[UnsavedCountKey.self] } set { self[UnsavedCountKey.self] = newValue } }
    var titles: [String] { get { self[TitlesKey.self] } set { self[TitlesKey.self] = newValue } }
}

/// A tree of models reading and setting environment values and preferences.
struct Panel: Model {
    var node = ModelNode<Self>()
    let name: String
    @Tracked var children: [Panel] = []
    @Tracked var detail: Panel? = nil

    init(_ name: String, children: [Panel] = []) {
        self.name = name
        self.children = children
    }

    var theme: String {
        get { node.environment.theme }
        nonmutating set { node.environment.theme = newValue }
    }

    var unsavedCount: Int {
        get { node.preference.unsavedCount }
        nonmutating set { node.preference.unsavedCount = newValue }
    }

    var titles: [String] { node.preference.titles }

    func contributeTitle() { node.preference.titles = [name] }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$children)
        r.track(\.$detail)
    }
}
