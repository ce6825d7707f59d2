import Foundation
import ModelKit
import ModelKitTesting
import Testing

struct Counter: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var name = "a"

    enum Event: Equatable, Sendable {
        case reachedTen
        case renamed(String)
    }

    func incrementTapped() { count += 1 }

    func incrementLater() {
        node.task { count += 1 }
    }

    func rename(_ newName: String) {
        name = newName
        node.send(.renamed(newName))
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("name", \.$name)
    }
}

struct Parent: Model {
    var node = ModelNode<Self>()
    @Tracked var counters: [Counter] = []
    @Tracked var selected: Counter?

    func addTapped() { counters.append(Counter()) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("counters", \.$counters)
        r.track("selected", \.$selected)
    }
}

struct Greeter: Sendable {
    var greet: @Sendable (String) async throws -> String
}

extension Greeter: DependencyKey {
    static let liveValue = Greeter { "Hello, \($0)!" }
}

extension DependencyValues {
    var greeter: Greeter {
        get { self[Greeter.self] }
        set { self[Greeter.self] = newValue }
    }
}

struct Welcome: Model {
    var node = ModelNode<Self>()
    @Tracked var message = ""
    @Tracked var id = UUID(0)
    @Tracked var createdAt = Date(timeIntervalSince1970: 0)

    func greet(_ name: String) {
        node.task { message = try await node.greeter.greet(name) }
    }

    func stamp() {
        id = node.uuid()
        createdAt = node.date.now
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("message", \.$message)
        r.track("id", \.$id)
        r.track("createdAt", \.$createdAt)
    }
}

/// Ticks once per second on the model's clock.
struct Ticker: Model {
    var node = ModelNode<Self>()
    @Tracked var ticks = 0

    func onActivate() {
        node.forEach(node.continuousClock.timer(interval: .seconds(1))) { _ in
            ticks += 1
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("ticks", \.$ticks)
    }
}

/// Calls back with the values it is given.
struct Caller: Model {
    var node = ModelNode<Self>()
    let onValue: @Sendable (Int, String) -> Void
    let onPing: @Sendable () -> Void

    func send(_ n: Int) {
        node.task { onValue(n, "#\(n)") }
    }

    func ping() { onPing() }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// A task that never ends on its own.
struct Waiter: Model {
    var node = ModelNode<Self>()

    func startWaiting(name: String? = nil) {
        node.task(name: name) {
            // Work that never ends on its own: a stream nothing yields to (it ends when cancelled).
            let (stream, continuation) = AsyncStream<Never>.makeStream()
            for await _ in stream {}
            withExtendedLifetime(continuation) {}
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// The text of a recorded issue.
func text(_ issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// Tasks that sleep on the model's clock and log when they wake, with suspension points around the
/// sleep (work that is not done in one step).
struct Sleeper: Model {
    var node = ModelNode<Self>()
    @Tracked var log: [String] = []

    func napOnClock(_ name: String, for duration: Duration, stepsBefore: Int = 0, stepsAfter: Int = 0) {
        node.task {
            for _ in 0..<stepsBefore { await Task.yield() }
            try await node.continuousClock.sleep(for: duration)
            log.append("\(name) woke")
            for _ in 0..<stepsAfter { await Task.yield() }
            log.append("\(name) done")
        }
    }

    /// Logs after `steps` suspension points, without sleeping.
    func work(_ name: String, steps: Int) {
        node.task {
            for _ in 0..<steps { await Task.yield() }
            log.append(name)
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("log", \.$log)
    }
}
