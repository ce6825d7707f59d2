import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// A standup's screen: starting a meeting under each speech authorization, and editing.
@Suite struct StandupDetailTests {
    // Upstream: testSpeechRestricted.
    @Test func startingAMeetingWhenSpeechIsRestrictedShowsTheRestrictedAlert() async {
        let (detail, tester) = StandupDetail(standup: .mock).andTester {
            $0.speechClient = .test(.restricted)
        }

        detail.startMeetingButtonTapped()
        await tester.assert(detail.destination?.speechRecognitionRestricted != nil)
        await tester.finish()
    }

    // Upstream: testSpeechDenied.
    @Test func startingAMeetingWhenSpeechIsDeniedShowsTheDeniedAlert() async {
        let (detail, tester) = StandupDetail(standup: .mock).andTester {
            $0.speechClient = .test(.denied)
        }

        detail.startMeetingButtonTapped()
        await tester.assert(detail.destination?.speechRecognitionDenied != nil)
        await tester.finish()
    }

    // Upstream: testOpenSettings.
    @Test func deniedAlertOpensTheSettings() async throws {
        let settingsOpened = TestProbe("openSettings")
        let (detail, tester) = StandupDetail(standup: .mock).andTester {
            $0.speechClient = .test(.denied)
            $0.openSettings = settingsOpened.call
        }
        tester.install(settingsOpened)

        detail.startMeetingButtonTapped()
        let alert = try await tester.unwrap(detail.destination?.speechRecognitionDenied)
        alert.openSettings()
        await tester.assert {
            detail.destination?.speechRecognitionDenied != nil
            settingsOpened.wasCalled()
        }
        await tester.finish()
    }

    // Upstream: testContinueWithoutRecording.
    @Test func deniedAlertContinuesWithoutRecording() async throws {
        let (detail, tester) = StandupDetail(standup: .mock).andTester {
            $0.speechClient = .test(.denied)
        }

        detail.startMeetingButtonTapped()
        let alert = try await tester.unwrap(detail.destination?.speechRecognitionDenied)
        alert.continue()
        await tester.assert {
            detail.destination?.speechRecognitionDenied != nil
            detail.didSend(.startMeeting)
        }
        await tester.finish()
    }

    // Upstream: testSpeechAuthorized.
    @Test func startingAMeetingWhenSpeechIsAuthorizedAsksToStartIt() async {
        let (detail, tester) = StandupDetail(standup: .mock).andTester {
            $0.speechClient = .test(.authorized)
        }

        detail.startMeetingButtonTapped()
        await tester.assert(detail.didSend(.startMeeting))
        await tester.finish()
    }

    // Upstream: testEdit.
    @Test func savingTheEditFormReplacesTheStandup() async throws {
        let (detail, tester) = StandupDetail(standup: .mock).andTester()

        detail.editButtonTapped()
        await tester.assert(detail.destination?.edit != nil)

        let edit = try await tester.unwrap(detail.destination?.edit)
        edit.form.standup.title = "Blob's Meeting"
        await tester.assert {
            edit.form.standup.title == "Blob's Meeting"
            edit.form.hasUnsavedEdits
        }

        edit.save(edit.form.standup)
        await tester.assert {
            detail.destination == nil
            detail.standup.title == "Blob's Meeting"
        }
        await tester.finish()
    }
}
