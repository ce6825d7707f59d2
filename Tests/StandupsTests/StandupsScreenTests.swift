import Foundation
import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// What the terminal screen tells the user about bad data and failed saves, word for word.
@MainActor @Suite struct StandupsScreenTests {
    let file = URL(fileURLWithPath: "/data/standups.json")

    /// The app over `files`, its screen, and its tester.
    func screen(
        over files: InMemoryFiles,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> (AppFeature, StandupsScreen, Tester) {
        let (app, tester) = AppFeature().andTester(fileID: fileID, filePath: filePath, line: line, column: column) {
            $0.dataManager = files.dataManager
            $0.standupsFile = file
        }
        return (app, StandupsScreen(app: app, speech: TypedSpeech()), tester)
    }

    @Test func unreadableDataPromptSaysWhereTheFileIsKept() async throws {
        let (app, screen, tester) = screen(over: InMemoryFiles([file: Data("not JSON {".utf8)]))
        _ = try await tester.unwrap(app.standupsList.destination?.unreadableData)

        #expect(screen.render() == """
            Daily Standups
            ════════════════════════════════════════
            No standups yet.

            ┌─ Data failed to load
            │ Unfortunately your past data failed to load: /data/standups.json could not be read \
            (The given data was not valid JSON).
            │ Would you like to load some mock data to play around with? Your file is kept either way:
            │ · yes first moves it to /data/standups.json.unreadable-20090213-233130;
            │ · no leaves it where it is, untouched, and nothing is saved over it.
            │ confirm (yes) · cancel (no)
            └─
            """)
        await tester.finish()
    }

    @Test func emptyListSuggestsAddOnlyWhenNoDialogRefusesIt() async throws {
        let (app, screen, tester) = screen(over: InMemoryFiles())
        tester.exhaustivity = .off
        #expect(screen.render().hasSuffix("═\nNo standups yet: type add."))

        app.standupsList.addStandupButtonTapped()
        let form = try await tester.unwrap(app.standupsList.destination?.add?.form)
        await tester.assert(form.standup.attendees.count == 1)
        #expect(screen.render().contains("═\nNo standups yet.\n\n┌─ New standup"))
        await tester.finish()
    }

    @Test func newerDataAlertSaysTheFileIsLeftUntouched() async throws {
        let (app, screen, tester) = screen(over: InMemoryFiles([file: Data(#"{"version": 7}"#.utf8)]))
        _ = try await tester.unwrap(app.standupsList.destination?.dataFromNewerVersion)

        #expect(screen.render().hasSuffix("""
            ┌─ Data from a newer version
            │ /data/standups.json was written by a newer version of Standups (format 7); this version \
            reads format 1.
            │ The file was left untouched: no standups are shown, and nothing is saved over it.
            │ ok
            └─
            """))
        await tester.finish()
    }

    @Test func failedSaveIsShownUnderTheScreenUntilASaveSucceeds() async throws {
        let files = InMemoryFiles()
        files.writeError = SystemError(description: "Permission denied")
        let (app, screen, tester) = screen(over: files)

        app.standupsList.standupDetails.append(StandupDetail(standup: .engineeringMock))
        await tester.assert {
            app.standupsList.standupDetails.count == 1
            app.saveProblem != nil
        }
        #expect(screen.render() == """
            Daily Standups
            ════════════════════════════════════════
            [0] Engineering — 2 attendees · 10 min · Periwinkle

            ⚠ Couldn't save your standups to /data/standups.json: Permission denied.
              Your changes are kept in memory; saving is tried again at your next change.
            """)

        files.writeError = nil
        let detail = try await tester.unwrap(app.standupsList.standupDetails.first)
        detail.standup.theme = .teal
        await tester.assert {
            detail.standup.theme == .teal
            app.saveProblem == nil
        }
        #expect(screen.render().hasSuffix("[0] Engineering — 2 attendees · 10 min · Teal"))
        await tester.finish()
    }
}
