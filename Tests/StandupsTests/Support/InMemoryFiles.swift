import Foundation
import ModelKitTesting
@testable import Standups
import Synchronization

/// Files kept in memory by URL, with a ``DataManager`` that reads, writes and moves them: the double
/// of the tests about bad data.
///
/// Each write and move that happens is a call of ``writes`` (with the URL and the standups written)
/// or ``moves`` (with both URLs); install them in the tester to make them part of exhaustivity.
/// Writes and moves fail, changing nothing, while ``writeError`` or ``moveError`` is set.
///
/// ```swift
/// let files = InMemoryFiles([file: Data("not JSON".utf8)])
/// let (app, tester) = AppFeature().andTester {
///     $0.dataManager = files.dataManager
///     $0.standupsFile = file
/// }
/// ```
final class InMemoryFiles: Sendable {
    private struct State {
        var files: [URL: Data]
        var writeError: (any Error)?
        var moveError: (any Error)?
    }

    let writes = TestProbe("write")
    let moves = TestProbe("move")
    private let state: Mutex<State>

    init(_ files: [URL: Data] = [:]) {
        state = Mutex(State(files: files))
    }

    /// The contents of the file at `url`, if there is one.
    subscript(url: URL) -> Data? {
        state.withLock { $0.files[url] }
    }

    /// The URLs of all the files, sorted by path.
    var urls: [URL] {
        state.withLock { $0.files.keys.sorted { $0.path < $1.path } }
    }

    /// The error every write fails with, while it is set.
    var writeError: (any Error)? {
        get { state.withLock { $0.writeError } }
        set { state.withLock { $0.writeError = newValue } }
    }

    /// The error every move fails with, while it is set.
    var moveError: (any Error)? {
        get { state.withLock { $0.moveError } }
        set { state.withLock { $0.moveError = newValue } }
    }

    var dataManager: DataManager {
        DataManager(
            load: { url in
                guard let data = self[url] else { throw DataManager.FileNotFound() }
                return data
            },
            save: { data, url in
                try self.state.withLock { state in
                    if let error = state.writeError { throw error }
                    state.files[url] = data
                }
                self.writes.call(url, try StandupsFile.decode(data))
            },
            move: { url, destination in
                try self.state.withLock { state in
                    if let error = state.moveError { throw error }
                    guard state.files[destination] == nil, let data = state.files.removeValue(forKey: url) else {
                        throw DataManager.FileNotFound()
                    }
                    state.files[destination] = data
                }
                self.moves.call(url, destination)
            }
        )
    }
}

/// An error standing for one of the system's, described as the live ``DataManager`` describes them.
struct SystemError: Error, CustomStringConvertible {
    let description: String
}
