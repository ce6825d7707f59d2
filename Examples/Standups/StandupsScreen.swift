import Foundation
import ExampleSupport
import ModelKit

/// Standups in the terminal: draws the screen on top of ``AppFeature``'s path (or the list), with
/// the form or alert shown over it, and runs typed commands (see ``help``).
@MainActor
struct StandupsScreen: TerminalScreen {
    let app: AppFeature
    /// The recognizer `say TEXT` speaks to.
    let speech: TypedSpeech
    /// Prints the changes of `--print-changes`; scripted commands wait through it (see
    /// ``ChangePrintout``).
    var printout: ChangePrintout? = nil

    static let help = """
        Commands (N is a number shown in brackets, from 0):
          list:     add · open N · find TEXT (find alone shows all)
          standup:  start · edit · delete · meeting N · forget N (delete meeting N) · back
          meeting:  back
          record:   say TEXT · next · end · wait SECONDS
          form:     title TEXT · attendee NAME · drop N · length MINUTES · theme NAME · undo · redo ·
                    save · cancel
          alerts:   confirm · cancel, and the answers they list (save, discard, continue, settings, ok)
          always:   help · quit
        """

    // MARK: Where the user is

    /// The screen on top of the path.
    enum Place {
        case list
        case detail(StandupDetail)
        case meeting(Meeting, standup: Standup)
        case record(RecordMeeting)
    }

    /// What is shown over the screen.
    enum Dialog {
        case add(form: StandupForm, add: @Sendable (Standup) -> Void, dismiss: @Sendable () -> Void)
        case dataFailedToLoad(confirm: @Sendable () -> Void, unreadable: UnreadableData)
        case dataFromNewerVersion(file: URL, version: Int)
        case edit(StandupDetail, form: StandupForm, save: @Sendable (Standup) -> Void, discard: @Sendable () -> Void)
        case deleteStandup(StandupDetail, confirm: @Sendable () -> Void)
        case speechDenied(StandupDetail, continue: @Sendable () -> Void, openSettings: @Sendable () -> Void)
        case speechRestricted(StandupDetail, continue: @Sendable () -> Void)
        case endMeeting(RecordMeeting, confirmSave: @Sendable () -> Void, discard: (@Sendable () -> Void)?)
        case speechFailed(RecordMeeting, discard: @Sendable () -> Void)
    }

    var place: Place {
        switch app.path.last {
        case nil: .list
        case .detail(let id)?: app.standupsList.standupDetails[id: id].map(Place.detail) ?? .list
        case .meeting(let meeting, let standup)?: .meeting(meeting, standup: standup)
        case .record(let model)?: .record(model)
        }
    }

    /// The list's sheet and alerts show over every screen; otherwise the top screen's.
    var dialog: Dialog? {
        switch app.standupsList.destination {
        case .add(let form, let add, let dismiss)?: return .add(form: form, add: add, dismiss: dismiss)
        case .dataFailedToLoad(let confirm, let unreadable)?:
            return .dataFailedToLoad(confirm: confirm, unreadable: unreadable)
        case .dataFromNewerVersion(let file, let version)?:
            return .dataFromNewerVersion(file: file, version: version)
        case nil: break
        }
        switch place {
        case .list, .meeting:
            return nil
        case .detail(let detail):
            switch detail.destination {
            case .edit(let form, let save, let discard)?:
                return .edit(detail, form: form, save: save, discard: discard)
            case .deleteStandup(let confirm)?: return .deleteStandup(detail, confirm: confirm)
            case .speechRecognitionDenied(let proceed, let openSettings)?:
                return .speechDenied(detail, continue: proceed, openSettings: openSettings)
            case .speechRecognitionRestricted(let proceed)?: return .speechRestricted(detail, continue: proceed)
            case nil: return nil
            }
        case .record(let record):
            switch record.destination {
            case .endMeeting(let confirmSave, let discard)?:
                return .endMeeting(record, confirmSave: confirmSave, discard: discard)
            case .speechRecognizerFailed(let discard)?: return .speechFailed(record, discard: discard)
            case nil: return nil
            }
        }
    }

    // MARK: Drawing

    func render() -> String {
        let place = self.place
        var lines = [breadcrumbs(place), String(repeating: "═", count: 40)]
        switch place {
        case .list: lines += list()
        case .detail(let detail): lines += self.detail(detail.standup)
        case .meeting(let meeting, let standup): lines += self.meeting(meeting, of: standup)
        case .record(let record): lines += self.record(record)
        }
        if let problem = app.saveProblem { lines += ["", "⚠ \(problem)", "  \(problem.consequence)"] }
        if app.unsavedEdits > 0 { lines += ["", "✎ unsaved edits in \(count(app.unsavedEdits, "form"))"] }
        if let dialog { lines += [""] + box(self.dialog(dialog)) }
        return lines.joined(separator: "\n")
    }

    private func breadcrumbs(_ place: Place) -> String {
        var titles = ["Daily Standups"]
        for screen in app.path {
            switch screen {
            case .detail(let id):
                titles.append(app.standupsList.standupDetails[id: id]?.standup.title.orUntitled ?? "?")
            case .meeting: titles.append("Meeting")
            case .record: titles.append("Recording")
            }
        }
        return titles.joined(separator: " › ")
    }

    private func list() -> [String] {
        let list = app.standupsList
        // Under a dialog, `add` is refused until the dialog is answered: no hint then.
        guard !list.standupDetails.isEmpty else {
            return [dialog == nil ? "No standups yet: type add." : "No standups yet."]
        }
        var lines: [String] = []
        if !list.appliedSearch.isEmpty {
            let shown = list.visibleStandupDetails.count
            lines.append("Search \"\(list.appliedSearch)\": \(shown) of \(count(list.standupDetails.count, "standup")) (find clears it)")
        }
        lines += list.visibleStandupDetails.enumerated().map { index, detail in
            let standup = detail.standup
            return "[\(index)] \(standup.title.orUntitled) — \(count(standup.attendees.count, "attendee")) · "
                + "\(minutes(standup.duration)) · \(standup.theme.name)"
        }
        return lines
    }

