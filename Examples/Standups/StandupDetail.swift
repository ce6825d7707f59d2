import Foundation
import ModelKit

/// One standup's screen: its details and past meetings, with buttons to edit it, delete it and
/// start a meeting.
///
/// Deleting and starting a meeting concern the app around it (the list, the navigation path), so
/// the detail sends an ``Event`` that ``AppFeature`` handles.
struct StandupDetail: Model {
    /// What the detail asks of the app.
    enum Event: Hashable, Sendable {
        case deleteStandup
        case startMeeting
    }

    /// What the detail shows over itself: alerts and the edit form.
    enum Destination: ModelContainer, Sendable {
        case speechRecognitionRestricted(continue: @Sendable () -> Void)
        case deleteStandup(confirm: @Sendable () -> Void)
        case speechRecognitionDenied(continue: @Sendable () -> Void, openSettings: @Sendable () -> Void)
        case edit(form: StandupForm, save: @Sendable (Standup) -> Void, discard: @Sendable () -> Void)

        func visit(_ visitor: inout ContainerVisitor) {
            if case .edit(let form, _, _) = self { visitor.visit(form) }
        }
    }

    var node = ModelNode<Self>()
    @Tracked fileprivate(set) var destination: Destination?
    @Tracked var standup: Standup

    /// The standup's id: a detail is the same model for as long as it shows the same standup.
    var id: Standup.ID { standup.id }

    init(destination: Destination? = nil, standup: Standup) {
        self.destination = destination
        self.standup = standup
    }

    func deleteButtonTapped() {
        destination = .deleteStandup(confirm: { node.send(.deleteStandup) })
    }

    func deleteMeetings(atOffsets indices: IndexSet) {
        standup.meetings.remove(atOffsets: indices)
    }

    func editButtonTapped() {
        destination = .edit(
            form: StandupForm(standup: standup).withActivation { $0.trackUnsavedEdits() },
            save: { edited in
                node.transaction {
                    standup = edited
                    destination = nil
                }
            },
            discard: { destination = nil }
        )
    }

    func startMeetingButtonTapped() {
        switch node.speechClient.authorizationStatus() {
        case .notDetermined, .authorized:
            node.send(.startMeeting)
        case .denied:
            destination = .speechRecognitionDenied(
                continue: { node.send(.startMeeting) },
                openSettings: { node.task { await node.openSettings() } }
            )
        case .restricted:
            destination = .speechRecognitionRestricted(continue: { node.send(.startMeeting) })
        }
    }

    /// Closes the alert shown (what any of an alert's buttons does before its action).
    func alertDismissed() {
        destination = nil
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("destination", \.$destination)
        r.track("standup", \.$standup)
    }
}

extension StandupDetail.Destination {
    var speechRecognitionRestricted: (@Sendable () -> Void)? {
        guard case .speechRecognitionRestricted(let `continue`) = self else { return nil }
        return `continue`
    }

    var deleteStandup: (@Sendable () -> Void)? {
        guard case .deleteStandup(let confirm) = self else { return nil }
        return confirm
    }

    var speechRecognitionDenied: (continue: @Sendable () -> Void, openSettings: @Sendable () -> Void)? {
        guard case .speechRecognitionDenied(let `continue`, let openSettings) = self else { return nil }
        return (`continue`, openSettings)
    }

    var edit: (form: StandupForm, save: @Sendable (Standup) -> Void, discard: @Sendable () -> Void)? {
        guard case .edit(let form, let save, let discard) = self else { return nil }
        return (form, save, discard)
    }
}
