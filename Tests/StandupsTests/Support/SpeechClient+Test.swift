@testable import Standups

extension SpeechClient {
    /// Speech recognition as a test describes it: the user's answer is `status`, and each recognition
    /// task hears `transcripts` (one result each), then ends, or fails when `failing` is true.
    ///
    /// ```swift
    /// $0.speechClient = .test(.authorized, hearing: ["I completed the project"])
    /// $0.speechClient = .test(.authorized, failing: true)   // the task fails at once
    /// ```
    static func test(
        _ status: SpeechAuthorizationStatus, hearing transcripts: [String] = [], failing: Bool = false
    ) -> SpeechClient {
        SpeechClient(
            authorizationStatus: { status },
            requestAuthorization: { status },
            startTask: { _ in
                SpeechRecognitionResults { continuation in
                    for transcript in transcripts {
                        continuation.yield(SpeechRecognitionResult(
                            bestTranscription: Transcription(formattedString: transcript), isFinal: false
                        ))
                    }
                    continuation.finish(throwing: failing ? SpeechRecognitionFailure() : nil)
                }
            }
        )
    }
}

/// The error of a recognition task made to fail by ``SpeechClient/test(_:hearing:failing:)``.
struct SpeechRecognitionFailure: Error {}
