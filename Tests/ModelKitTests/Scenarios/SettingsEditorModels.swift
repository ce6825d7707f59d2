import ModelKit

// A settings editor as an app team would write it, against the public API only: a settings root
// with sections nested three levels deep (in arrays and in an optional "advanced" slot), each
// holding fields of several kinds in an identified collection, a theme and a locale overridden per
// section, and a count of validation errors folded up the tree. Used by SettingsEditorScenarioTests.

struct SettingsThemeKey: ModelEnvironmentKey { static let defaultValue = "system" }
struct SettingsLocaleKey: ModelEnvironmentKey { static let defaultValue = "en" }
struct ValidationErrorsKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}
extension ModelEnvironmentValues {
    var settingsTheme: String {
        get { self[SettingsThemeKey.self] } set { self[SettingsThemeKey.self] = newValue }
    }
    var settingsLocale: String {
        get { self[SettingsLocaleKey.self] } set { self[SettingsLocaleKey.self] = newValue }
    }
}
extension ModelPreferenceValues {
    var validationErrors: Int {
        get { self[ValidationErrorsKey.self] } set { self[ValidationErrorsKey.self] = newValue }
    }
}

/// A switch.
struct ToggleField: Model {
    var node = ModelNode<Self>()
    let id: String
    @Tracked var isOn: Bool

    init(id: String, isOn: Bool = false) {
        self.id = id
        self.isOn = isOn
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$isOn)
    }
}

/// A text entry; a required one left empty is a validation error.
struct TextEntryField: Model {
    var node = ModelNode<Self>()
    let id: String
    let isRequired: Bool
    @Tracked var text: String
    /// Where the cursor is: UI state, neither a document change nor asserted by a Tester.
    @Tracked var cursor = 0

    init(id: String, text: String = "", isRequired: Bool = false) {
        self.id = id
        self.isRequired = isRequired
        self.text = text
    }

    func onActivate() {
        node.trackUndo(\.text)
        guard isRequired else { return }
        node.onChange(of: text.isEmpty, initial: true) { _, isEmpty in
            if isEmpty {
                node.preference.validationErrors = 1
            } else {
                node.removePreference(\.validationErrors)
            }
        }
    }

    /// The label as shown: the locale and theme of the field's place in the tree.
    var caption: String {
        "\(id)[\(node.environment.settingsLocale)/\(node.environment.settingsTheme)]"
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
        r.track("cursor", \.$cursor, options: [.private, .transient])
    }
}

/// A pick-one list.
struct ChoiceField: Model {
    var node = ModelNode<Self>()
    let id: String
    let options: [String]
    @Tracked var selected: String
    /// The options as shown in the locale of the field's place, kept by a `task(id:)`.
    @Tracked var shownOptions: [String] = []

    init(id: String, options: [String], selected: String) {
        self.id = id
        self.options = options
        self.selected = selected
    }

    func onActivate() {
        node.task(id: node.environment.settingsLocale) { [options] locale in
            shownOptions = options.map { "\(locale):\($0)" }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$selected)
        r.track(\.$shownOptions, options: [.private, .transient])
    }
}

/// One field of a section, of any kind.
enum Field: ModelContainer, Identifiable, Sendable {
    case toggle(ToggleField)
    case text(TextEntryField)
    case choice(ChoiceField)

    var id: String {
        switch self {
        case .toggle(let field): field.id
        case .text(let field): field.id
        case .choice(let field): field.id
        }
    }

    var text: TextEntryField? {
        if case .text(let field) = self { return field }
        return nil
    }

    var toggle: ToggleField? {
        if case .toggle(let field) = self { return field }
        return nil
    }

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .toggle(let field): visitor.visit(field)
        case .text(let field): visitor.visit(field)
        case .choice(let field): visitor.visit(field)
        }
    }
}

struct SettingsSection: Model {
    var node = ModelNode<Self>()
    let id: String
    @Tracked var title: String
    @Tracked var fields: IdentifiedList<Field>
    @Tracked var subsections: [SettingsSection]
    @Tracked var advanced: SettingsSection?

    init(
        id: String, title: String? = nil, fields: [Field] = [],
        subsections: [SettingsSection] = [], advanced: SettingsSection? = nil
    ) {
        self.id = id
        self.title = title ?? id
        self.fields = IdentifiedList(fields)
        self.subsections = subsections
        self.advanced = advanced
    }

    /// The ids of the sections from the root down to this one.
    var path: [String] {
        ([id] + node.mapHierarchy(for: .ancestors) { ($0 as? SettingsSection)?.id }).reversed()
    }

    /// Every field id in this section and below, depth-first.
    var allFieldIDs: [String] {
        node.mapHierarchy(for: .descendants) { model -> String? in
            switch model {
            case let field as ToggleField: field.id
            case let field as TextEntryField: field.id
            case let field as ChoiceField: field.id
            default: nil
            }
        }
    }

    var validationErrors: Int { node.preference.validationErrors }

    func onActivate() {
        node.trackUndo(\.fields, \.subsections, \.advanced)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$fields)
        r.track(\.$subsections)
        r.track(\.$advanced)
    }
}

struct SettingsRoot: Model {
    var node = ModelNode<Self>()
    @Tracked var sections: [SettingsSection]
    /// A section also shown at the top ("pinned"): the same live section in two places.
    @Tracked var pinned: SettingsSection?

    init(sections: [SettingsSection] = [], pinned: SettingsSection? = nil) {
        self.sections = sections
        self.pinned = pinned
    }

    func onActivate() {
        node.trackUndo(\.sections)
    }

    var validationErrors: Int { node.preference.validationErrors }

    /// Drags a field from one section to another in one transaction.
    func dragField(_ id: String, from source: SettingsSection, to target: SettingsSection) {
        node.transaction {
            guard let field = source.fields[id: id] else { return }
            source.fields[id: id] = nil
            target.fields.append(field)
        }
    }

    /// Finds a live section by id anywhere in the tree.
    func section(_ id: String) -> SettingsSection? {
        node.mapHierarchy(for: .descendants) { $0 as? SettingsSection }.first { $0.id == id }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$sections)
        r.track(\.$pinned)
    }

    /// The app's initial tree: general, and privacy with a nested advanced part three levels down.
    static func sample() -> SettingsRoot {
        SettingsRoot(sections: [
            SettingsSection(id: "general", fields: [
                .text(TextEntryField(id: "name", isRequired: true)),
                .toggle(ToggleField(id: "sounds", isOn: true)),
            ]),
            SettingsSection(
                id: "privacy",
                fields: [.choice(ChoiceField(id: "tracking", options: ["ask", "never"], selected: "ask"))],
                subsections: [
                    SettingsSection(
                        id: "sharing",
                        fields: [.text(TextEntryField(id: "email", isRequired: true))],
                        advanced: SettingsSection(id: "keys", fields: [.toggle(ToggleField(id: "rotate"))])
                    ),
                ]
            ),
        ])
    }
}