    private func detail(_ standup: Standup) -> [String] {
        var lines = [
            standup.title.orUntitled,
            "  Length: \(minutes(standup.duration)) · Theme: \(standup.theme.name)",
            "  Attendees: \(attendees(of: standup))",
            "  Past meetings:",
        ]
        if standup.meetings.isEmpty { lines.append("    none yet: type start.") }
        for (index, meeting) in standup.meetings.enumerated() {
            lines.append("    [\(index)] \(date(meeting.date)) — \(meeting.transcript.orSilent.prefix(50))")
        }
        return lines
    }

    private func meeting(_ meeting: Meeting, of standup: Standup) -> [String] {
        [
            "\(standup.title.orUntitled), \(date(meeting.date))",
            "  Attendees: \(attendees(of: standup))",
            "  Transcript: \(meeting.transcript.orSilent)",
        ]
    }

    private func attendees(of standup: Standup) -> String {
        standup.attendees.isEmpty ? "none" : standup.attendees.map(\.name.orUnnamed).joined(separator: ", ")
    }

    private func record(_ record: RecordMeeting) -> [String] {
        let standup = record.standup
        let speaker = standup.attendees.indices.contains(record.speakerIndex)
            ? "Speaker \(record.speakerIndex + 1) of \(standup.attendees.count): "
                + standup.attendees[record.speakerIndex].name.orUnnamed
            : "Speaker: no attendees are listed"
        return [
            "Recording \(standup.title.orUntitled)",
            "  Elapsed \(clock(.seconds(record.secondsElapsed))) · Remaining \(clock(record.durationRemaining))",
            "  \(speaker)",
            "  Transcript: \(record.transcript.isEmpty ? "…" : record.transcript)",
        ]
    }

    private func dialog(_ dialog: Dialog) -> [String] {
        switch dialog {
        case .add(let form, _, _):
            return ["New standup"] + self.form(form) + ["save · cancel"]
        case .edit(_, let form, _, _):
            return ["Edit \(form.standup.title.orUntitled)"] + self.form(form) + ["save · cancel"]
        case .dataFailedToLoad(_, let unreadable):
            return [
                "Data failed to load",
                "Unfortunately your past data failed to load: \(unreadable.file.path) could not be read "
                    + "(\(unreadable.reason)).",
                "Would you like to load some mock data to play around with? Your file is kept either way:",
                "· yes first moves it to \(unreadable.keptAsideFile.path);",
                "· no leaves it where it is, untouched, and nothing is saved over it.",
                "confirm (yes) · cancel (no)",
            ]
        case .dataFromNewerVersion(let file, let version):
            return [
                "Data from a newer version",
                StandupsFile.Problem.newerFormat(version: version).explanation(of: file) + ".",
                "The file was left untouched: no standups are shown, and nothing is saved over it.",
                "ok",
            ]
        case .deleteStandup:
            return ["Delete?", "Are you sure you want to delete this standup?", "confirm · cancel"]
        case .speechDenied:
            return [
                "Speech recognition denied",
                "You previously denied speech recognition, so your meeting will not be transcribed. You can",
                "allow it in settings, or continue without recording.",
                "continue · settings · cancel",
            ]
        case .speechRestricted:
            return [
                "Speech recognition restricted",
                "Your device does not allow speech recognition, so your meeting will not be transcribed.",
                "continue · cancel",
            ]
        case .endMeeting(_, _, let discard):
            return [
                "End meeting?",
                discard == nil
                    ? "The last speaker is done. Save the meeting?"
                    : "You are ending the meeting early. What would you like to do?",
                discard == nil ? "save · cancel (resume)" : "save · discard · cancel (resume)",
            ]
        case .speechFailed:
            return [
                "Speech recognition failure",
                "The speech recognizer failed, so your meeting will no longer be transcribed.",
                "cancel (continue the meeting) · discard",
            ]
        }
    }

    private func form(_ form: StandupForm) -> [String] {
        let standup = form.standup
        var lines = [
            "Title: \(standup.title.orUntitled)\(form.focus == .title ? " ‹" : "")",
            "Length: \(minutes(standup.duration)) · Theme: \(standup.theme.name)",
            "Attendees:",
        ]
        for (index, attendee) in standup.attendees.enumerated() {
            lines.append("  [\(index)] \(attendee.name.orBlank)\(form.focus == .attendee(attendee.id) ? " ‹" : "")")
        }
        return lines
    }

    private func box(_ lines: [String]) -> [String] {
        ["┌─ " + lines[0]] + lines.dropFirst().map { "│ " + $0 } + ["└─"]
    }

    // MARK: Formatting

    private func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    private func minutes(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        return seconds.isMultiple(of: 60) ? "\(seconds / 60) min" : clock(duration)
    }

    private func clock(_ duration: Duration) -> String {
        let seconds = max(0, duration.components.seconds)
        return "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
    }

    private func date(_ date: Date) -> String {
        date.formatted(date: .abbreviated, time: .shortened)
    }
}

private extension String {
    var isBlank: Bool { allSatisfy(\.isWhitespace) }
    var orUntitled: String { isBlank ? "Untitled" : self }
    var orUnnamed: String { isBlank ? "(unnamed)" : self }
    var orBlank: String { isBlank ? "(blank)" : self }
    var orSilent: String { isBlank ? "(nothing was said)" : self }
}
