import Synchronization

/// Speech recognition without a microphone: it hears the lines given to ``hear(_:)``.
///
/// The terminal app's `say TEXT` command is how one speaks to it. Asking for authorization when it
/// is not determined yet grants it, as a user tapping "Allow" would. Each recognition task
/// transcribes what it hears from its start, words accumulating as a live transcription does; lines
/// heard while no task runs wait for the next one.
///
/// ```swift
/// let speech = TypedSpeech()
/// let app = AppFeature().withAnchor { $0.speechClient = speech.client }
/// speech.hear("I finished the parser")
/// ```
final class TypedSpeech: Sendable {
    private struct State {
        var status: SpeechAuthorizationStatus
        var tasks: [Int: RecognitionTask] = [:]
        var nextTaskID = 0
        var unheard: [String] = []
    }

    private struct RecognitionTask {
        var transcript: [String] = []
        let continuation: SpeechRecognitionResults.Continuation
    }

    private let state: Mutex<State>

    init(status: SpeechAuthorizationStatus = .notDetermined) {
        state = Mutex(State(status: status))
    }

    /// The authorization status now.
    var status: SpeechAuthorizationStatus { state.withLock { $0.status } }

    /// Says `text` to the running recognition tasks (or to the next one).
    func hear(_ text: String) {
        let deliveries = state.withLock { state -> [(SpeechRecognitionResults.Continuation, String)] in
            guard !state.tasks.isEmpty else {
                state.unheard.append(text)
                return []
            }
            return state.tasks.keys.sorted().map { id in
                state.tasks[id]!.transcript.append(text)
                let task = state.tasks[id]!
                return (task.continuation, task.transcript.joined(separator: " "))
            }
        }
        for (continuation, transcript) in deliveries {
            continuation.yield(SpeechRecognitionResult(
                bestTranscription: Transcription(formattedString: transcript), isFinal: false
            ))
        }
    }

    /// A ``SpeechClient`` using this recognizer.
    var client: SpeechClient {
        SpeechClient(
            authorizationStatus: { self.status },
            requestAuthorization: {
                self.state.withLock { state in
                    if state.status == .notDetermined { state.status = .authorized }
                    return state.status
                }
            },
            startTask: { _ in self.startTask() }
        )
    }

    private func startTask() -> SpeechRecognitionResults {
        let (results, continuation) = SpeechRecognitionResults.makeStream()
        let (id, unheard) = state.withLock { state in
            state.nextTaskID += 1
            state.tasks[state.nextTaskID] = RecognitionTask(continuation: continuation)
            defer { state.unheard = [] }
            return (state.nextTaskID, state.unheard)
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.tasks.removeValue(forKey: id) }
        }
        for text in unheard { hear(text) }
        return results
    }
}
