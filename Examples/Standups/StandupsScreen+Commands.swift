import Foundation
import ExampleSupport
import ModelKit

// The commands of the Standups screen. A dialog (form or alert) takes its own commands first, as a
// modal would; `say`, `help` and `quit` work everywhere.
//
// An alert's button closes the alert, as SwiftUI does by setting its `destination` binding to nil,
// and runs its action. A detail's alert closes first: its action may lead the app to remove the
// detail. A meeting's alert closes last, unless its action removed the meeting: while it is shown
// the timer is paused, so the last speaker's time cannot run out (and save) during the action.

extension StandupsScreen {
    func perform(_ command: Command, settle: Bool) async -> CommandResult {
        switch command.name {
        case "help", "?": return .message(Self.help)
        case "quit", "exit", "q": return .quit
        case "say": return await say(command.argument, settle: settle)
        case "wait":
            guard settle else { return .message("wait is for scripts: here, time passes by itself.") }
            guard let seconds = command.number, (1...600).contains(seconds) else {
                return .message("Type wait SECONDS, from 1 to 600.")
            }
            // Scripts exercise the live timer: let that much real time pass.
            let clock = ContinuousClock()
            try? await clock.sleep(for: .seconds(seconds))
            return .done
        default: break
        }
        if let dialog {
            return await perform(command, in: dialog, settle: settle)
        }
        switch place {
        case .list:
            if command.name == "find" { return await find(command.argument, in: app.standupsList, settle: settle) }
            return perform(command, onList: app.standupsList)
        case .detail(let detail): return await perform(command, onDetail: detail, settle: settle)
        case .meeting: return command.name == "back" ? goBack() : unknown(command, "back")
        case .record(let record): return perform(command, onRecord: record)
        }
    }

    /// Says what quitting leaves unsaved: a meeting being recorded, an open form's edits. (The
    /// standups themselves are saved by ``StandupsCLI`` on its way out, which reports a failure.)
    func finish() async {
        if case .record = place {
            print("The meeting being recorded was not saved: to keep a meeting, type end, then save.")
        }
        if app.unsavedEdits > 0 {
            print("The edits in the open form were not saved: to keep them, type save in the form.")
        }
    }

    // MARK: Screens

    private func perform(_ command: Command, onList list: StandupsList) -> CommandResult {
        switch command.name {
        case "add":
            list.addStandupButtonTapped()
        case "open":
            // N counts the standups shown, which a search may narrow.
            let shown = list.visibleStandupDetails
            guard let index = command.number, shown.indices.contains(index) else {
                if list.standupDetails.isEmpty { return .message("There are no standups: type add first.") }
                if shown.isEmpty { return .message("No standup matches the search: type find to show them all.") }
                return .message("Type open N, with N from 0 to \(shown.count - 1).")
            }
            app.path.append(.detail(shown[index].id))
        case "back":
            return .message("This is the first screen.")
        default:
            return unknown(command, "add · open N · find TEXT")
        }
        return .done
    }

    /// Types `text` into the list's search field (`find` alone clears it). The list filters itself
    /// once typing pauses; a script waits for that.
    private func find(_ text: String, in list: StandupsList, settle: Bool) async -> CommandResult {
        await settling(settle, "the search", after: { list.searchText = text }) {
            list.appliedSearch == text
        }
    }

    private func perform(_ command: Command, onDetail detail: StandupDetail, settle: Bool) async -> CommandResult {
        switch command.name {
        case "edit": detail.editButtonTapped()
        case "delete": detail.deleteButtonTapped()
        case "start":
            let screens = app.path.count
            let start = detail.startMeetingButtonTapped
            return await settling(settle, "the meeting to start", after: start) { [app] in
                app.path.count != screens || detail.destination != nil
            }
        case "meeting", "forget":
            let meetings = detail.standup.meetings
            guard let index = command.number, meetings.indices.contains(index) else {
                return .message(meetings.isEmpty
                    ? "This standup has no meetings yet."
                    : "Type \(command.name) N, with N from 0 to \(meetings.count - 1).")
            }
            if command.name == "meeting" {
                app.path.append(.meeting(meetings[index], standup: detail.standup))
            } else {
                detail.deleteMeetings(atOffsets: [index])
            }
        case "back": return goBack()
        default: return unknown(command, "start · edit · delete · meeting N · forget N · back")
        }
        return .done
    }

    private func perform(_ command: Command, onRecord record: RecordMeeting) -> CommandResult {
        switch command.name {
        case "next": record.nextButtonTapped()
        case "end", "back": record.endMeetingButtonTapped()
        default: return unknown(command, "say TEXT · next · end · wait SECONDS")
        }
        return .done
    }

    private func goBack() -> CommandResult {
        if !app.path.isEmpty { app.path.removeLast() }
        return .done
    }

    /// Speaks to the recognizer; when settling, waits until the transcript has it.
    private func say(_ text: String, settle: Bool) async -> CommandResult {
        guard case .record(let record) = place else {
            return .message("Nobody is listening: start a meeting first.")
        }
        guard !text.isEmpty else { return .message("Type say TEXT.") }
        guard speech.status == .authorized || speech.status == .notDetermined else {
            return .message("Speech recognition is \(speech.status.rawValue): nothing is transcribed.")
        }
        return await settling(settle, "the transcript", after: { speech.hear(text) }) { [app] in
            app.path.last?.record?.id != record.id || record.transcript.hasSuffix(text)
        }
    }

    // MARK: Dialogs

