import Foundation
import ModelKit
import Synchronization

// A faithful mirror of the Standups example's model tree (Examples/Standups), for the app-shaped
// workload: the same models, tracked properties, edit flow (a detail's edit form with undo, saved
// back in a transaction), load in `StandupsList.onActivate` and debounced autosave in
// `AppFeature.onActivate`. Screens, alerts, meetings recording and file problems are left out.
// (The example is an executable target with internal types; splitting it into a library would mean
// making its API public, file by file, while others edit it.)

enum Mirror {
    struct Standup: Hashable, Identifiable, Codable, Sendable {
        let id: UUID
        var attendees: [Attendee] = []
        var duration: Duration = .seconds(60 * 5)
        var meetings: [String] = []
        var theme = "bubblegum"
        var title = ""
    }

    struct Attendee: Hashable, Identifiable, Codable, Sendable {
        let id: UUID
        var name = ""
    }

    /// The example's `DataManager`: load and save the standups file (here in memory).
    struct DataManager: Sendable, DependencyKey {
        var load: @Sendable () -> Data?
        var save: @Sendable (Data) async throws -> Void
        static let liveValue = DataManager(load: { nil }, save: { _ in })
    }

    struct StandupForm: Model {
        enum Field: Hashable, Sendable {
            case attendee(UUID)
            case title
        }

        var node = ModelNode<Self>()
        @Tracked var focus: Field?
        @Tracked var standup: Standup

        init(focus: Field? = .title, standup: Standup) {
            self.focus = focus
            self.standup = standup
        }

        func onActivate() {
            if standup.attendees.isEmpty { standup.attendees.append(Attendee(id: node.uuid())) }
            node.trackUndo()
        }

        func addAttendeeButtonTapped() {
            let attendee = Attendee(id: node.uuid())
            standup.attendees.append(attendee)
            focus = .attendee(attendee.id)
        }

        func deleteAttendees(atOffsets indices: IndexSet) {
            node.transaction {
                for index in indices.reversed() where standup.attendees.indices.contains(index) {
                    standup.attendees.remove(at: index)
                }
                if standup.attendees.isEmpty { standup.attendees.append(Attendee(id: node.uuid())) }
                guard let first = indices.first else { return }
                focus = .attendee(standup.attendees[min(first, standup.attendees.count - 1)].id)
            }
        }

        static func register(_ r: inout ModelRegistrar<Self>) {
            r.track("focus", \.$focus, options: .transient)
            r.track("standup", \.$standup)
        }
    }

    struct StandupDetail: Model {
        enum Destination: ModelContainer, Sendable {
            case edit(form: StandupForm, save: @Sendable (Standup) -> Void, discard: @Sendable () -> Void)

            func visit(_ visitor: inout ContainerVisitor) {
                if case .edit(let form, _, _) = self { visitor.visit(form) }
            }
        }

        var node = ModelNode<Self>()
        @Tracked var destination: Destination?
        @Tracked var standup: Standup
        var id: UUID { standup.id }

        init(standup: Standup) {
            self.standup = standup
        }

        func editButtonTapped() {
            destination = .edit(
                form: StandupForm(standup: standup),
                save: { edited in
                    node.transaction {
                        standup = edited
                        destination = nil
                    }
                },
                discard: { destination = nil }
            )
        }

        static func register(_ r: inout ModelRegistrar<Self>) {
            r.track("destination", \.$destination)
            r.track("standup", \.$standup)
        }
    }

    struct StandupsList: Model {
        var node = ModelNode<Self>()
        @Tracked var standupDetails: [StandupDetail] = []

        func onActivate() {
            guard let data = node[DataManager.self].load(),
                  let standups = try? JSONDecoder().decode([Standup].self, from: data)
            else { return }
            standupDetails = standups.map { StandupDetail(standup: $0) }
        }

        static func register(_ r: inout ModelRegistrar<Self>) {
            r.track("standupDetails", \.$standupDetails)
        }
    }

    struct AppFeature: Model {
        var node = ModelNode<Self>()
        @Tracked var standupsList = StandupsList()

        func onActivate() {
            let edits = standupsList.node.modifications().debounce(for: .seconds(1), clock: node.continuousClock)
            let lastSaved = LastSaved(standupsList.standupDetails.map(\.standup))
            node.forEach(edits) { _ in
                let standups = standupsList.standupDetails.map(\.standup)
                guard lastSaved.standups != standups else { return }
                try await node[DataManager.self].save(JSONEncoder().encode(standups))
                lastSaved.standups = standups
            }
        }

        static func register(_ r: inout ModelRegistrar<Self>) {
            r.track("standupsList", \.$standupsList)
        }
    }

    /// The standups last saved (the example's `LastSaved`), touched only by the autosave task.
    final class LastSaved: Sendable {
        private let stored: Mutex<[Standup]>
        init(_ standups: [Standup]) { stored = Mutex(standups) }
        var standups: [Standup] {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }
}
