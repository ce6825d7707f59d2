import Foundation
import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// Saving never loses data: a failed save shows and is tried again, and a file whose standups cannot
/// be used (unreadable, or from a newer version) is never written over.
///
/// The files are an ``InMemoryFiles``; the clock is the tester's `ImmediateClock`, so a change is
/// saved at once.
@Suite struct AppFeatureSavingTests {
    let file = URL(fileURLWithPath: "/data/standups.json")
    let keptAsideFile = URL(fileURLWithPath: "/data/standups.json.unreadable-20090213-233130")
    let corrupt = Data(#"[{"id": "3F1A"#.utf8)

    /// The app over `files`, with the writes and moves of `files` part of exhaustivity.
    func app(
        over files: InMemoryFiles,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> (AppFeature, Tester) {
        let (app, tester) = AppFeature().andTester(fileID: fileID, filePath: filePath, line: line, column: column) {
            $0.dataManager = files.dataManager
            $0.standupsFile = file
        }
        tester.install(files.writes)
        tester.install(files.moves)
        return (app, tester)
    }

    @Test func failedSaveIsShownAndTriedAgainAtTheNextChange() async throws {
        let files = InMemoryFiles()
        files.writeError = SystemError(description: "No space left on device")
        let (app, tester) = app(over: files)

        app.standupsList.standupDetails.append(StandupDetail(standup: .designMock))
        await tester.assert {
            app.standupsList.standupDetails.map(\.standup) == [.designMock]
            app.saveProblem == SaveProblem(file: file, reason: .writeFailed("No space left on device"))
        }
        #expect(files.urls.isEmpty)

        files.writeError = nil
        let detail = try await tester.unwrap(app.standupsList.standupDetails.first)
        detail.standup.title = "Design review"
        var renamed = Standup.designMock
        renamed.title = "Design review"
        await tester.assert {
            detail.standup == renamed
            files.writes.wasCalled(with: file, [renamed])
            app.saveProblem == nil
        }
        await tester.finish()
    }

    @Test func quittingWithChangesThatCannotBeWrittenFails() async throws {
        let files = InMemoryFiles([file: try StandupsFile.encode([.designMock])])
        let (app, tester) = app(over: files)
        // The load itself is saved once (see AppFeatureTests), possibly before this assertion starts.
        await tester.assert {
            app.standupsList.standupDetails.map(\.standup) == [.designMock]
            files.writes.wasCalled(with: file, [Standup.designMock])
        }

        files.writeError = SystemError(description: "Permission denied")
        let problem = SaveProblem(file: file, reason: .writeFailed("Permission denied"))
        app.standupsList.standupDetails.append(StandupDetail(standup: .engineeringMock))
        await #expect(throws: problem) { try await app.saveChanges() }
        await tester.assert {
            app.standupsList.standupDetails.map(\.standup) == [.designMock, .engineeringMock]
            app.saveProblem == problem
        }
        #expect(try StandupsFile.decode(#require(files[file])) == [.designMock])
        await tester.finish()
    }

    @Test func declinedUnreadableDataIsNeverSavedOver() async throws {
        let files = InMemoryFiles([file: corrupt])
        let (app, tester) = app(over: files)
        _ = try await tester.unwrap(app.standupsList.destination?.dataFailedToLoad)

        // "No", as the screen answers it: the prompt closes. Nothing was saved, and quitting now
        // has nothing to save.
        app.standupsList.destination = nil
        await tester.assert(app.standupsList.destination == nil)
        try await app.saveChanges()

        let problem = SaveProblem(
            file: file, reason: .fileKept(.unreadable(reason: "The given data was not valid JSON"))
        )
        app.standupsList.standupDetails.append(StandupDetail(standup: .designMock))
        await tester.assert {
            app.standupsList.standupDetails.map(\.standup) == [.designMock]
            app.saveProblem == problem
        }
        await #expect(throws: problem) { try await app.saveChanges() }
        #expect(files.urls == [file])
        #expect(files[file] == corrupt)
        await tester.finish()
    }

    @Test func acceptedMockDataIsSavedOnceTheUnreadableFileIsAside() async throws {
        let files = InMemoryFiles([file: corrupt])
        let (app, tester) = app(over: files)

        try await tester.unwrap(app.standupsList.destination?.dataFailedToLoad)()
        app.standupsList.destination = nil
        let mocks: [Standup] = [.mock, .designMock, .engineeringMock]
        await tester.assert {
            app.standupsList.destination == nil
            app.standupsList.standupDetails.map(\.standup) == mocks
            files.moves.wasCalled(with: file, keptAsideFile)
            files.writes.wasCalled(with: file, mocks)
        }
        #expect(files[keptAsideFile] == corrupt)
        #expect(app.saveProblem == nil)
        await tester.finish()
    }

    @Test func mockDataIsNotSavedOverAnUnreadableFileThatCouldNotBeMoved() async throws {
        let files = InMemoryFiles([file: corrupt])
        files.moveError = SystemError(description: "Read-only file system")
        let (app, tester) = app(over: files)

        try await tester.unwrap(app.standupsList.destination?.dataFailedToLoad)()
        app.standupsList.destination = nil
        await tester.assert {
            app.standupsList.destination == nil
            app.standupsList.standupDetails.map(\.standup) == [.mock, .designMock, .engineeringMock]
            app.saveProblem == SaveProblem(
                file: file, reason: .fileKept(.unreadable(reason: "The given data was not valid JSON"))
            )
        }
        #expect(files.urls == [file])
        #expect(files[file] == corrupt)
        await tester.finish()
    }

    @Test func dataFromANewerVersionIsNeverSavedOver() async throws {
        let newer = Data(#"{"version": 2, "standups": []}"#.utf8)
        let files = InMemoryFiles([file: newer])
        let (app, tester) = app(over: files)
        await tester.assert(app.standupsList.destination?.dataFromNewerVersion?.version == 2)
        app.standupsList.destination = nil
        await tester.assert(app.standupsList.destination == nil)

        let problem = SaveProblem(file: file, reason: .fileKept(.newerFormat(version: 2)))
        app.standupsList.standupDetails.append(StandupDetail(standup: .designMock))
        await tester.assert {
            app.standupsList.standupDetails.map(\.standup) == [.designMock]
            app.saveProblem == problem
        }
        await #expect(throws: problem) { try await app.saveChanges() }
        #expect(files.urls == [file])
        #expect(files[file] == newer)
        await tester.finish()
    }

    @Test func problemsSayWhatHappenedAndWhatItMeans() {
        let failed = SaveProblem(file: file, reason: .writeFailed("Permission denied"))
        #expect("\(failed)" == "Couldn't save your standups to /data/standups.json: Permission denied.")
        #expect(failed.consequence == "Your changes are kept in memory; saving is tried again at your next change.")

        let newer = SaveProblem(file: file, reason: .fileKept(.newerFormat(version: 2)))
        #expect("\(newer)" == """
            Didn't save your standups: /data/standups.json was written by a newer version of Standups \
            (format 2); this version reads format 1, so it was left untouched.
            """)
        #expect(newer.consequence == """
            Your changes are kept in memory only: move that file away, and your next change saves them.
            """)
    }
}
