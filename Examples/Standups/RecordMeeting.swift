import ModelKit

/// The meeting being recorded: a timer that passes the word from attendee to attendee, and a live
/// transcript from ``SpeechClient``.
///
/// When the last attendee's time is up the meeting saves itself (`onSave` with the transcript). The
/// user can also pass to the next speaker, or end the meeting early, saving or discarding it. While
/// an alert is shown the timer does not count.
struct RecordMeeting: Model, Hashable {
    /// The alerts shown over the meeting.
    enum Destination: Sendable {
        /// Save and end, discard (when the meeting ends early), or resume.
        case endMeeting(confirmSave: @Sendable () -> Void, discard: (@Sendable () -> Void)?)
        case speechRecognizerFailed(discard: @Sendable () -> Void)
    }

    var node = ModelNode<Self>()
    @Tracked var destination: Destination?
    @Tracked private(set) var secondsElapsed = 0
    @Tracked private(set) var speakerIndex = 0
    @Tracked private(set) var standup: Standup
    @Tracked private(set) var transcript = ""
    /// Receives the transcript when the meeting is to be saved.
    let onSave: @Sendable (String) -> Void
    /// Called when the meeting is to be thrown away.
    let onDiscard: @Sendable () -> Void

    init(
        destination: Destination? = nil,
        standup: Standup,
        onSave: @escaping @Sendable (String) -> Void,
        onDiscard: @escaping @Sendable () -> Void
    ) {
        self.destination = destination
        self.standup = standup
        self.onSave = onSave
        self.onDiscard = onDiscard
    }

    var durationRemaining: Duration {
        standup.duration - .seconds(secondsElapsed)
    }

    /// Each attendee's share of the meeting, in whole seconds (at least one).
    private var secondsPerAttendee: Int {
        max(1, Int(standup.durationPerAttendee.components.seconds))
    }

    /// The index of the last share. A standup without attendees (a file may hold one) is one share
    /// long, so its meeting still ends.
    private var lastSpeakerIndex: Int {
        max(standup.attendees.count - 1, 0)
    }

    /// Asks for speech recognition if needed, then runs the timer and, when allowed, transcribes.
    func onActivate() {
        node.task {
            let speech = node.speechClient
            let authorization = speech.authorizationStatus() == .notDetermined
                ? await speech.requestAuthorization()
                : speech.authorizationStatus()
            await withDiscardingTaskGroup { group in
                group.addTask { await runTimer() }
                if authorization == .authorized {
                    group.addTask { await transcribe() }
                }
            }
        }
    }

    func endMeetingButtonTapped() {
        destination = .endMeeting(confirmSave: { onSave(transcript) }, discard: onDiscard)
    }

    func nextButtonTapped() {
        guard speakerIndex < lastSpeakerIndex else {
            destination = .endMeeting(confirmSave: { onSave(transcript) }, discard: nil)
            return
        }
        node.transaction {
            speakerIndex += 1
            secondsElapsed = speakerIndex * secondsPerAttendee
        }
    }

    /// Counts the seconds while no alert is shown, passing the word on each attendee's share, and
    /// saves when the last attendee's time is up.
    private func runTimer() async {
        do {
            for try await _ in node.continuousClock.timer(interval: .seconds(1)) {
                let isOver: Bool = node.transaction {
                    guard destination == nil else { return false }
                    secondsElapsed += 1
                    guard secondsElapsed.isMultiple(of: secondsPerAttendee) else { return false }
                    if speakerIndex >= lastSpeakerIndex { return true }
                    speakerIndex += 1
                    return false
                }
                if isOver {
                    onSave(transcript)
                    return
                }
            }
        } catch {
            // Cancelled: the meeting was removed.
        }
    }

    /// Follows the speech recognition task; a failure keeps what was heard, marked, and offers to
    /// discard the meeting.
    private func transcribe() async {
        do {
            for try await result in await node.speechClient.startTask(SpeechRecognitionRequest()) {
                transcript = result.bestTranscription.formattedString
            }
        } catch {
            guard !Task.isCancelled, !(error is CancellationError) else { return }
            node.transaction {
                if !transcript.isEmpty { transcript += " ❌" }
                destination = .speechRecognizerFailed(discard: onDiscard)
            }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("destination", \.$destination)
        r.track("secondsElapsed", \.$secondsElapsed)
        r.track("speakerIndex", \.$speakerIndex)
        r.track("standup", \.$standup)
        r.track("transcript", \.$transcript)
    }
}

extension RecordMeeting.Destination {
    var endMeeting: (confirmSave: @Sendable () -> Void, discard: (@Sendable () -> Void)?)? {
        guard case .endMeeting(let confirmSave, let discard) = self else { return nil }
        return (confirmSave, discard)
    }

    var speechRecognizerFailed: (@Sendable () -> Void)? {
        guard case .speechRecognizerFailed(let discard) = self else { return nil }
        return discard
    }
}
