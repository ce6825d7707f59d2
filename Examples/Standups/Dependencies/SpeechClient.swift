import ModelKit

/// Transcribes what is said during a meeting.
///
/// The same interface as the Speech framework's recognizer, with types of its own so that it builds
/// everywhere: ``SpeechAuthorizationStatus`` for `SFSpeechRecognizerAuthorizationStatus`,
/// ``SpeechRecognitionRequest`` for `SFSpeechAudioBufferRecognitionRequest`. No platform ModelKit
/// runs on here has speech recognition, so the live value is ``TypedSpeech``: it "hears" the lines
/// typed to it. There is no `testValue`: a test says what it hears.
///
/// ```swift
/// let (model, tester) = RecordMeeting(standup: .mock, onSave: { _ in }, onDiscard: {}).andTester {
///     $0.speechClient.authorizationStatus = { .authorized }
///     $0.speechClient.startTask = { _ in
///         AsyncThrowingStream {
///             $0.yield(SpeechRecognitionResult(
///                 bestTranscription: Transcription(formattedString: "I completed the project"),
///                 isFinal: true
///             ))
///             $0.finish()
///         }
///     }
/// }
/// ```
struct SpeechClient: Sendable {
    var authorizationStatus: @Sendable () -> SpeechAuthorizationStatus
    var requestAuthorization: @Sendable () async -> SpeechAuthorizationStatus
    var startTask: @Sendable (SpeechRecognitionRequest) async -> SpeechRecognitionResults
}

extension SpeechClient: DependencyKey {
    static let liveValue = TypedSpeech().client
}

extension DependencyValues {
    var speechClient: SpeechClient {
        get { self[SpeechClient.self] }
        set { self[SpeechClient.self] = newValue }
    }
}

/// What a recognition task finds, as it finds it.
typealias SpeechRecognitionResults = AsyncThrowingStream<SpeechRecognitionResult, any Error>

/// Whether the user lets the app transcribe speech.
enum SpeechAuthorizationStatus: String, Hashable, Sendable, CaseIterable {
    /// Not asked yet.
    case notDetermined
    /// The user said no.
    case denied
    /// The device does not allow it (parental controls, say).
    case restricted
    case authorized
}

/// What to transcribe. A placeholder: the live recognizer listens to the microphone.
struct SpeechRecognitionRequest: Sendable {}

/// The transcription so far.
struct SpeechRecognitionResult: Equatable, Sendable {
    var bestTranscription: Transcription
    /// Whether this is the last result of the task.
    var isFinal: Bool
}

/// A transcription: what was said.
struct Transcription: Equatable, Sendable {
    var formattedString: String
}
