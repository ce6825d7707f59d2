import Foundation
import ModelKit
import Synchronization

/// The root of Standups: the list of standups and a navigation path of screens pushed over it.
///
/// It handles what detail screens ask (``StandupDetail/Event``): deleting a standup pops its screen
/// and removes it from the list; starting a meeting pushes a ``RecordMeeting`` whose saved
/// transcript becomes a new meeting of the standup. It also saves the standups, one second after
/// they stop changing: a save that fails shows in ``saveProblem``
/// and is tried again at the next change; a file whose standups cannot be used is never saved over.
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
    /// Why the last save did not happen; nil once a save succeeds.
    @Tracked private(set) var saveProblem: SaveProblem?

    init(path: [Path] = [], standupsList: StandupsList = StandupsList(), saveProblem: SaveProblem? = nil) {
        self.path = path
        self.standupsList = standupsList
        self.saveProblem = saveProblem
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

        // Autosave: one second after the list stops changing, the standups are saved if they differ
        // from the last ones saved (an edit form's draft changes the list's subtree, not its
        // standups). Registered before the list loads its data (parents activate first), so that
        // the load is saved once too. A failed save is recorded in `saveProblem`; the next change
        // tries again.
        let edits = standupsList.node.modifications().debounce(for: .seconds(1), clock: node.continuousClock)
        let lastSaved = LastSaved()
        node.forEach(edits) { _ in
            let standups = standupsList.standupDetails.map(\.standup)
            guard lastSaved.standups != standups else { return }
            if await save(standups) == nil { lastSaved.standups = standups }
        }
    }

    /// Saves the standups now if they differ from the stored ones: a quitting app calls it, so that
    /// a save still waiting out its debounce is not lost.
    ///
    /// An empty list is not written where there is no file yet, or over a file that is kept: that
    /// loses nothing.
    ///
    /// - Throws: Why the standups could not be saved (also recorded in ``saveProblem``).
    func saveChanges() async throws(SaveProblem) {
        let standups = standupsList.standupDetails.map(\.standup)
        switch node.dataManager.standups(in: node.standupsFile) {
        case .standups(let stored) where stored == standups: return
        case .none where standups.isEmpty, .unusable where standups.isEmpty: return
        case .none, .standups, .unusable: break
        }
        if let problem = await save(standups) { throw problem }
    }

    /// Writes `standups` unless the file holds standups that cannot be used, and records the outcome
    /// in ``saveProblem``.
    ///
    /// Saving never loses data: the file is read first, and one that is unreadable or from a newer
    /// version is kept as it is; and ``DataManager`` writes atomically, so a failed write leaves the
    /// file as it was.
    ///
    /// - Returns: Why they were not saved, or nil.
    @discardableResult
    private func save(_ standups: [Standup]) async -> SaveProblem? {
        let file = node.standupsFile
        let problem: SaveProblem?
        if case .unusable(let fileProblem) = node.dataManager.standups(in: file) {
            problem = SaveProblem(file: file, reason: .fileKept(fileProblem))
        } else {
            do {
                try await node.dataManager.save(StandupsFile.encode(standups), file)
                problem = nil
            } catch {
                problem = SaveProblem(file: file, reason: .writeFailed("\(error)"))
            }
        }
        // Quitting may tear the app down while a debounced save is under way: then there is no one
        // to show the outcome to. (The check and the write are atomic in a transaction.)
        node.transaction {
            if lifetime == .anchored { saveProblem = problem }
        }
        return problem
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
        r.track("saveProblem", \.$saveProblem)
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

/// The standups the autosave wrote last, so that it writes only what changed.
private final class LastSaved: Sendable {
    private let stored = Mutex<[Standup]?>(nil)

    var standups: [Standup]? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
