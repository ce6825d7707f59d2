import Foundation
import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// The list of standups: adding one, and loading the stored ones.
@Suite struct StandupsListTests {
    // Upstream: testAdd.
    @Test func addingAStandupThroughTheFormAppendsIt() async throws {
        let (list, tester) = StandupsList().andTester {
            $0.dataManager = .mock()
        }

        list.addStandupButtonTapped()
        let add = try await tester.unwrap(list.destination?.add)
        // The form's activation gave the new standup its first attendee.
        await tester.assert(
            add.form.standup == Standup(id: Standup.ID(UUID(0)), attendees: [Attendee(id: Attendee.ID(UUID(1)))])
        )

        add.form.standup.title = "Engineering"
        await tester.assert {
            add.form.standup.title == "Engineering"
            add.form.hasUnsavedEdits
        }

        add.add(add.form.standup)
        // The blank attendee was dropped, then kept as the first one, since no other was left.
        await tester.assert {
            list.destination == nil
            list.standupDetails.map(\.standup) == [
                Standup(id: Standup.ID(UUID(0)), attendees: [Attendee(id: Attendee.ID(UUID(1)))], title: "Engineering")
            ]
        }
        await tester.finish()
    }

    // Upstream: testAdd_ValidatedAttendees.
    @Test func addingAStandupDropsAttendeesWithBlankNames() async throws {
        let id = Standup.ID(UUID(uuidString: "DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF")!)
        let (list, tester) = StandupsList()
            .withActivation { list in
                list.destination = list.addDestination(for: Standup(
                    id: id,
                    attendees: [
                        Attendee(id: Attendee.ID(UUID(0)), name: ""),
                        Attendee(id: Attendee.ID(UUID(1)), name: "    "),
                    ],
                    title: "Design"
                ))
            }
            .andTester {
                $0.dataManager = .mock()
            }

        let add = try await tester.unwrap(list.destination?.add)
        add.add(add.form.standup)
        await tester.assert {
            list.destination == nil
            list.standupDetails.map(\.standup) == [
                Standup(id: id, attendees: [Attendee(id: Attendee.ID(UUID(0)))], title: "Design")
            ]
        }
        await tester.finish()
    }

    // Upstream: testLoadingDataDecodingFailed.
    @Test func undecodableDataOffersToLoadTheMockStandups() async throws {
        let (list, tester) = StandupsList().andTester {
            $0.dataManager = .mock(initialData: Data("!@#$ BAD DATA %^&*()".utf8))
        }

        let confirmLoadMockData = try await tester.unwrap(list.destination?.dataFailedToLoad)
        confirmLoadMockData()
        await tester.assert(list.standupDetails.map(\.standup) == [.mock, .designMock, .engineeringMock])
        await tester.finish()
    }

    // Upstream: testLoadingDataFileNotFound.
    @Test func missingDataStartsAnEmptyListWithoutAlert() async {
        let (list, tester) = StandupsList().andTester {
            $0.dataManager = .failToLoad
        }

        await tester.assert {
            list.destination == nil
            list.standupDetails.isEmpty
        }
        await tester.finish()
    }
}

/// The list's loading of stored standups: both formats, and data that cannot be used, which is
/// described and kept.
@Suite struct StandupsListLoadingTests {
    let file = URL(fileURLWithPath: "/data/standups.json")
    let keptAsideFile = URL(fileURLWithPath: "/data/standups.json.unreadable-20090213-233130")

    /// The list over `files`, with the writes and moves of `files` part of exhaustivity.
    func list(
        over files: InMemoryFiles,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> (StandupsList, Tester) {
        let (list, tester) = StandupsList()
            .andTester(fileID: fileID, filePath: filePath, line: line, column: column) {
                $0.dataManager = files.dataManager
                $0.standupsFile = file
            }
        tester.install(files.writes)
        tester.install(files.moves)
        return (list, tester)
    }

    @Test(arguments: [false, true])
    func savedStandupsAreLoaded(byTheUpstreamApp: Bool) async throws {
        let data = byTheUpstreamApp
            ? try JSONEncoder().encode([Standup.designMock])
            : try StandupsFile.encode([.designMock])
        let (list, tester) = list(over: InMemoryFiles([file: data]))

        await tester.assert {
            list.standupDetails.map(\.standup) == [.designMock]
            list.destination == nil
        }
        await tester.finish()
    }

    @Test func unreadableDataIsMovedAsideBeforeTheMockDataLoads() async throws {
        let corrupt = Data(#"[{"id": "3F1A"#.utf8)
        let files = InMemoryFiles([file: corrupt])
        let (list, tester) = list(over: files)

        // The prompt says which file, why, and where "yes" keeps it.
        await tester.assert(list.destination?.unreadableData == UnreadableData(
            file: file, reason: "The given data was not valid JSON", keptAsideFile: keptAsideFile
        ))
        #expect(files.urls == [file])

        let confirmLoadMockData = try await tester.unwrap(list.destination?.dataFailedToLoad)
        confirmLoadMockData()
        await tester.assert {
            files.moves.wasCalled(with: file, keptAsideFile)
            list.standupDetails.map(\.standup) == [.mock, .designMock, .engineeringMock]
        }
        #expect(files.urls == [keptAsideFile])
        #expect(files[keptAsideFile] == corrupt)
        await tester.finish()
    }

    @Test func fileThatCannotBeReadIsOfferedToBeMovedAside() async throws {
        let files = InMemoryFiles().dataManager
        let (list, tester) = StandupsList().andTester {
            $0.dataManager = DataManager(
                load: { _ in throw SystemError(description: "Permission denied") },
                save: files.save,
                move: files.move
            )
            $0.standupsFile = file
        }

        await tester.assert(list.destination?.unreadableData == UnreadableData(
            file: file, reason: "Permission denied", keptAsideFile: keptAsideFile
        ))
        await tester.finish()
    }

    @Test func dataFromANewerVersionIsReportedAndNotLoaded() async throws {
        let newer = Data(#"{"version": 2, "standups": [{"id": "not even a UUID"}]}"#.utf8)
        let files = InMemoryFiles([file: newer])
        let (list, tester) = list(over: files)

        let (reportedFile, version) = try await tester.unwrap(list.destination?.dataFromNewerVersion)
        #expect(reportedFile == file)
        #expect(version == 2)
        await tester.assert(list.standupDetails.isEmpty)
        #expect(files.urls == [file])
        #expect(files[file] == newer)
        await tester.finish()
    }
}
