import Foundation
import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// The app root: routing the detail's events, saving the standups, recording a meeting.
@Suite struct AppFeatureTests {
    // Upstream: testDelete.
    @Test func deletingAStandupPopsTheDetailAndRemovesIt() async throws {
        let standup = Standup.mock
        let (app, tester) = AppFeature().andTester {
            $0.dataManager = .mock([standup])
        }

        await tester.assert(app.standupsList.standupDetails.first?.standup == standup)
        let detail = try await tester.unwrap(app.standupsList.standupDetails.first)

        app.path.append(.detail(detail.id))
        await tester.assert(app.path.count == 1)

        detail.deleteButtonTapped()
        try await tester.unwrap(detail.destination?.deleteStandup)()
        await tester.assert {
            detail.didSend(.deleteStandup)
            app.path.isEmpty
            app.standupsList.standupDetails.isEmpty
        }
        await tester.finish()
    }

    // Upstream: testDetailEdit.
    @Test func editingAStandupSavesItAfterTheDebounce() async throws {
        let standup = Standup.mock
        let savedStandups = TestProbe("save")
        let (app, tester) = AppFeature().andTester {
            $0.dataManager = .reportingSaves(of: .mock([standup]), to: savedStandups.call)
        }
        tester.install(savedStandups)

        // The root observes the standups before the list loads them (parents activate first), so the
        // loaded standups are saved once. Asserted together: with the ImmediateClock the save may come
        // before the first check.
        await tester.assert {
            app.standupsList.standupDetails.first?.standup == standup
            savedStandups.wasCalled(with: [standup])
        }
        let detail = try await tester.unwrap(app.standupsList.standupDetails.first)

        app.path.append(.detail(detail.id))
        await tester.assert(app.path.count == 1)

        detail.editButtonTapped()
        let edit = try await tester.unwrap(detail.destination?.edit)
        edit.form.standup.title = "Blob"
        await tester.assert {
            edit.form.standup.title == "Blob"
            edit.form.hasUnsavedEdits
        }

        var edited = standup
        edited.title = "Blob"
        edit.save(edit.form.standup)
        await tester.assert {
            detail.destination == nil
            detail.standup == edited
            savedStandups.wasCalled(with: [edited])
        }
        await tester.finish()
    }

    // Upstream: testRecording.
    @Test func recordedMeetingIsAddedToTheStandupAndItsScreenPopped() async throws {
        let standup = Standup.sixSeconds
        let clock = GatedClock()
        // Only the outcome matters here: the steps of the meeting are RecordMeetingTests' subject.
        let (app, tester) = AppFeature(path: [.detail(standup.id)]).andTester(exhaustivity: .off) {
            $0.continuousClock = clock
            $0.dataManager = .mock([standup])
            $0.speechClient = .test(.authorized, hearing: ["I completed the project"])
        }

        let detailID = try await tester.unwrap(app.path.first?.detail)
        let detail = try await tester.unwrap(app.standupsList.standupDetails[id: detailID])
        detail.startMeetingButtonTapped()

        // The meeting's timer waits at the clock until the transcript is in, then runs to its end.
        let meeting = try await tester.unwrap(app.path.last?.record)
        await tester.assert(meeting.transcript == "I completed the project")
        clock.open()

        await tester.assert {
            detail.standup.meetings == [
                Meeting(
                    id: Meeting.ID(UUID(0)),
                    date: Date(timeIntervalSince1970: 1_234_567_890),
                    transcript: "I completed the project"
                )
            ]
            app.path.count == 1
        }
        await tester.finish()
    }
}
