import ModelKit

/// How many open forms hold edits not saved yet, counted up the hierarchy: each ``StandupForm``
/// with edits contributes 1, and ``AppFeature`` reads the sum for the screen's status line.
struct UnsavedEditsKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelPreferenceValues {
    var unsavedEdits: Int {
        get { self[UnsavedEditsKey.self] }
        set { self[UnsavedEditsKey.self] = newValue }
    }
}

extension StandupForm {
    /// Contributes to ``ModelPreferenceValues/unsavedEdits`` while the standup differs from what the
    /// form started with. Called by the form's owner when the form activates.
    func trackUnsavedEdits() {
        let original = standup
        node.onChange(of: standup != original) { _, isEdited in
            if isEdited {
                node.preference.unsavedEdits = 1
            } else {
                node.removePreference(\.unsavedEdits)
            }
        }
    }
}

extension AppFeature {
    /// How many open forms hold unsaved edits (0 or 1 in this app, which shows one form at a time).
    var unsavedEdits: Int { node.preference.unsavedEdits }
}

extension StandupForm {
    /// Whether the form holds edits not saved yet.
    var hasUnsavedEdits: Bool { node.preference.unsavedEdits > 0 }
}
