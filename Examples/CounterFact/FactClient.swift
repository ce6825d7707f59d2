import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ModelKit
import Synchronization

/// Fetches a fact about a number: CounterFact's one dependency.
///
/// The default (``liveValue``) works offline: it computes facts about the number itself (primality,
/// divisors, digits…), a different one each time it is asked about the same number.
/// ``numbersAPI(baseURL:)`` asks a public web API instead (`CounterFact --live`).
///
/// There is no `testValue`: a test must say what facts it expects.
///
/// ```swift
/// let app = AppModel().withAnchor {
///     $0.factClient.fetch = { "\($0) is a good number." }
/// }
/// ```
nonisolated struct FactClient: Sendable {
    var fetch: @Sendable (Int) async throws -> String
}

nonisolated extension FactClient: DependencyKey {
    static let liveValue = FactClient.offline()
}

nonisolated extension DependencyValues {
    var factClient: FactClient {
        get { self[FactClient.self] }
        set { self[FactClient.self] = newValue }
    }
}

/// Why a fact could not be fetched, worded for the person using the app.
nonisolated struct FactClientError: Error, CustomStringConvertible {
    let description: String
}

nonisolated extension FactClient {
    /// Facts computed on the spot: the n-th question about a number gets its n-th fact (cycling).
    static func offline() -> FactClient {
        let questions = QuestionCounter()
        return FactClient { number in
            let facts = NumberFacts.all(about: number)
            return facts[questions.next(about: number) % facts.count]
        }
    }

    /// Facts from the Numbers API (`GET {baseURL}/{number}` answers with one sentence of trivia).
    ///
    /// - Parameter baseURL: The service; the default is `http://numbersapi.com`.
    static func numbersAPI(baseURL: URL = URL(string: "http://numbersapi.com")!) -> FactClient {
        FactClient { number in
            let url = baseURL.appendingPathComponent(String(number))
            let host = baseURL.host ?? baseURL.absoluteString
            let (data, response): (Data, URLResponse)
            do {
                (data, response) = try await URLSession.shared.data(for: URLRequest(url: url, timeoutInterval: 10))
            } catch let error as URLError {
                throw FactClientError(description: explanation(of: error, host: host))
            }
            if let status = (response as? HTTPURLResponse)?.statusCode, status != 200 {
                throw FactClientError(description: "\(host) answered with HTTP status \(status).")
            }
            let fact = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !fact.isEmpty else {
                throw FactClientError(description: "\(host) sent an empty answer.")
            }
            return fact
        }
    }

    private static func explanation(of error: URLError, host: String) -> String {
        switch error.code {
        case .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
             .networkConnectionLost, .timedOut:
            "The network is unreachable: could not connect to \(host) (\(error.code.name)). "
                + "Check your connection, or run without --live for offline facts."
        default:
            "The request to \(host) failed (\(error.code.name))."
        }
    }
}

/// Counts the questions asked about each number, so that "another fact" gives another fact.
nonisolated private final class QuestionCounter: Sendable {
    private let counts = Mutex<[Int: Int]>([:])

    /// How many times `number` was asked about before (0 the first time).
    func next(about number: Int) -> Int {
        counts.withLock { counts in
            defer { counts[number, default: 0] += 1 }
            return counts[number, default: 0]
        }
    }
}

nonisolated private extension URLError.Code {
    var name: String {
        switch self {
        case .notConnectedToInternet: "not connected to the internet"
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "unknown host"
        case .networkConnectionLost: "connection lost"
        case .timedOut: "timed out"
        default: "error \(rawValue)"
        }
    }
}
