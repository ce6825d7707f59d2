import ExampleTestSupport
import Foundation
import Testing

/// Runs the `Standups` executable in scripted mode on a temporary data file, and checks what it
/// prints and the JSON it saves.
///
/// The executable is the one built next to the test bundle (`swift build --product Standups`, which
/// `swift test` does too). Each test waits for the process to exit. Saves are debounced by a second,
/// so these short runs also check that quitting saves what is still pending.
@Suite struct EndToEndTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("StandupsTests-\(UUID())")
    var dataFile: URL { directory.appendingPathComponent("standups.json") }

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    @Test func addedStandupIsSavedOnQuit() async throws {
        defer { cleanUp() }
        let run = try await StandupsRun(["--data", dataFile.path, "--script", "add; title Daily; attendee Ana; save; quit"])

        #expect(run.status == 0)
        #expect(run.lastScreen.hasSuffix("[0] Daily — 1 attendee · 5 min · Bubblegum"))
        let standups = try savedStandups()
        #expect(standups.count == 1)
        #expect(standups.first?["title"] as? String == "Daily")
        #expect(standups.first?["duration"] as? Double == 300)
        #expect(attendeeNames(standups.first) == ["Ana"])
        #expect(run.errors.isEmpty)
    }

    @Test func searchNarrowsTheListAndOpenCountsTheStandupsShown() async throws {
        defer { cleanUp() }
        let run = try await StandupsRun(["--data", dataFile.path, "--script", """
            add; title Daily; attendee Ana; save; add; title Weekly retro; attendee Bo; save; \
            find RETRO; open 0; back; find; quit
            """])

        #expect(run.output.contains("""
            > find RETRO
            Daily Standups
            ════════════════════════════════════════
            Search "RETRO": 1 of 2 standups (find clears it)
            [0] Weekly retro — 1 attendee · 5 min · Bubblegum
            """))
        #expect(run.output.contains("> open 0\nDaily Standups › Weekly retro\n"))
        #expect(run.lastScreen.hasSuffix("[0] Daily — 1 attendee · 5 min · Bubblegum\n[1] Weekly retro — 1 attendee · 5 min · Bubblegum"))
        #expect(run.errors.isEmpty)
    }

    @Test func blankAttendeesAreDroppedWhenAdding() async throws {
        defer { cleanUp() }
        _ = try await StandupsRun(["--data", dataFile.path, "--script", """
            add; title Design; attendee Ana; attendee Bo; attendee Cy; drop 1; length 10; theme orange; \
            save; quit
            """])

        let standup = try #require(try savedStandups().first)
        #expect(attendeeNames(standup) == ["Ana", "Cy"])
        #expect(standup["duration"] as? Double == 600)
        #expect(standup["theme"] as? String == "orange")
    }

    @Test func recordedMeetingIsSavedWithItsTranscript() async throws {
        defer { cleanUp() }
        let run = try await StandupsRun(["--data", dataFile.path, "--script", """
            add; title Daily; attendee Ana; attendee Bo; save; open 0; start; say We shipped it; \
            say and fixed the bug; end; save; quit
            """])

        #expect(run.output.contains("Speaker 1 of 2: Ana\n  Transcript: We shipped it and fixed the bug"))
        #expect(run.lastScreen.contains("Past meetings:\n    [0] "))
        #expect(run.errors.isEmpty)
        let meetings = try #require(try savedStandups().first?["meetings"] as? [[String: Any]])
        #expect(meetings.map { $0["transcript"] as? String } == ["We shipped it and fixed the bug"])
    }

    @Test func discardedMeetingIsNotSaved() async throws {
        defer { cleanUp() }
        let script = "add; title Daily; save; open 0; start; say Hello; end; discard; quit"
        _ = try await StandupsRun(["--data", dataFile.path, "--script", script])

        let standup = try #require(try savedStandups().first)
        #expect((standup["meetings"] as? [Any])?.isEmpty == true)
    }

    @Test func quittingSaysWhatItLeavesUnsaved() async throws {
        defer { cleanUp() }
        let recording = try await StandupsRun(["--data", dataFile.path, "--script", """
            add; title Daily; attendee Ana; save; open 0; start; say We shipped it; quit
            """])

        #expect(recording.status == 0)
        // (A tick of the timer may print the screen once more after `> quit`.)
        #expect(recording.output.contains("> quit\n"))
        #expect(recording.output.hasSuffix(
            "\nThe meeting being recorded was not saved: to keep a meeting, type end, then save.\n"
        ))
        #expect((try savedStandups().first?["meetings"] as? [Any])?.isEmpty == true)

        let editing = try await StandupsRun(["--data", dataFile.path], input: "open 0\nedit\ntitle Weekly\n")

        #expect(editing.status == 0)
        #expect(editing.output.hasSuffix("The edits in the open form were not saved: to keep them, type save in the form.\n"))
        #expect(try savedStandups().first?["title"] as? String == "Daily")

        let unchanged = try await StandupsRun(["--data", dataFile.path, "--script", "open 0; edit; quit"])

        #expect(unchanged.output.hasSuffix("> quit\n"))
    }

    @Test func formEditsCanBeUndoneAndRedone() async throws {
        defer { cleanUp() }
        let run = try await StandupsRun(["--data", dataFile.path, "--script", """
            add; undo; title Daily; title Weekly; undo; attendee Ana; attendee Bo; undo; redo; undo; \
            redo; redo; save; quit
            """])

        #expect(run.status == 0)
        #expect(run.output.contains("> undo\nNothing to undo."))
        #expect(run.output.contains("> redo\nNothing to redo."))
        let standup = try #require(try savedStandups().first)
        #expect(standup["title"] as? String == "Daily")
        #expect(attendeeNames(standup) == ["Ana", "Bo"])
        #expect(run.errors.isEmpty)
    }

    @Test func editingAndDeletingAreSaved() async throws {
        defer { cleanUp() }
        _ = try await StandupsRun(["--data", dataFile.path, "--script", "add; title Daily; attendee Ana; save; quit"])
        let editing = try await StandupsRun(["--data", dataFile.path, "--script", "open 0; edit; title Weekly; save; quit"])

        #expect(editing.output.contains("> open 0\nDaily Standups › Daily\n"))
        #expect(try savedStandups().first?["title"] as? String == "Weekly")

        let deleting = try await StandupsRun(["--data", dataFile.path, "--script", "open 0; delete; confirm; quit"])

        #expect(deleting.output.contains("┌─ Delete?\n│ Are you sure you want to delete this standup?"))
        #expect(deleting.lastScreen.hasSuffix("No standups yet: type add."))
        #expect(try savedStandups().isEmpty)
    }

    @Test func corruptDataIsKeptUntilTheUserLoadsMockData() async throws {
        defer { cleanUp() }
        let corrupt = Data("not JSON {".utf8)
        try corrupt.write(to: dataFile)

        let declined = try await StandupsRun(["--data", dataFile.path, "--script", "quit"])

        #expect(declined.status == 0)
        #expect(declined.output.contains("┌─ Data failed to load\n"))
        #expect(try Data(contentsOf: dataFile) == corrupt)

        let accepted = try await StandupsRun(["--data", dataFile.path, "--script", "confirm; quit"])

        #expect(accepted.lastScreen.contains("[0] Design — 6 attendees · 1 min · Orange"))
        #expect(try savedStandups().map { $0["title"] as? String } == ["Design", "Product", "Engineering"])
    }

    @Test func standupsOfTheUpstreamAppAreReadAndSaved() async throws {
        defer { cleanUp() }
        let standup: [String: Any] = ["id": UUID().uuidString, "title": "Daily", "duration": 600]
        try JSONSerialization.data(withJSONObject: [standup]).write(to: dataFile)

        let run = try await StandupsRun(["--data", dataFile.path, "--script", "open 0; edit; title Weekly; save; quit"])

        #expect(run.output.contains("\n[0] Daily — 0 attendees · 10 min · Bubblegum\n"))
        #expect(try savedStandups().map { $0["title"] as? String } == ["Weekly"])
    }

    @Test func deniedSpeechRecognitionOffersToContinueWithoutTranscript() async throws {
        defer { cleanUp() }
        let run = try await StandupsRun(["--data", dataFile.path, "--speech", "denied", "--script", """
            add; title Daily; save; open 0; start; continue; say Unheard; end; save; quit
            """])

        #expect(run.output.contains("┌─ Speech recognition denied\n"))
        #expect(run.output.contains("> continue\nDaily Standups › Daily › Recording\n"))
        let meetings = try #require(try savedStandups().first?["meetings"] as? [[String: Any]])
        #expect(meetings.map { $0["transcript"] as? String } == [""])
    }

    @Test func settingsSaysHowToAllowSpeechRecognition() async throws {
        defer { cleanUp() }
        let run = try await StandupsRun(["--data", dataFile.path, "--speech", "denied", "--script", """
            add; title Daily; save; open 0; start; settings; quit
            """])

        #expect(run.output.contains("""
            > settings
            There are no settings to open here: to transcribe meetings, run Standups with --speech authorized.

            """))
        #expect(run.lastScreen.hasSuffix("    none yet: type start."))
    }

    @Test func commandsOnStandardInputRunLikeAScript() async throws {
        defer { cleanUp() }
        let run = try await StandupsRun(["--data", dataFile.path], input: "add\ntitle Piped\nsave\n")

        #expect(run.status == 0)
        #expect(try savedStandups().first?["title"] as? String == "Piped")
    }

    // MARK: Support

    /// The standups of the data file: a JSON array (format 1).
    private func savedStandups() throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dataFile)) as? [[String: Any]])
    }

    private func attendeeNames(_ standup: [String: Any]?) -> [String] {
        (standup?["attendees"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    private func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// One finished run of the `Standups` executable.
struct StandupsRun {
    let status: Int32
    let output: String
    let errors: String

    /// The last screen printed, without the trailing newline.
    var lastScreen: String {
        guard let start = output.range(of: "Daily Standups", options: .backwards) else { return "" }
        let screen = output[start.lowerBound...]
        let end = screen.range(of: "\n> ")?.lowerBound ?? screen.endIndex
        return String(screen[..<end]).trimmingCharacters(in: .newlines)
    }

    /// Runs the executable with `arguments`, `input` as its standard input, and waits for it to exit.
    init(_ arguments: [String], input: String = "") async throws {
        let run = try await ExecutableRun.run("Standups", arguments, input: input)
        self.status = run.status
        self.output = run.output
        self.errors = run.errors
    }
}
