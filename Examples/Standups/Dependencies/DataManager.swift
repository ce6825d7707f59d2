import Foundation
import ModelKit
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads, saves and moves the app's files: the standups are kept in ``DependencyValues/standupsFile``,
/// in the format of ``StandupsFile``.
///
/// The live value reads and writes real files. Its writes are atomic (a new file replaces the old
/// one only once it is complete), so a failed write leaves the old file as it was. Its errors are
/// ``FileNotFound`` when there is no file, else a ``FileError`` saying why, in words for the user.
///
/// Tests use ``mock(initialData:)``, ``failToLoad`` or ``failToWrite``, or a double of their own;
/// there is no `testValue`, so a test must choose one.
struct DataManager: Sendable {
    var load: @Sendable (_ url: URL) throws -> Data
    var save: @Sendable (_ data: Data, _ url: URL) async throws -> Void
    /// Renames the file at `url` to `destination`; it fails rather than replace a file there.
    var move: @Sendable (_ url: URL, _ destination: URL) throws -> Void
}

extension DataManager: DependencyKey {
    static let liveValue = DataManager(
        load: { url in
            do {
                return try Data(contentsOf: url)
            } catch {
                throw FileError.meansNoFile(error) ? FileNotFound() : FileError(error)
            }
        },
        save: { data, url in
            let folder = url.deletingLastPathComponent()
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder)
            if exists && !isFolder.boolValue {
                throw FileError(description: "\(folder.path) is a file, not a folder")
            }
            try liveWrites.perform {
                do {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try data.write(to: url, options: .atomic)
                } catch {
                    throw FileError(error)
                }
            }
        },
        move: { url, destination in
            do {
                try FileManager.default.moveItem(at: url, to: destination)
            } catch {
                throw FileError(error)
            }
        }
    )
}

extension DataManager {
    /// Waits for the live value's write under way, if any, and makes later live writes do nothing.
    ///
    /// A quitting app calls it after its last save: the process must not exit in the middle of a
    /// write (that would leave the write's temporary file behind), and a save of a model being torn
    /// down must not start once the app has said it is done.
    static func finishLiveWrites() {
        liveWrites.finish()
    }

    private static let liveWrites = SerialWrites()
}

/// Runs writes one at a time, until ``finish()``.
private final class SerialWrites: Sendable {
    /// Whether ``finish()`` was called; held while a write runs, so that writes never overlap.
    private let finished = Mutex(false)

    func perform(_ write: () throws -> Void) throws {
        try finished.withLock { finished in
            guard !finished else { return }
            try write()
        }
    }

    func finish() {
        finished.withLock { $0 = true }
    }
}

extension DependencyValues {
    var dataManager: DataManager {
        get { self[DataManager.self] }
        set { self[DataManager.self] = newValue }
    }
}

extension DataManager {
    /// An in-memory file: `load` returns what was last saved (`initialData` at first), or throws
    /// ``FileNotFound`` when there is nothing. `move` takes the data out of the file and keeps it
    /// under its new name, which `load` then reads.
    static func mock(initialData: Data? = nil) -> DataManager {
        let storage = MockStorage(file: initialData)
        return DataManager(
            load: { url in
                guard let data = storage.read(url) else { throw FileNotFound() }
                return data
            },
            save: { data, _ in storage.write(data) },
            move: { _, destination in
                guard storage.moveFile(to: destination) else { throw FileNotFound() }
            }
        )
    }

    /// Loads an empty list; every save fails.
    static let failToWrite = DataManager(
        load: { _ in Data("[]".utf8) },
        save: { _, _ in throw SaveFailed() },
        move: { _, _ in throw SaveFailed() }
    )

    /// Every load fails (not with a decoding error); saves do nothing.
    static let failToLoad = DataManager(
        load: { _ in throw FileNotFound() },
        save: { _, _ in },
        move: { _, _ in throw FileNotFound() }
    )

    /// There is no file to load (or to move).
    struct FileNotFound: Error, CustomStringConvertible {
        var description: String { "there is no such file" }
    }

    /// The error of ``failToWrite``'s saves.
    struct SaveFailed: Error, CustomStringConvertible {
        var description: String { "the disk refused to write" }
    }

    /// Why a file could not be read, written or moved, said in a few words ("Permission denied").
    struct FileError: Error, Hashable, CustomStringConvertible {
        let description: String

        init(description: String) {
            self.description = description
        }

        /// Foundation's `error`, described by the system error behind it when there is one.
        init(_ error: any Error) {
            if let code = Self.systemErrorCode(of: error) {
                description = String(cString: strerror(code))
            } else {
                description = (error as NSError).localizedDescription
            }
        }

        /// Whether Foundation's `error` says that there is no file (or no folder on its path).
        static func meansNoFile(_ error: any Error) -> Bool {
            systemErrorCode(of: error).map { $0 == ENOENT || $0 == ENOTDIR } ?? false
        }

        /// The `errno` behind `error` (Foundation wraps it, as a `POSIXError` or an `NSError`).
        private static func systemErrorCode(of error: any Error) -> Int32? {
            if let error = error as? POSIXError { return error.code.rawValue }
            switch (error as NSError).userInfo[NSUnderlyingErrorKey] {
            case let underlying as POSIXError:
                return underlying.code.rawValue
            case let underlying as NSError where underlying.domain == NSPOSIXErrorDomain:
                return Int32(underlying.code)
            default:
                return nil
            }
        }
    }
}

/// The storage of ``DataManager/mock(initialData:)``: the file, and the files moved out of it.
private final class MockStorage: Sendable {
    private struct Contents {
        var file: Data?
        var movedFiles: [URL: Data] = [:]
    }

    private let contents: Mutex<Contents>

    init(file: Data?) {
        contents = Mutex(Contents(file: file))
    }

    func read(_ url: URL) -> Data? {
        contents.withLock { $0.movedFiles[url] ?? $0.file }
    }

    func write(_ data: Data) {
        contents.withLock { $0.file = data }
    }

    /// Moves the file to `destination`; false if there is no file.
    func moveFile(to destination: URL) -> Bool {
        contents.withLock { contents in
            guard let file = contents.file, contents.movedFiles[destination] == nil else { return false }
            contents.movedFiles[destination] = file
            contents.file = nil
            return true
        }
    }
}

extension URL {
    /// Where the standups are kept by default: `$XDG_DATA_HOME/Standups/standups.json` (else
    /// `~/.local/share/Standups/standups.json`), or the Application Support folder on Apple platforms.
    static var standups: URL {
        #if canImport(Darwin)
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #else
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        #endif
        return base.appendingPathComponent("Standups").appendingPathComponent("standups.json")
    }
}
