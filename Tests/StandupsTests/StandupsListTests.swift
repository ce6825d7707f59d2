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
        await tester.assert(add.form.standup.title == "Engineering")

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
