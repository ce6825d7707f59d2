import Foundation
import ModelKit
import Synchronization

// A document app with several windows open at once, written as an app team writes it against
// API.md: each window is its own hierarchy (one anchor per window), all windows reach one plain
// `Sendable` catalog service, and each window has its own `Bookshelf` model dependency.

/// The app's book catalog, shared by every window: a plain `Sendable` service. `load` waits on the
/// gate the test installs, so a test can hold a window's task inside the shared dependency.
final class CatalogService: Sendable {
    private let state = Protected<(loads: [String], gate: Gate?)>(([], nil))

    /// The windows that called `load`, in call order.
    var loads: [String] { state.withLock { $0.loads } }

    /// Holds every later `load` until `gate` opens.
    func hold(on gate: Gate) { state.withLock { $0.gate = gate } }

    func load(for window: String) async throws -> [String] {
        let gate = state.withLock { state in
            state.loads.append(window)
            return state.gate
        }
        await gate?.enter()
        try Task.checkCancellation()
        return ["Dune", "Emma"]
    }
}

struct Catalog: Sendable {
    var service: CatalogService
}

extension Catalog: DependencyKey {
    static var liveValue: Catalog { Catalog(service: CatalogService()) }
}

extension DependencyValues {
    var catalog: Catalog { get { self[Catalog.self] } set { self[Catalog.self] = newValue } }
}

/// The books a window shows: a model dependency, one per window.
struct Bookshelf: Model {
    var node = ModelNode<Self>()
    @Tracked var books: [String] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$books)
    }
}

extension Bookshelf: DependencyKey {
    static var liveValue: Bookshelf { Bookshelf() }
    static var testValue: Bookshelf { Bookshelf() }
}

extension DependencyValues {
    var bookshelf: Bookshelf { get { self[Bookshelf.self] } set { self[Bookshelf.self] = newValue } }
}

/// A document open in a window.
struct WindowDocument: Model {
    enum Event: Sendable, Equatable { case saved(String) }

    let id: String
    var node = ModelNode<Self>()
    let token: LifetimeTracker.Token?
    @Tracked var text: String

    init(id: String, text: String = "", token: LifetimeTracker.Token? = nil) {
        self.id = id
        self.text = text
        self.token = token
    }

    func saveTapped() { node.send(.saved(text)) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
    }
}

/// Counts what a window's work did, for the lifetime checks.
final class WindowCounters: Sendable {
    private let counts = Protected<[String: Int]>([:])

    func add(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    subscript(name: String) -> Int { counts.withLock { $0[name, default: 0] } }
}

/// One open window: the root of its own hierarchy.
struct AppWindow: Model {
    var node = ModelNode<Self>()
    let name: String
    let counters: WindowCounters?
    let token: LifetimeTracker.Token?
    @Tracked var document: WindowDocument?
    @Tracked var savedTexts: [String] = []
    @Tracked var isLoading = false

    init(name: String, counters: WindowCounters? = nil, token: LifetimeTracker.Token? = nil) {
        self.name = name
        self.counters = counters
        self.token = token
    }

    func onActivate() {
        let token = token, counters = counters
        node.onCancel {
            _ = token
            counters?.add("onCancel")
        }
        node.forEach(node.event(fromType: WindowDocument.self)) { event, _ in
            if case .saved(let text) = event { savedTexts.append(text) }
        }
    }

    /// Loads the catalog into this window's library, through the shared service.
    @discardableResult
    func refreshTapped() -> Cancellable {
        isLoading = true
        let counters = counters, token = token
        return node.task {
            defer { counters?.add("taskEnded") }
            _ = token
            let books = try await node.catalog.service.load(for: name)
            node.bookshelf.books = books
            isLoading = false
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$document)
        r.track(\.$savedTexts)
        r.track(\.$isLoading)
    }
}
