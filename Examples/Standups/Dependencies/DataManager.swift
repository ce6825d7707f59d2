import Foundation
import ModelKit
import Synchronization

/// Loads and saves the app's data: ``URL/standups`` holds the standups as JSON.
///
/// The live value reads and writes real files (writes are atomic). Tests use ``mock(initialData:)``,
/// ``failToLoad`` or ``failToWrite``; there is no `testValue`, so a test must choose one.
struct DataManager: Sendable {
    var load: @Sendable (_ url: URL) throws -> Data
    var save: @Sendable (_ data: Data, _ url: URL) async throws -> Void
}

extension DataManager: DependencyKey {
    static let liveValue = DataManager(
        load: { url in try Data(contentsOf: url) },
        save: { data, url in
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true
            )
            try data.write(to: url, options: .atomic)
        }
    )
}

extension DependencyValues {
    var dataManager: DataManager {
        get { self[DataManager.self] }
        set { self[DataManager.self] = newValue }
    }
}

extension DataManager {
    /// The live data manager, keeping the standups in `file` instead of ``URL/standups``.
    static func live(standupsFile file: URL) -> DataManager {
        let live = DataManager.liveValue
        let standups = URL.standups
        return DataManager(
            load: { url in try live.load(url == standups ? file : url) },
            save: { data, url in try await live.save(data, url == standups ? file : url) }
        )
    }

    /// An in-memory file: `load` returns what was last saved (`initialData` at first), or throws
    /// ``FileNotFound`` when there is nothing.
    static func mock(initialData: Data? = nil) -> DataManager {
        let file = MockFile(initialData)
        return DataManager(
            load: { _ in
                guard let data = file.data else { throw FileNotFound() }
                return data
            },
            save: { data, _ in file.data = data }
        )
    }

    /// Loads an empty list; every save fails.
    static let failToWrite = DataManager(
        load: { _ in Data("[]".utf8) },
        save: { _, _ in throw SaveFailed() }
    )

    /// Every load fails (not with a decoding error); saves do nothing.
    static let failToLoad = DataManager(
        load: { _ in throw FileNotFound() },
        save: { _, _ in }
    )

    struct FileNotFound: Error {}
    struct SaveFailed: Error {}
}

/// The storage of ``DataManager/mock(initialData:)``.
private final class MockFile: Sendable {
    private let contents: Mutex<Data?>

    init(_ data: Data?) {
        contents = Mutex(data)
    }

    var data: Data? {
        get { contents.withLock { $0 } }
        set { contents.withLock { $0 = newValue } }
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
