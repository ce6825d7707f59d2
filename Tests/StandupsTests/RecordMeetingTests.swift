import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// The meeting being recorded: its timer, its transcript, and how it ends.
///
/// Time is a ``TestClock``: `advance` settles the meeting first, so the timer's first sleep, which
/// starts after the speech authorization, is never missed.
@Suite struct RecordMeetingTests {
    let onSave = TestProbe("onSave")
    let onDiscard = TestProbe("onDiscard")

    /// A meeting of `standup` with its callbacks probed (and part of exhaustivity).
    func startMeeting(
        _ standup: Standup = .sixSeconds,
        clock: TestClock,
        speechClient: SpeechClient = .test(.denied),
        exhaustivity: Exhaustivity = .full,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> (RecordMeeting, Tester) {
        let (meeting, tester) = RecordMeeting(standup: standup, onSave: onSave.call, onDiscard: onDiscard.call)
            .andTester(exhaustivity: exhaustivity, fileID: fileID, filePath: filePath, line: line, column: column) {
                $0.continuousClock = clock
                $0.speechClient = speechClient
            }
        tester.install(onSave)
        tester.install(onDiscard)
        return (meeting, tester)
    }

    // Upstream: testTimer.
    @Test func timerPassesTheWordOnEachShareAndSavesAtTheEnd() async {
        let clock = TestClock()
        let (meeting, tester) = startMeeting(clock: clock)
        let expected: [(speakerIndex: Int, secondsElapsed: Int)] = [(0, 1), (1, 2), (1, 3), (2, 4), (2, 5)]
        for (speakerIndex, secondsElapsed) in expected {
            await clock.advance(by: .seconds(1))
            await tester.assert {
                meeting.speakerIndex == speakerIndex
                meeting.secondsElapsed == secondsElapsed
                meeting.durationRemaining == .seconds(6 - secondsElapsed)
            }
        }

        await clock.advance(by: .seconds(1))
        await tester.assert {
            meeting.speakerIndex == 2
            meeting.secondsElapsed == 6
            meeting.durationRemaining == .seconds(0)
            onSave.wasCalled(with: "")
        }
        await tester.finish()
    }

    @Test func meetingOfAStandupWithoutAttendeesEndsWhenItsTimeIsUp() async throws {
        let clock = TestClock()
        // A file may hold a standup without attendees: its meeting is one share long.
        let (meeting, tester) = startMeeting(Standup(id: Standup.ID(), duration: .seconds(2)), clock: clock)

        await clock.advance(by: .seconds(1))
        await tester.assert(meeting.secondsElapsed == 1)

        await clock.advance(by: .seconds(1))
        await tester.assert {
            meeting.secondsElapsed == 2
            meeting.durationRemaining == .zero
            onSave.wasCalled(with: "")
        }

        await tester.finish()
    }

    // Upstream: testRecordTranscript.
    @Test func transcriptIsSavedWhenTheMeetingEnds() async {
        let clock = TestClock()
        // Only the transcript and the save matter here: the ticks are the timer test's subject.
        let (meeting, tester) = startMeeting(
            clock: clock, speechClient: .test(.authorized, hearing: ["I completed the project"]), exhaustivity: .off
        )

        await tester.assert(meeting.transcript == "I completed the project")
        await clock.advance(by: .seconds(6))
        await tester.assert(onSave.wasCalled(with: "I completed the project"))
        await tester.finish()
    }

    // Upstream: testEndMeetingSave.
    @Test func endingTheMeetingEarlyAndSavingSavesTheTranscript() async throws {
        let clock = TestClock()
        let (meeting, tester) = startMeeting(.mock, clock: clock)

        meeting.endMeetingButtonTapped()
        await tester.assert(meeting.destination?.endMeeting != nil)

        // The alert holds the timer: time passes without any change (exhaustivity checks it).
        await clock.advance(by: .seconds(3))

        let endMeeting = try await tester.unwrap(meeting.destination?.endMeeting)
        endMeeting.confirmSave()
        await tester.assert(onSave.wasCalled(with: ""))
        await tester.finish()
    }

    // Upstream: testEndMeetingDiscard.
    @Test func endingTheMeetingEarlyAndDiscardingDiscardsIt() async throws {
        let (meeting, tester) = startMeeting(.mock, clock: TestClock())

        meeting.endMeetingButtonTapped()
        try await tester.unwrap(meeting.destination?.endMeeting?.discard)()
        await tester.assert(onDiscard.wasCalled())
        await tester.finish()
    }

    // Upstream: testNextSpeaker.
    @Test func nextSpeakerSkipsToTheirShareAndAtTheLastOneOffersToSave() async throws {
        let (meeting, tester) = startMeeting(clock: TestClock())

        meeting.nextButtonTapped()
        await tester.assert {
            meeting.speakerIndex == 1
            meeting.secondsElapsed == 2
        }

        meeting.nextButtonTapped()
        await tester.assert {
            meeting.speakerIndex == 2
            meeting.secondsElapsed == 4
        }

        // At the last speaker the meeting can only end: saved, or resumed (no discard).
        meeting.nextButtonTapped()
        let endMeeting = try await tester.unwrap(meeting.destination?.endMeeting)
        #expect(endMeeting.discard == nil)

        endMeeting.confirmSave()
        await tester.assert(onSave.wasCalled(with: ""))
        await tester.finish()
    }

    // Upstream: testSpeechRecognitionFailure_Continue.
    @Test func failedRecognitionKeepsWhatWasHeardAndTheMeetingCanGoOn() async {
        let clock = TestClock()
        let (meeting, tester) = startMeeting(
            clock: clock, speechClient: .test(.authorized, hearing: ["I completed the project"], failing: true)
        )

        await tester.assert {
            meeting.destination?.speechRecognizerFailed != nil
            meeting.transcript == "I completed the project ❌"
        }

        // Dismissing the alert (what its "Continue" button does) lets the timer run again.
        meeting.destination = nil
        await clock.advance(by: .seconds(6))
        await tester.assert {
            meeting.secondsElapsed == 6
            meeting.speakerIndex == 2
            meeting.destination == nil
            onSave.wasCalled(with: "I completed the project ❌")
        }
        await tester.finish()
    }

    // Upstream: testSpeechRecognitionFailure_Discard.
    @Test func failedRecognitionOffersToDiscardTheMeeting() async throws {
        let (meeting, tester) = startMeeting(clock: TestClock(), speechClient: .test(.authorized, failing: true))

        let discard = try await tester.unwrap(meeting.destination?.speechRecognizerFailed)
        discard()
        await tester.assert(onDiscard.wasCalled())
        await tester.finish()
    }
}
