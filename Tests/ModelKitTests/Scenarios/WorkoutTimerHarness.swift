import Foundation
import ModelKit
import ModelKitTesting
import Testing

// What the workout-timer scenario tests share: the workout they drive and its tester's setup.

func workoutIssueText(_ issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// Warm up 3 s, sprint 2 s, rest 1 s.
func makeWorkout() -> Workout {
    Workout(name: "Intervals", intervals: [
        WorkoutInterval(id: 1, name: "Warm up", seconds: 3),
        WorkoutInterval(id: 2, name: "Sprint", seconds: 2),
        WorkoutInterval(id: 3, name: "Rest", seconds: 1),
    ])
}

/// A TestClock and probes standing in for the sound player, and a tester driving a workout.
struct WorkoutHarness {
    let clock = TestClock()
    let sounds = TestProbe("play")
    let stops = TestProbe("stop")

    func start(_ workout: Workout = makeWorkout()) -> (Workout, Tester) {
        let sounds = sounds, stops = stops
        let (workout, tester) = workout.andTester {
            $0.continuousClock = clock
            $0.soundPlayer = SoundPlayer(play: { sounds.call($0, $1) }, stop: { stops.call() })
        }
        tester.install(sounds)
        tester.install(stops)
        return (workout, tester)
    }

    /// Starts a session and asserts its first phase.
    func startSession(_ workout: Workout, _ tester: Tester, phases: [String] = ["Warm up"]) async throws -> WorkoutSession {
        workout.startTapped()
        let session = try await tester.unwrap(workout.session)
        await tester.assert {
            workout.phases == phases
            session.didSend(.phaseChanged("Warm up"))
            sounds.wasCalled(with: "bell", 0)
            session.remaining == 3
        }
        return session
    }

    /// Ends the workout (its session is removed, the player stopped), asserts it, and ends the test.
    func endAndFinish(
        _ workout: Workout, _ tester: Tester,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) async {
        workout.endTapped()
        await tester.assert(fileID: fileID, filePath: filePath, line: line, column: column) {
            workout.session == nil
            stops.wasCalled
        }
        await tester.finish()
    }
}
