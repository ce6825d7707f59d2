import Foundation
import ModelKit
import ModelKitTesting
import Testing

// The workout timer of WorkoutTimerModels.swift driven as its team's tests would drive it, under a
// full-exhaustivity Tester and a TestClock: every tick, phase, event and sound is asserted.

@Suite struct WorkoutTimerScenarioTests {
    @Test func aSessionRunsThroughEveryIntervalOnTheClock() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)

        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            session.elapsed == 2
            session.remaining == 1
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            session.index == 1
            session.elapsed == 0
            session.remaining == 2
            workout.phases == ["Warm up", "Sprint"]
            session.didSend(.phaseChanged("Sprint"))
            h.sounds.wasCalled(with: "bell", 1)
        }
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            session.index == 2
            session.remaining == 1
            workout.phases == ["Warm up", "Sprint", "Rest"]
            session.didSend(.phaseChanged("Rest"))
            h.sounds.wasCalled(with: "bell", 2)
        }
        // The last tick ends the session: the workout removes it, which stops the sound.
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            workout.session == nil
            workout.completedSessions == 1
            workout.phases == ["Warm up", "Sprint", "Rest", "done"]
            session.index == 3
            session.didSend(.phaseChanged("done"))
            session.didSend(.finished)
            h.stops.wasCalled
        }
        #expect(session.lifetime == .destructed)
        await h.clock.advance(by: .seconds(5))
        await tester.finish()
    }

    @Test func runningTheClockOutFinishesTheWorkout() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)

        // The session ends itself after the last interval, so nothing sleeps any more.
        await h.clock.run()
        await tester.assert {
            workout.session == nil
            workout.completedSessions == 1
            workout.phases == ["Warm up", "Sprint", "Rest", "done"]
            session.didSend(.phaseChanged("Sprint"))
            session.didSend(.phaseChanged("Rest"))
            session.didSend(.phaseChanged("done"))
            session.didSend(.finished)
            h.sounds.wasCalled(with: "bell", 1)
            h.sounds.wasCalled(with: "bell", 2)
            h.stops.wasCalled
            // The session removed itself: its handle still reads (and asserts) its last state.
            session.index == 3
            session.elapsed == 0
        }
        await tester.finish()
    }

    @Test func twoSkipsInOneTransactionAnnounceOnePhase() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)

        session.node.transaction {
            session.skipTapped()
            session.skipTapped()
        }
        await tester.assert {
            session.index == 2
            workout.phases == ["Warm up", "Rest"]
            session.didSend(.phaseChanged("Rest"))
            h.sounds.wasCalled(with: "bell", 2)
        }
        // The second skip's ticking replaced the first's: one tick per second.
        await h.clock.advance(by: .milliseconds(999))
        await tester.assert(session.remaining == 1)
        await h.clock.advance(by: .milliseconds(1))
        await tester.assert {
            workout.session == nil
            workout.completedSessions == 1
            workout.phases == ["Warm up", "Rest", "done"]
            session.didSend(.phaseChanged("done"))
            session.didSend(.finished)
            h.stops.wasCalled
            session.index == 3
        }
        await tester.finish()
    }

    @Test func restartingWhileRunningStartsAFullSecond() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)

        await h.clock.advance(by: .milliseconds(3500))
        await tester.assert {
            session.index == 1
            session.elapsed == 0
            workout.phases == ["Warm up", "Sprint"]
            session.didSend(.phaseChanged("Sprint"))
            h.sounds.wasCalled(with: "bell", 1)
        }
        session.restartTapped()
        await tester.assert {
            session.index == 0
            workout.phases == ["Warm up", "Sprint", "Warm up"]
            session.didSend(.phaseChanged("Warm up"))
            h.sounds.wasCalled(with: "bell", 0)
        }
        await h.clock.advance(by: .milliseconds(999))
        await tester.assert(session.remaining == 3)
        await h.clock.advance(by: .milliseconds(1))
        await tester.assert(session.elapsed == 1)
        await h.endAndFinish(workout, tester)
    }

    @Test func pausingStopsTheTickingAndResumingStartsAFullSecond() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)

        await h.clock.advance(by: .milliseconds(1500))
        session.pauseTapped()
        await tester.assert {
            session.isPaused
            session.elapsed == 1
        }
        await h.clock.advance(by: .seconds(10))
        await tester.assert(session.remaining == 2)

        session.resumeTapped()
        await h.clock.advance(by: .milliseconds(999))
        await tester.assert {
            !session.isPaused
            session.elapsed == 1
        }
        await h.clock.advance(by: .milliseconds(1))
        await tester.assert(session.elapsed == 2)
        await h.endAndFinish(workout, tester)
    }

    @Test func skippingAndRestartingCancelTheTickingByID() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)

        await h.clock.advance(by: .milliseconds(1500))
        await tester.assert(session.elapsed == 1)

        // Skip half-way through a second: the sprint gets a full first second.
        session.skipTapped()
        await tester.assert {
            session.index == 1
            session.elapsed == 0
            workout.phases == ["Warm up", "Sprint"]
            session.didSend(.phaseChanged("Sprint"))
            h.sounds.wasCalled(with: "bell", 1)
        }
        await h.clock.advance(by: .milliseconds(999))
        await tester.assert(session.remaining == 2)
        await h.clock.advance(by: .milliseconds(1))
        await tester.assert(session.elapsed == 1)

        // Restart while paused: back to the first interval, and nothing ticks until resumed.
        session.pauseTapped()
        session.restartTapped()
        await tester.assert {
            session.isPaused
            session.index == 0
            session.elapsed == 0
            workout.phases == ["Warm up", "Sprint", "Warm up"]
            session.didSend(.phaseChanged("Warm up"))
            h.sounds.wasCalled(with: "bell", 0)
        }
        await h.clock.advance(by: .seconds(5))
        session.resumeTapped()
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            !session.isPaused
            session.elapsed == 1
        }
        await h.endAndFinish(workout, tester)
    }

    @Test func endingASessionWhileItsTimerSleepsCancelsItAtOnce() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)

        await h.clock.advance(by: .milliseconds(2500))
        await tester.assert(session.elapsed == 2)

        workout.endTapped()
        await tester.assert {
            workout.session == nil
            h.stops.wasCalled
        }
        #expect(session.lifetime == .destructed)
        // Nothing sleeps on the clock any more: time passing changes nothing.
        await h.clock.run()
        await h.clock.advance(by: .seconds(30))
        await tester.settle()
        #expect(session.elapsed == 2)

        // A new session starts from the beginning.
        let second = try await h.startSession(workout, tester, phases: ["Warm up", "Warm up"])
        #expect(second.id != session.id)
        await h.clock.advance(by: .seconds(1))
        await tester.assert(second.elapsed == 1)
        await h.endAndFinish(workout, tester)
    }

    @Test func startingOverReplacesTheSleepingSessionInOneTransaction() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let first = try await h.startSession(workout, tester)
        await h.clock.advance(by: .milliseconds(2500))
        await tester.assert(first.elapsed == 2)

        // A new session in place of the one whose timer sleeps: the old one stops first.
        workout.node.transaction {
            workout.endTapped()
            workout.startTapped()
        }
        let second = try await tester.unwrap(workout.session)
        #expect(second.id != first.id && first.lifetime == .destructed)
        await tester.assert {
            workout.phases == ["Warm up", "Warm up"]
            second.didSend(.phaseChanged("Warm up"))
            h.stops.wasCalled
            h.sounds.wasCalled(with: "bell", 0)
        }
        // Only the new session's timer is left, started when it activated.
        await h.clock.advance(by: .milliseconds(999))
        await tester.assert(second.elapsed == 0)
        await h.clock.advance(by: .milliseconds(1))
        await tester.assert(second.elapsed == 1)
        #expect(first.elapsed == 2)
        workout.endTapped()
        await tester.assert {
            workout.session == nil
            h.stops.callCount == 2
        }
        await tester.finish()
    }

    @Test func editingTheIntervalsWhileASessionRunsContinuesThem() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let warmUp = workout.intervals[0]
        let session = try await h.startSession(workout, tester)

        await h.clock.advance(by: .seconds(1))
        await tester.assert(session.remaining == 2)

        // The editor hands back fresh instances with the same ids: the warm-up gets longer.
        workout.apply([(1, "Warm up", 5), (2, "Sprint", 2), (3, "Cool down", 1)])
        await tester.assert {
            workout.intervals.map(\.seconds) == [5, 2, 1]
            workout.intervals.map(\.name) == ["Warm up", "Sprint", "Cool down"]
            workout.totalSeconds == 8
            session.remaining == 4
        }
        #expect(warmUp.lifetime == .anchored && warmUp.seconds == 5)

        // A handle from before the edit writes to the live interval.
        warmUp.seconds = 2
        await tester.assert {
            workout.intervals[0].seconds == 2
            session.remaining == 1
            workout.totalSeconds == 5
        }

        // Undo takes back the last edit, then the applied one.
        workout.undoTapped()
        await tester.assert {
            workout.intervals[0].seconds == 5
            session.remaining == 4
        }
        workout.undoTapped()
        await tester.assert {
            workout.intervals.map(\.seconds) == [3, 2, 1]
            workout.intervals.map(\.name) == ["Warm up", "Sprint", "Rest"]
            session.remaining == 2
        }
        #expect(warmUp.lifetime == .anchored)
        workout.redoTapped()
        await tester.assert {
            workout.intervals.map(\.seconds) == [5, 2, 1]
            workout.intervals[2].name == "Cool down"
        }

        // The session keeps ticking through the edits into the next phase.
        await h.clock.advance(by: .seconds(4))
        await tester.assert {
            session.index == 1
            session.elapsed == 0
            workout.phases == ["Warm up", "Sprint"]
            session.didSend(.phaseChanged("Sprint"))
            h.sounds.wasCalled(with: "bell", 1)
        }
        await h.endAndFinish(workout, tester)
    }

    @Test func removingTheNextIntervalAndUndoingItWhileASessionRuns() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let sprint = workout.intervals[1]
        let session = try await h.startSession(workout, tester)

        workout.apply([(1, "Warm up", 3), (3, "Rest", 1)])
        await tester.assert {
            workout.intervals.map(\.name) == ["Warm up", "Rest"]
            workout.totalSeconds == 4
        }
        #expect(sprint.lifetime == .destructed)

        workout.undoTapped()
        await tester.assert {
            workout.intervals.map(\.name) == ["Warm up", "Sprint", "Rest"]
            workout.intervals[1].seconds == 2
            workout.totalSeconds == 6
        }
        await h.clock.advance(by: .seconds(3))
        await tester.assert {
            session.index == 1
            session.elapsed == 0
            session.remaining == 2
            workout.phases == ["Warm up", "Sprint"]
            session.didSend(.phaseChanged("Sprint"))
            h.sounds.wasCalled(with: "bell", 1)
        }
        await h.endAndFinish(workout, tester)
    }

    @Test func theCountdownBeepsItsLastSecondsAndFollowsEdits() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        workout.startTapped(beepsCountdown: true)
        let session = try await tester.unwrap(workout.session)
        await tester.assert {
            workout.phases == ["Warm up"]
            session.didSend(.phaseChanged("Warm up"))
            h.sounds.wasCalled(with: "bell", 0)
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            session.elapsed == 1
            h.sounds.wasCalled(with: "beep", 2)
        }
        // Lengthening the running interval moves the countdown back: no beep at 4 left.
        workout.apply([(1, "Warm up", 5), (2, "Sprint", 2), (3, "Rest", 1)])
        await tester.assert {
            workout.intervals[0].seconds == 5
            session.remaining == 4
        }
        // Shortening it below what is left beeps once, with the new count.
        workout.intervals[0].seconds = 2
        await tester.assert {
            workout.intervals[0].seconds == 2
            session.remaining == 1
            h.sounds.wasCalled(with: "beep", 1)
        }
        await h.endAndFinish(workout, tester)
    }

    @Test func pausingFromAnotherThreadWhileTheClockAdvances() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)

        await h.clock.advance(by: .milliseconds(1500))
        await Task.detached { session.pauseTapped() }.value
        await h.clock.advance(by: .seconds(5))
        await tester.assert {
            session.isPaused
            session.elapsed == 1
        }
        await Task.detached { session.resumeTapped() }.value
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            !session.isPaused
            session.elapsed == 2
        }
        await h.endAndFinish(workout, tester)
    }

    @Test func aPhaseTransitionIsOneCommit() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)
        let states = session.node.observe { "\(session.index)/\(session.elapsed)/\(session.remaining)" }
        let commits = workout.node.modifications()

        await h.clock.advance(by: .seconds(3))
        await tester.assert {
            session.index == 1
            session.elapsed == 0
            workout.phases == ["Warm up", "Sprint"]
            session.didSend(.phaseChanged("Sprint"))
            h.sounds.wasCalled(with: "bell", 1)
        }
        var seen: [String] = []
        for await state in states {
            seen.append(state)
            if seen.count == 4 { break }
        }
        #expect(seen == ["0/0/3", "0/1/2", "0/2/1", "1/0/2"])
        var paths: [[String]] = []
        for await commit in commits {
            paths.append(commit.paths.sorted())
            if paths.count == 4 { break }
        }
        #expect(paths == [
            ["Workout.session.elapsed", "Workout.session.ticks"],
            ["Workout.session.elapsed", "Workout.session.ticks"],
            ["Workout.session.elapsed", "Workout.session.index", "Workout.session.ticks"],
            ["Workout.phases"],
        ])
        await h.endAndFinish(workout, tester)
    }

    @Test func aDetachedWriterEditsWhileTheClockAdvances() async throws {
        let h = WorkoutHarness()
        let (workout, tester) = h.start()
        let session = try await h.startSession(workout, tester)
        let rest = workout.intervals[2]

        let writer = Task.detached {
            for seconds in 1...200 { rest.seconds = seconds }
            workout.name = "Long rest"
        }
        await h.clock.advance(by: .seconds(2))
        await writer.value
        await tester.assert {
            workout.name == "Long rest"
            workout.intervals[2].seconds == 200
            workout.totalSeconds == 205
            session.elapsed == 2
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            session.index == 1
            session.elapsed == 0
            workout.phases == ["Warm up", "Sprint"]
            session.didSend(.phaseChanged("Sprint"))
            h.sounds.wasCalled(with: "bell", 1)
        }
        await h.endAndFinish(workout, tester)
    }
}