    private func perform(_ command: Command, in dialog: Dialog, settle: Bool) async -> CommandResult {
        switch dialog {
        case .add(let form, let add, let dismiss):
            return perform(command, in: form, save: { add(form.standup) }, cancel: dismiss)
        case .edit(_, let form, let save, let discard):
            return perform(command, in: form, save: { save(form.standup) }, cancel: discard)
        case .dataFailedToLoad(let confirm, _):
            let list = app.standupsList
            switch command.name {
            case "confirm", "yes": confirm()
            case "cancel", "no": break
            default: return unknown(command, "confirm · cancel")
            }
            list.destination = nil
        case .dataFromNewerVersion:
            guard ["ok", "confirm", "cancel", "dismiss"].contains(command.name) else {
                return unknown(command, "ok")
            }
            app.standupsList.destination = nil
        case .deleteStandup(let detail, let confirm):
            switch command.name {
            case "confirm", "yes":
                detail.alertDismissed()
                return await settling(settle, "the standup to be deleted", after: confirm) { [app] in
                    app.standupsList.standupDetails[id: detail.id] == nil
                }
            case "cancel", "no": detail.alertDismissed()
            default: return unknown(command, "confirm · cancel")
            }
        case .speechDenied(let detail, let proceed, let openSettings):
            switch command.name {
            case "continue": return await startWithoutRecording(detail, proceed, settle: settle)
            case "settings":
                detail.alertDismissed()
                openSettings()
                // The terminal has no settings page to show (`openSettings` opens one only on iOS).
                return .message(Self.noSettings)
            case "cancel", "no": detail.alertDismissed()
            default: return unknown(command, "continue · settings · cancel")
            }
        case .speechRestricted(let detail, let proceed):
            switch command.name {
            case "continue": return await startWithoutRecording(detail, proceed, settle: settle)
            case "cancel", "no": detail.alertDismissed()
            default: return unknown(command, "continue · cancel")
            }
        case .endMeeting(let record, let confirmSave, let discard):
            switch command.name {
            case "save", "confirm": confirmSave()
            case "discard" where discard != nil: discard?()
            case "cancel", "resume": break
            default: return unknown(command, discard == nil ? "save · cancel" : "save · discard · cancel")
            }
            if record.lifetime == .anchored { record.destination = nil }
        case .speechFailed(let record, let discard):
            switch command.name {
            case "discard": discard()
            case "cancel", "continue": break
            default: return unknown(command, "cancel · discard")
            }
            if record.lifetime == .anchored { record.destination = nil }
        }
        return .done
    }

    private func startWithoutRecording(
        _ detail: StandupDetail, _ proceed: @Sendable () -> Void, settle: Bool
    ) async -> CommandResult {
        let screens = app.path.count
        detail.alertDismissed()
        return await settling(settle, "the meeting to start", after: proceed) { [app] in
            app.path.count != screens
        }
    }

    private func perform(
        _ command: Command, in form: StandupForm, save: () -> Void, cancel: () -> Void
    ) -> CommandResult {
        switch command.name {
        case "title":
            form.focusChanged(to: .title)
            form.standup.title = command.argument
        case "attendee":
            guard !command.argument.isEmpty else { return .message("Type attendee NAME.") }
            name(command.argument, in: form)
        case "drop":
            guard let index = command.number, form.standup.attendees.indices.contains(index) else {
                return .message("Type drop N, with N from 0 to \(form.standup.attendees.count - 1).")
            }
            form.deleteAttendees(atOffsets: [index])
        case "length":
            guard let minutes = command.number, (1...120).contains(minutes) else {
                return .message("Type length MINUTES, from 1 to 120.")
            }
            form.standup.duration = .seconds(minutes * 60)
        case "theme":
            guard let theme = Theme(rawValue: command.argument.lowercased()) else {
                return .message("Themes: " + Theme.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            form.standup.theme = theme
        case "undo":
            guard form.canUndo else { return .message("Nothing to undo.") }
            form.undoTapped()
        case "redo":
            guard form.canRedo else { return .message("Nothing to redo.") }
            form.redoTapped()
        case "save", "confirm": save()
        case "cancel": cancel()
        default:
            return unknown(command, Self.formCommands)
        }
        return .done
    }

    /// Types `name` into the focused attendee if it is blank, else into the first blank attendee,
    /// else into a new one.
    private func name(_ name: String, in form: StandupForm) {
        let attendees = form.standup.attendees
        let focused: Attendee.ID? = if case .attendee(let id)? = form.focus { id } else { nil }
        let blank = attendees.first { $0.id == focused && $0.name.allSatisfy(\.isWhitespace) }
            ?? attendees.first { $0.name.allSatisfy(\.isWhitespace) }
        if let blank {
            form.focusChanged(to: .attendee(blank.id))
            form.standup.attendees[id: blank.id]?.name = name
        } else {
            form.addAttendeeButtonTapped()
            if case .attendee(let id)? = form.focus { form.standup.attendees[id: id]?.name = name }
        }
    }

    // MARK: Support

    static let noSettings = """
        There are no settings to open here: to transcribe meetings, run Standups with --speech authorized.
        """

    private static let formCommands =
        "title TEXT · attendee NAME · drop N · length MINUTES · theme NAME · undo · redo · save · cancel"

    /// Runs `action`; when settling, then waits until `condition` holds (see
    /// ``Model/perform(_:thenWaitUntil:printout:timeout:isolation:)``).
    private func settling(
        _ settle: Bool, _ what: String, after action: () -> Void,
        until condition: @escaping @Sendable () -> Bool
    ) async -> CommandResult {
        guard settle else {
            action()
            return .done
        }
        let held = await app.perform(action, thenWaitUntil: condition, printout: printout)
        return held ? .done : .message("Gave up waiting for \(what); going on.")
    }

    private func unknown(_ command: Command, _ commands: String) -> CommandResult {
        .message("\"\(command.name)\" does nothing here. Try: \(commands) (or help).")
    }
}
