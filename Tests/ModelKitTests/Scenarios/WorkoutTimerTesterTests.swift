import Foundation
import ModelKit
import ModelKitTesting
import Testing

// The workout timer under the Tester's own tools: relaxed exhaustivity, the default immediate
// clock, and the full text of what a missed assertion reports.

@Suite struct WorkoutTimerTesterTests {
    @Test func aWholeWorkoutUnderRelaxedExhaustivityThenExhaustiveAgain() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        await tester.withExhaustivity(.off) {
            workout.startTapped()
            await h.clock.advance(by: .seconds(6))
            await tester.assert(workout.completedSessions == 1)
        }
        #expect(workout.session == nil)
        workout.name = "Again"
        await tester.assert(workout.name == "Again")
        await tester.finish()
    }

    @Test func onTheImmediateClockAWorkoutRunsStraightThrough() async throws {
        let sounds = TestProbe("play"), stops = TestProbe("stop")
        // The session is gone before the test can hold it: its state and events are not asserted
        // (Testing.md: an outcome on the immediate clock), its sounds and the workout's are.
        let (workout, tester) = makeWorkout().andTester(exhaustivity: [.probes, .tasks]) {
            $0.soundPlayer = SoundPlayer(play: { sounds.call($0, $1) }, stop: { stops.call() })
        }
        tester.install(sounds)
        tester.install(stops)
        workout.startTapped()
        await tester.assert {
            workout.session == nil
            workout.completedSessions == 1
            workout.phases == ["Warm up", "Sprint", "Rest", "done"]
            sounds.wasCalled(with: "bell", 0)
            sounds.wasCalled(with: "bell", 1)
            sounds.wasCalled(with: "bell", 2)
            stops.wasCalled
        }
        await tester.finish()
    }

    @Test func aMissedAssertionSaysWhatItRead() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)
        await h.clock.advance(by: .seconds(1))

        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20)) {
                session.remaining == 3
            }
        } matching: { issue in
            workoutIssueText(issue) == """
            Assertion failed: the predicate was still false after 0.02 s.

              session.remaining == 3
                expected: 3
                read: Workout.session.remaining (memoized) = 2
                read: Workout.session.elapsed = 1
                read: Workout.intervals[0].seconds = 3
                read: Workout.session.index = 0
                read: Workout.intervals = [
                        [0]: WorkoutInterval(id: 1, name: "Warm up", seconds: 3),
                        [1]: WorkoutInterval(id: 2, name: "Sprint", seconds: 2),
                        [2]: WorkoutInterval(id: 3, name: "Rest", seconds: 1)
                      ]
                read: Workout.session's parents (a hierarchy query)

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20)) {
                session.didSend(.phaseChanged("Sprint"))
            }
        } matching: { issue in
            workoutIssueText(issue) == """
            Assertion failed: the predicate was still false after 0.02 s.

              session.didSend(.phaseChanged("Sprint"))
                no event was sent that is not asserted yet

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        // A skip not asserted: the wrong event is looked for, the one sent is listed.
        session.skipTapped()
        await withKnownIssue {
            await tester.assert(timeout: .milliseconds(20)) {
                session.index == 1
                session.elapsed == 0
                workout.phases == ["Warm up", "Sprint"]
                session.didSend(.phaseChanged("Rest"))
                h.sounds.wasCalled(with: "bell", 2)
            }
        } matching: { issue in
            workoutIssueText(issue) == """
            Assertion failed: predicates 4 and 5 of 5 were still false after 0.02 s.

              session.didSend(.phaseChanged("Rest"))
                events sent and not asserted:
                  Workout.session sent .phaseChanged("Sprint")

              h.sounds.wasCalled(with: "bell", 2)
                play was called: play("bell", 1) (2 calls in all)

            To fix, either:
              • Compare what each predicate expects with the values it read.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        // What that failure showed is reported: ending the session leaves its stop to assert.
        workout.endTapped()
        try? await withKnownIssue {
            _ = try await tester.unwrap(workout.session, timeout: .milliseconds(20))
        } matching: { issue in
            workoutIssueText(issue) == """
            Unwrap failed: `workout.session` was still nil after 0.02 s.

            It read:
              Workout.session = nil

            To fix, either:
              • Trigger the action that sets the value before unwrapping it.
              • If the model needs more time, pass a longer `timeout:` or raise `tester.timeout`.
            """
        }
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            workoutIssueText(issue) == """
            Probe calls were not asserted:

              stop()

            To fix, either:
              • Assert each call with `probe.wasCalled(with: …)` in a `tester.assert { … }`.
              • Or stop requiring probe assertions: `tester.exhaustivity.remove(.probes)`.
            """
        }
    }
}
