import Foundation
import ModelKit

/// The list of standups, loaded from ``DataManager`` when it activates, with the form that adds one.
///
/// When the stored data cannot be decoded, the list offers to load mock data instead
/// (``Destination/dataFailedToLoad(confirmLoadMockData:)``). Nothing is saved until the user answers,
/// so the unreadable file is left as it is.
struct StandupsList: Model {
    /// What the list shows over itself.
    enum Destination: ModelContainer, Sendable {
        case add(form: StandupForm, add: @Sendable (Standup) -> Void, dismiss: @Sendable () -> Void)
        case dataFailedToLoad(confirmLoadMockData: @Sendable () -> Void)

        func visit(_ visitor: inout ContainerVisitor) {
            if case .add(let form, _, _) = self { visitor.visit(form) }
        }
    }

    var node = ModelNode<Self>()
    @Tracked var standupDetails: [StandupDetail]
    @Tracked var destination: Destination?

    init(standupDetails: [StandupDetail] = [], destination: Destination? = nil) {
        self.standupDetails = standupDetails
        self.destination = destination
    }

    func onActivate() {
        do {
            let data = try node.dataManager.load(.standups)
            let standups = try JSONDecoder().decode([Standup].self, from: data)
            standupDetails = standups.map { StandupDetail(standup: $0) }
        } catch is DecodingError {
            destination = .dataFailedToLoad(confirmLoadMockData: {
                standupDetails = [Standup.mock, .designMock, .engineeringMock].map { StandupDetail(standup: $0) }
            })
        } catch {
            // No data yet (or unreadable for another reason): start with an empty list.
        }
    }

    /// The add form for `standup`. Adding drops attendees with blank names (keeping the first one if
    /// all are blank), appends the standup and closes the form.
    func addDestination(for standup: Standup) -> Destination {
        .add(
            form: StandupForm(standup: standup),
            add: { standup in
                var standup = standup
                let original = standup.attendees
                standup.attendees.removeAll { $0.name.allSatisfy(\.isWhitespace) }
                if standup.attendees.isEmpty {
                    standup.attendees.append(original.first ?? Attendee(id: Attendee.ID(node.uuid())))
                }
                node.transaction {
                    standupDetails.append(StandupDetail(standup: standup))
                    destination = nil
                }
            },
            dismiss: { destination = nil }
        )
    }

    func addStandupButtonTapped() {
        destination = addDestination(for: Standup(id: Standup.ID(node.uuid())))
    }

    func dismissAddStandupButtonTapped() {
        destination = nil
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("standupDetails", \.$standupDetails)
        r.track("destination", \.$destination)
    }
}

extension StandupsList.Destination {
    var add: (form: StandupForm, add: @Sendable (Standup) -> Void, dismiss: @Sendable () -> Void)? {
        guard case .add(let form, let add, let dismiss) = self else { return nil }
        return (form, add, dismiss)
    }

    var dataFailedToLoad: (@Sendable () -> Void)? {
        guard case .dataFailedToLoad(let confirmLoadMockData) = self else { return nil }
        return confirmLoadMockData
    }
}
