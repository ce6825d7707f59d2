import Foundation
import ModelKit

// A workout timer app, written as an app team writes it against API.md: a workout of intervals
// (models with ids), a session child that runs them on the clock, pauses and resumes through
// task(id:), skips and restarts through cancellation ids, a memoized countdown, sounds through a
// dependency, phase changes sent up as events, and undo of interval edits.

/// Plays the app's sounds: `play(sound, intervalIndex)`, `stop()` when a session ends.
struct SoundPlayer: Sendable {
    var play: @Sendable (String, Int) -> Void
    var stop: @Sendable () -> Void
}

extension SoundPlayer: DependencyKey {
    static let liveValue = SoundPlayer(play: { _, _ in }, stop: {})
}

extension DependencyValues {
    var soundPlayer: SoundPlayer { get { self[SoundPlayer.self] } set { self[SoundPlayer.self] = newValue } }
}

struct WorkoutInterval: Model {
    let id: Int
    var node = ModelNode<Self>()
    @Tracked var name: String
    @Tracked var seconds: Int

    init(id: Int, name: String, seconds: Int) {
        self.id = id
        self.name = name
        self.seconds = seconds
    }

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$seconds)
    }
}

struct WorkoutSession: Model {
    enum Event: Sendable, Equatable {
        case phaseChanged(String)
        case finished
    }

    enum TickingID: Hashable, Sendable { case ticking }

    var node = ModelNode<Self>()
    /// Beeps the last seconds of each interval.
    let beepsCountdown: Bool
    @Tracked var index = 0
    @Tracked var elapsed = 0
    @Tracked var isPaused = false
    /// Ticks the session counted, all phases together.
    @Tracked var ticks = 0

    init(beepsCountdown: Bool = false) {
        self.beepsCountdown = beepsCountdown
    }

    /// The workout running this session, found above it in the hierarchy.
    var workout: Workout? { node.mapHierarchy(for: .parent) { $0 as? Workout }.first }
    var intervals: [WorkoutInterval] { workout?.intervals ?? [] }
    var current: WorkoutInterval? { index < intervals.count ? intervals[index] : nil }
    var phaseName: String { current?.name ?? "done" }

    /// Seconds left in the current interval.
    var remaining: Int {
        node.memoize { max(0, (current?.seconds ?? 0) - elapsed) }
    }

    func onActivate() {
        node.onChange(of: phaseName, initial: true) { _, name in
            node.send(.phaseChanged(name))
            if name == "done" {
                node.send(.finished)
            } else {
                node.soundPlayer.play("bell", index)
            }
        }
        if beepsCountdown {
            node.onChange(of: remaining) { _, remaining in
                if (1...2).contains(remaining) { node.soundPlayer.play("beep", remaining) }
            }
        }
        node.task(id: isPaused) { paused in
            if paused {
                node.cancelAll(for: TickingID.ticking)
            } else {
                startTicking()
            }
        }
        node.onCancel { node.soundPlayer.stop() }
    }

    /// Starts (or restarts, for a full first second) the ticking of the current interval.
    func startTicking() {
        node.task {
            for try await _ in node.continuousClock.timer(interval: .seconds(1)) {
                tick()
            }
        }
        .cancel(for: TickingID.ticking, cancelInFlight: true)
    }

    func tick() {
        node.transaction {
            guard current != nil else { return }
            ticks += 1
            elapsed += 1
            if remaining == 0 {
                index += 1
                elapsed = 0
            }
        }
    }

    func pauseTapped() { isPaused = true }
    func resumeTapped() { isPaused = false }

    func skipTapped() {
        node.transaction {
            index += 1
            elapsed = 0
        }
        if !isPaused { startTicking() }
    }

    func restartTapped() {
        node.cancelAll(for: TickingID.ticking)
        node.transaction {
            index = 0
            elapsed = 0
        }
        if !isPaused { startTicking() }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$index)
        r.track(\.$elapsed)
        r.track(\.$isPaused)
        r.track(\.$ticks, options: .private)
    }
}

struct Workout: Model {
    var node = ModelNode<Self>()
    @Tracked var name: String
    @Tracked var intervals: [WorkoutInterval]
    @Tracked var session: WorkoutSession?
    @Tracked var phases: [String] = []
    @Tracked var completedSessions = 0

    init(name: String, intervals: [WorkoutInterval]) {
        self.name = name
        self.intervals = intervals
    }

    var totalSeconds: Int { node.memoize { intervals.reduce(0) { $0 + $1.seconds } } }

    func onActivate() {
        node.trackUndo(\.name, \.intervals)
        node.forEach(node.event(fromType: WorkoutSession.self)) { event, _ in
            switch event {
            case .phaseChanged(let name):
                phases.append(name)
            case .finished:
                node.transaction {
                    completedSessions += 1
                    session = nil
                }
            }
        }
    }

    func startTapped(beepsCountdown: Bool = false) { session = WorkoutSession(beepsCountdown: beepsCountdown) }
    func endTapped() { session = nil }

    /// Applies the intervals as the editor (or a sync) hands them over: fresh instances, same ids.
    func apply(_ edited: [(id: Int, name: String, seconds: Int)]) {
        intervals = edited.map { WorkoutInterval(id: $0.id, name: $0.name, seconds: $0.seconds) }
    }

    func undoTapped() { node.undoStack.undo() }
    func redoTapped() { node.undoStack.redo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$intervals)
        r.track(\.$session)
        r.track(\.$phases)
        r.track(\.$completedSessions)
    }
}
