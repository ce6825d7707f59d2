import ExampleTestSupport
import Foundation
import Testing

/// Runs the `Standups` executable on bad data files in a temporary directory: each case gives a clear
/// message and loses no data.
@Suite struct BadDataEndToEndTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("StandupsBadData-\(UUID())")
    var dataFile: URL { directory.appendingPathComponent("standups.json") }

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    @Test func truncatedFileIsExplainedAndLeftUntouchedWhenTheUserDeclines() async throws {
        defer { cleanUp() }
        let truncated = try validFile().prefix(120)
        try truncated.write(to: dataFile)

        let looking = try await StandupsRun(["--data", dataFile.path, "--script", "quit"])

        #expect(looking.status == 0)
        #expect(looking.output.contains("""
            │ Unfortunately your past data failed to load: \(dataFile.path) could not be read \
            (The given data was not valid JSON).
            """))
        #expect(looking.output.contains("│ · yes first moves it to \(dataFile.path).unreadable-"))
        #expect(looking.output.contains("│ · no leaves it where it is, untouched, and nothing is saved over it.\n"))

        let declining = try await StandupsRun(["--data", dataFile.path, "--script", """
            cancel; add; title Daily; save; quit
            """])

        #expect(declining.status == 1)
        #expect(declining.errors == """
            Didn't save your standups: \(dataFile.path) could not be read (The given data was not valid JSON), \
            so it was left untouched.
            Standups quit without saving your latest changes.

            """)
        #expect(try Data(contentsOf: dataFile) == truncated)
        #expect(try fileNames() == ["standups.json"])
    }

    @Test func emptyFileIsReportedAsEmpty() async throws {
        defer { cleanUp() }
        try Data().write(to: dataFile)

        let run = try await StandupsRun(["--data", dataFile.path, "--script", "add; cancel; quit"])

        #expect(run.status == 0)
        #expect(run.output.contains("""
            No standups yet.

            ┌─ Data failed to load
            │ Unfortunately your past data failed to load: \(dataFile.path) could not be read (it is empty).
            """))
        #expect(run.output.contains("> add\n\"add\" does nothing here. Try: confirm · cancel (or help).\n"))
        #expect(run.lastScreen.hasSuffix("═\nNo standups yet: type add."))
    }

    @Test func objectWithoutAVersionIsExplainedInWords() async throws {
        defer { cleanUp() }
        try Data(#"{"standups": []}"#.utf8).write(to: dataFile)

        let run = try await StandupsRun(["--data", dataFile.path, "--script", "quit"])

        #expect(run.output.contains("""
            could not be read (it is a JSON object with no "version"; a standups file is a list of \
            standups, or an object whose "version" says its format).
            """))
    }

    @Test func acceptingMockDataKeepsTheUnreadableFileAside() async throws {
        defer { cleanUp() }
        let corrupt = Data("not JSON {".utf8)
        try corrupt.write(to: dataFile)

        let run = try await StandupsRun(["--data", dataFile.path, "--script", "confirm; quit"])

        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        let names = try fileNames()
        #expect(names.count == 2, "\(names)")
        let keptAside = try #require(names.first { $0.hasPrefix("standups.json.unreadable-") })
        // The name the prompt announced: the time of the failed load, to the second.
        let keptAsideFile = directory.appendingPathComponent(keptAside)
        #expect(keptAside.count == "standups.json.unreadable-20090213-233130".count)
        #expect(run.output.contains("│ · yes first moves it to \(keptAsideFile.path);\n"))
        #expect(try Data(contentsOf: keptAsideFile) == corrupt)
        #expect(try savedTitles() == ["Design", "Product", "Engineering"])
    }

    @Test func unwritableDataPathFailsTheQuitWithChangesAndSaysWhy() async throws {
        defer { cleanUp() }
        // Creating the data file's folder is impossible: a file has its name.
        let notAFolder = directory.appendingPathComponent("notes.txt")
        try Data("my notes".utf8).write(to: notAFolder)
        let unwritable = notAFolder.appendingPathComponent("standups.json")

        let unchanged = try await StandupsRun(["--data", unwritable.path, "--script", "quit"])

        #expect(unchanged.status == 0)
        #expect(unchanged.errors.isEmpty)

        let changed = try await StandupsRun(["--data", unwritable.path, "--script", "add; title Daily; save; quit"])

        #expect(changed.status == 1)
        #expect(changed.errors == """
            Couldn't save your standups to \(unwritable.path): \(notAFolder.path) is a file, not a folder.
            Standups quit without saving your latest changes.

            """)
        #expect(try Data(contentsOf: notAFolder) == Data("my notes".utf8))
    }

    @Test(.enabled(if: getuid() != 0, "the superuser may write in a read-only folder"))
    func readOnlyFolderKeepsTheStoredStandups() async throws {
        defer { cleanUp() }
        let folder = directory.appendingPathComponent("read-only")
        let file = folder.appendingPathComponent("standups.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stored = try validFile()
        try stored.write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }

        let run = try await StandupsRun(["--data", file.path, "--script", "add; title Weekly; save; quit"])

        #expect(run.status == 1)
        #expect(run.errors == """
            Couldn't save your standups to \(file.path): Permission denied.
            Standups quit without saving your latest changes.

            """)
        #expect(try Data(contentsOf: file) == stored)
    }

    @Test func fileFromANewerVersionIsLeftByteForByteUntouched() async throws {
        defer { cleanUp() }
        let newer = Data("""
            {"version": 2, "standups": [{"id": "C0FFEE", "title": "Daily"}], "reminders": ["9:00"]}\n
            """.utf8)
        try newer.write(to: dataFile)

        let looking = try await StandupsRun(["--data", dataFile.path, "--script", "quit"])

        #expect(looking.status == 0)
        #expect(looking.output.contains("""
            ┌─ Data from a newer version
            │ \(dataFile.path) was written by a newer version of Standups (format 2); this version reads format 1.
            │ The file was left untouched: no standups are shown, and nothing is saved over it.
            """))

        let changing = try await StandupsRun(["--data", dataFile.path, "--script", "ok; add; title Daily; save; quit"])

        #expect(changing.status == 1)
        #expect(changing.lastScreen.hasSuffix("[0] Daily — 1 attendee · 5 min · Bubblegum"))
        #expect(changing.errors.hasPrefix("""
            Didn't save your standups: \(dataFile.path) was written by a newer version of Standups (format 2); \
            this version reads format 1, so it was left untouched.
            """))
        #expect(try Data(contentsOf: dataFile) == newer)
        #expect(try fileNames() == ["standups.json"])
    }

    @Test func folderGivenAsTheDataFileIsRefusedAndLeftWhereItIs() async throws {
        defer { cleanUp() }
        let folder = directory.appendingPathComponent("Standups")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))

        let run = try await StandupsRun(["--data", folder.path, "--script", "confirm; quit"])

        #expect(run.status == 2)
        #expect(run.errors.hasPrefix("""
            --data needs the path of a file; \(folder.path) is a folder. To keep the standups in it, \
            give \(folder.appendingPathComponent("standups.json").path).

            Usage: Standups [options]
            """))
        #expect(run.output.isEmpty)
        #expect(try fileNames() == ["Standups"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
    }

    // MARK: Support

    /// A data file of format 1 holding one standup, as the app writes it.
    private func validFile() throws -> Data {
        let standup: [String: Any] = [
            "id": UUID().uuidString, "title": "Engineering", "duration": 600, "theme": "periwinkle",
            "attendees": [["id": UUID().uuidString, "name": "Blob"], ["id": UUID().uuidString, "name": "Blob Jr"]],
            "meetings": [],
        ]
        return try JSONSerialization.data(withJSONObject: [standup], options: [.prettyPrinted, .sortedKeys])
    }

    private func savedTitles() throws -> [String?] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dataFile)) as? [[String: Any]])
            .map { $0["title"] as? String }
    }

    private func fileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    private func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}
