import Foundation
import ModelKit

/// The root of Standups: the list of standups and a navigation path of screens pushed over it.
///
/// It handles what detail screens ask (``StandupDetail/Event``): deleting a standup pops its screen
/// and removes it from the list; starting a meeting pushes a ``RecordMeeting`` whose saved
/// transcript becomes a new meeting of the standup. It also saves the standups, one second after
/// they stop changing.
///
/// ```swift
/// let app = AppFeature().withAnchor()
/// app.standupsList.addStandupButtonTapped()
/// ```
struct AppFeature: Model {
    /// A screen pushed over the list.
    enum Path: Hashable, Sendable, Identifiable, ModelContainer {
        /// The detail of the standup with this id (the model lives in the list).
        case detail(StandupDetail.ID)
        /// A past meeting of a standup.
        case meeting(Meeting, standup: Standup)
        case record(RecordMeeting)

        var id: Self { self }

        func visit(_ visitor: inout ContainerVisitor) {
            if case .record(let model) = self { visitor.visit(model) }
        }
    }

    var node = ModelNode<Self>()
    @Tracked var path: [Path]
    @Tracked private(set) var standupsList: StandupsList

    init(path: [Path] = [], standupsList: StandupsList = StandupsList()) {
        self.path = path
        self.standupsList = standupsList
    }

    func onActivate() {
        node.forEach(node.event(fromType: StandupDetail.self)) { event, detail in
            switch event {
            case .deleteStandup:
                node.transaction {
                    standupsList.standupDetails.remove(id: detail.id)
                    popScreen()
                }
            case .startMeeting:
                path.append(.record(recordMeeting(for: detail)))
            }
        }

        // Registered before the list loads its data (parents activate first), so that the load is
        // saved once too.
        let standups = node.observe(initial: false) { standupsList.standupDetails.map(\.standup) }
        node.forEach(standups.debounce(for: .seconds(1), clock: node.continuousClock)) { standups in
            try? await save(standups)
        }
    }

    /// Saves the standups now if they differ from the stored ones: a quitting app calls it, so
    /// that a save still waiting out its debounce is not lost.
    ///
    /// Stored data that cannot be decoded counts as an empty list, so an unreadable file is only
    /// replaced once the standups were changed (by loading the mock data, say).
    func saveChanges() async throws {
        let standups = standupsList.standupDetails.map(\.standup)
        let data = try? node.dataManager.load(.standups)
        let stored = data.flatMap { try? JSONDecoder().decode([Standup].self, from: $0) } ?? []
        guard standups != stored else { return }
        try await save(standups)
    }

    private func save(_ standups: [Standup]) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try await node.dataManager.save(encoder.encode(standups), .standups)
    }

    /// A meeting of `detail`'s standup; saving it adds a meeting to the standup and pops it.
    private func recordMeeting(for detail: StandupDetail) -> RecordMeeting {
        RecordMeeting(
            standup: detail.standup,
            onSave: { transcript in
                node.transaction {
                    let meeting = Meeting(id: Meeting.ID(node.uuid()), date: node.date.now, transcript: transcript)
                    detail.standup.meetings.insert(meeting, at: 0)
                    popScreen()
                }
            },
            onDiscard: { popScreen() }
        )
    }

    private func popScreen() {
        if !path.isEmpty { path.removeLast() }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("path", \.$path)
        r.track("standupsList", \.$standupsList)
    }
}

extension AppFeature.Path {
    var detail: StandupDetail.ID? {
        guard case .detail(let id) = self else { return nil }
        return id
    }

    var meeting: (meeting: Meeting, standup: Standup)? {
        guard case .meeting(let meeting, let standup) = self else { return nil }
        return (meeting, standup)
    }

    var record: RecordMeeting? {
        guard case .record(let model) = self else { return nil }
        return model
    }
}
