import Foundation
import ModelKit

/// The form that adds or edits a standup: its title, length, theme and attendees, and which field
/// has the keyboard focus.
///
/// Its owner decides what "save" means (``StandupsList`` adds the standup, ``StandupDetail``
/// replaces its own): the form only edits ``standup``.
struct StandupForm: Model {
    /// A field that can have the focus.
    enum Field: Hashable, Sendable {
        case attendee(Attendee.ID)
        case title
    }

    var node = ModelNode<Self>()
    @Tracked fileprivate(set) var focus: Field?
    @Tracked var standup: Standup

    init(focus: Field? = .title, standup: Standup) {
        self.focus = focus
        self.standup = standup
    }

    /// A standup needs someone to attend: an empty one gets a first, blank attendee. Edits of the
    /// standup are undoable from then on (the focus is `.transient`, so undo leaves it alone).
    func onActivate() {
        if standup.attendees.isEmpty {
            standup.attendees.append(Attendee(id: Attendee.ID(node.uuid())))
        }
        node.trackUndo()
    }

    /// Whether there is an edit to undo.
    var canUndo: Bool { node.undoStack.canUndo }

    /// Whether there is an undone edit to redo.
    var canRedo: Bool { node.undoStack.canRedo }

    /// Undoes the last edit of the standup.
    func undoTapped() {
        node.undoStack.undo()
    }

    /// Redoes the last undone edit.
    func redoTapped() {
        node.undoStack.redo()
    }

    func addAttendeeButtonTapped() {
        let attendee = Attendee(id: Attendee.ID(node.uuid()))
        standup.attendees.append(attendee)
        focus = .attendee(attendee.id)
    }

    /// Removes attendees and moves the focus to the attendee now at the first removed position (the
    /// last one, if the removal emptied the end). Removing everyone leaves a new blank attendee.
    func deleteAttendees(atOffsets indices: IndexSet) {
        // One undo entry: the removal and the blank attendee that may replace it.
        node.transaction { removeAttendees(atOffsets: indices) }
    }

    private func removeAttendees(atOffsets indices: IndexSet) {
        standup.attendees.remove(atOffsets: indices)
        if standup.attendees.isEmpty {
            standup.attendees.append(Attendee(id: Attendee.ID(node.uuid())))
        }
        guard let firstIndex = indices.first else { return }
        let index = min(firstIndex, standup.attendees.count - 1)
        focus = .attendee(standup.attendees[index].id)
    }

    /// Moves the focus (what tapping a field does).
    func focusChanged(to field: Field?) {
        focus = field
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("focus", \.$focus, options: .transient)
        r.track("standup", \.$standup)
    }
}
