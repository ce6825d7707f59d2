import Foundation
import ModelKit

/// The list of standups, loaded from ``DataManager`` when it activates, with the form that adds one.
///
/// Stored data that cannot be used is never lost. When it cannot be read, the list offers to load
/// mock data instead (``Destination/dataFailedToLoad(confirmLoadMockData:unreadable:)``); confirming
/// first moves the unreadable file aside, declining leaves it where it is. When a newer version of
/// the app wrote it, the list says so and shows nothing
/// (``Destination/dataFromNewerVersion(file:version:)``). Either way the file stays untouched until
/// it is moved aside: ``AppFeature`` does not save over a file whose standups cannot be used.
struct StandupsList: Model {
    /// What the list shows over itself.
    enum Destination: ModelContainer, Sendable {
        case add(form: StandupForm, add: @Sendable (Standup) -> Void, dismiss: @Sendable () -> Void)
        /// The stored standups cannot be read: load mock data instead?
        case dataFailedToLoad(confirmLoadMockData: @Sendable () -> Void, unreadable: UnreadableData)
        /// The stored standups are of a format newer than this version reads; they are kept.
        case dataFromNewerVersion(file: URL, version: Int)

        func visit(_ visitor: inout ContainerVisitor) {
            if case .add(let form, _, _) = self { visitor.visit(form) }
        }
    }

    var node = ModelNode<Self>()
    @Tracked var standupDetails: [StandupDetail]
    @Tracked var destination: Destination?
    /// What the user typed in the search field (`.transient`: searching is not an edit, so it
    /// neither triggers the autosave nor counts as a change to save).
    @Tracked var searchText = ""
    /// The search the list is filtered by: ``searchText`` once typing has paused for
    /// ``searchPause``, or at once when it is cleared (see ``visibleStandupDetails``).
    @Tracked private(set) var appliedSearch = ""

    /// How long typing must pause before the list is filtered by what was typed.
    static let searchPause: Duration = .milliseconds(300)

    init(standupDetails: [StandupDetail] = [], destination: Destination? = nil) {
        self.standupDetails = standupDetails
        self.destination = destination
    }

    func onActivate() {
        let file = node.standupsFile
        switch node.dataManager.standups(in: file) {
        case .none:
            break
        case .standups(let standups):
            standupDetails = standups.map { StandupDetail(standup: $0) }
        case .unusable(.unreadable(let reason)):
            let unreadable = UnreadableData(
                file: file, reason: reason, keptAsideFile: file.keptAside(at: node.date.now)
            )
            destination = .dataFailedToLoad(
                confirmLoadMockData: { loadMockData(keepingAside: unreadable) }, unreadable: unreadable
            )
        case .unusable(.newerFormat(let version)):
            destination = .dataFromNewerVersion(file: file, version: version)
        }

        // Search as you type: each new text restarts the pause, so a burst of keystrokes filters
        // the list once, with its last text. Clearing the search shows every standup at once.
        node.task(id: searchText) { text in
            if !text.isEmpty {
                try await node.continuousClock.sleep(for: Self.searchPause)
            }
            appliedSearch = text
        }
    }

    /// The standups matching ``appliedSearch`` by title, attendee or meeting transcript, in list
    /// order: all of them when there is no search.
    ///
    /// Memoized: filtering runs again only when the search or a standup changes, not on each read.
    var visibleStandupDetails: [StandupDetail] {
        node.memoize {
            let search = appliedSearch
            guard !search.isEmpty else { return standupDetails }
            return standupDetails.filter { $0.standup.matches(search) }
        }
    }

    /// Moves the unreadable file aside, then shows the mock standups.
    ///
    /// If the file cannot be moved, it stays where it is, unread: then ``AppFeature`` does not save
    /// the mock standups over it, and says so.
    private func loadMockData(keepingAside unreadable: UnreadableData) {
        try? node.dataManager.move(unreadable.file, unreadable.keptAsideFile)
        standupDetails = [Standup.mock, .designMock, .engineeringMock].map { StandupDetail(standup: $0) }
    }

    /// The add form for `standup`. Adding drops attendees with blank names (keeping the first one if
    /// all are blank), appends the standup and closes the form.
    func addDestination(for standup: Standup) -> Destination {
        .add(
            form: StandupForm(standup: standup).withActivation { $0.trackUnsavedEdits() },
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
        r.track("searchText", \.$searchText, options: .transient)
        r.track("appliedSearch", \.$appliedSearch, options: .transient)
    }
}

extension StandupsList.Destination {
    var add: (form: StandupForm, add: @Sendable (Standup) -> Void, dismiss: @Sendable () -> Void)? {
        guard case .add(let form, let add, let dismiss) = self else { return nil }
        return (form, add, dismiss)
    }

    var dataFailedToLoad: (@Sendable () -> Void)? {
        guard case .dataFailedToLoad(let confirmLoadMockData, _) = self else { return nil }
        return confirmLoadMockData
    }

    /// What ``StandupsList/Destination/dataFailedToLoad(confirmLoadMockData:unreadable:)`` says of the file.
    var unreadableData: UnreadableData? {
        guard case .dataFailedToLoad(_, let unreadable) = self else { return nil }
        return unreadable
    }

    var dataFromNewerVersion: (file: URL, version: Int)? {
        guard case .dataFromNewerVersion(let file, let version) = self else { return nil }
        return (file, version)
    }
}

/// A standups file that could not be read: where it is, why, and where loading mock data moves it.
struct UnreadableData: Hashable, Sendable {
    let file: URL
    /// Why it could not be read, in words (without a final period).
    let reason: String
    /// Next to ``file``: `standups.json.unreadable-20090213-233130` (the time it failed to load, UTC).
    let keptAsideFile: URL
}

extension URL {
    /// Where an unreadable file is kept aside: this one's name followed by `.unreadable-` and `date`
    /// (UTC, to the second), in the same folder.
    func keptAside(at date: Date) -> URL {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func digits(_ value: Int?, _ count: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        let stamp = digits(parts.year, 4) + digits(parts.month, 2) + digits(parts.day, 2) + "-"
            + digits(parts.hour, 2) + digits(parts.minute, 2) + digits(parts.second, 2)
        return deletingLastPathComponent().appendingPathComponent("\(lastPathComponent).unreadable-\(stamp)")
    }
}
