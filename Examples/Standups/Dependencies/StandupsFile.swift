import Foundation
import ModelKit

/// The file of the standups: its format, what reading it can find, and where it is (the
/// ``DependencyValues/standupsFile`` dependency).
///
/// Format 1, the one this version reads and writes, is a JSON array of standups (the format of the
/// upstream app, so its files are read as they are). Later formats are JSON objects that say their
/// `version` (`{"version": 2, …}`): a file of a format newer than ``formatVersion`` is not read at
/// all, because a newer version of the app wrote it and rewriting it would lose what this version
/// does not know about.
///
/// ```swift
/// let data = try StandupsFile.encode([.mock])
/// let standups = try StandupsFile.decode(data)   // [.mock]
/// ```
enum StandupsFile {
    /// The newest format this version reads, and the one it writes.
    static let formatVersion = 1

    /// Why the standups of a file cannot be used. The file is then kept as it is.
    enum Problem: Error, Hashable, Sendable {
        /// The file could not be read, or is not standups data (truncated, corrupt…): why, in words.
        case unreadable(reason: String)
        /// The file is of a format newer than ``StandupsFile/formatVersion``.
        case newerFormat(version: Int)
    }

    /// `standups` in the current format: pretty-printed, with sorted keys.
    static func encode(_ standups: [Standup]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(standups)
    }

    /// The standups of a file of format 1.
    static func decode(_ data: Data) throws(Problem) -> [Standup] {
        guard data.contains(where: { !Self.whitespace.contains($0) }) else {
            throw .unreadable(reason: data.isEmpty ? "it is empty" : "it holds only blank space")
        }
        let decoder = JSONDecoder()
        do {
            switch try decoder.decode(Header.self, from: data).version {
            case nil: return try decoder.decode([Standup].self, from: data)
            case let version? where version > formatVersion: throw Problem.newerFormat(version: version)
            case let version?:
                throw Problem.unreadable(reason: "it claims format \(version), which is written as a plain array")
            }
        } catch let problem as Problem {
            throw problem
        } catch let error as DecodingError {
            throw .unreadable(reason: reason(for: error))
        } catch {
            throw .unreadable(reason: "\(error)")
        }
    }

    /// The bytes JSON allows around its values: space, tab, line feed, carriage return.
    private static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    /// The `version` a file's object claims; nil for a plain array (format 1). A file that is JSON
    /// but neither is a ``Problem`` saying so in words.
    private struct Header: Decodable {
        private enum CodingKeys: String, CodingKey {
            case version
        }

        let version: Int?

        init(from decoder: any Decoder) throws {
            if (try? decoder.unkeyedContainer()) != nil {
                version = nil
                return
            }
            let expected = "a standups file is a list of standups, or an object whose \"version\" says its format"
            guard let object = try? decoder.container(keyedBy: CodingKeys.self) else {
                throw Problem.unreadable(reason: "it is a single JSON value; \(expected)")
            }
            guard object.contains(.version) else {
                throw Problem.unreadable(reason: "it is a JSON object with no \"version\"; \(expected)")
            }
            guard let version = try? object.decode(Int.self, forKey: .version) else {
                throw Problem.unreadable(reason: "its \"version\" is not a whole number")
            }
            self.version = version
        }
    }

    /// The decoder's explanation, without its final period, and where in the file it applies. A
    /// missing field is named in words rather than by the decoder's description of its key.
    private static func reason(for error: DecodingError) -> String {
        let context: DecodingError.Context
        var explanation: String
        switch error {
        case .keyNotFound(let key, let errorContext):
            context = errorContext
            explanation = "\"\(key.stringValue)\" is missing"
        case .dataCorrupted(let errorContext), .typeMismatch(_, let errorContext),
             .valueNotFound(_, let errorContext):
            context = errorContext
            explanation = context.debugDescription
        @unknown default:
            return "\(error)"
        }
        if explanation.hasSuffix(".") { explanation.removeLast() }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? explanation : "\(explanation) (at \(path.drop { $0 == "." }))"
    }
}

extension StandupsFile.Problem {
    /// What is wrong with `file`, as a sentence without its final period.
    func explanation(of file: URL) -> String {
        switch self {
        case .unreadable(let reason):
            "\(file.path) could not be read (\(reason))"
        case .newerFormat(let version):
            "\(file.path) was written by a newer version of Standups (format \(version)); "
                + "this version reads format \(StandupsFile.formatVersion)"
        }
    }
}

/// What a standups file holds, as ``DataManager/standups(in:)`` finds it.
enum StoredStandups: Equatable, Sendable {
    /// There is no file (nothing was saved yet).
    case none
    case standups([Standup])
    /// There is a file, but its standups cannot be used: it must be kept as it is.
    case unusable(StandupsFile.Problem)
}

extension DataManager {
    /// Reads the standups in `file`.
    func standups(in file: URL) -> StoredStandups {
        let data: Data
        do {
            data = try load(file)
        } catch is FileNotFound {
            return .none
        } catch {
            return .unusable(.unreadable(reason: "\(error)"))
        }
        do {
            return .standups(try StandupsFile.decode(data))
        } catch {
            return .unusable(error)
        }
    }
}

/// Where the standups are kept: ``URL/standups`` unless overridden (`Standups --data PATH`).
enum StandupsFileKey: DependencyKey {
    static let liveValue = URL.standups
    /// A path that tests' in-memory data managers are free to ignore.
    static let testValue = URL(fileURLWithPath: "/test/standups.json")
}

extension DependencyValues {
    var standupsFile: URL {
        get { self[StandupsFileKey.self] }
        set { self[StandupsFileKey.self] = newValue }
    }
}
