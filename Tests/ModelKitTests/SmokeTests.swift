import Testing
import Foundation
import Observation
import ModelKit

struct CountModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    func incrementTapped() { count += 1 }
    static func register(_ r: inout ModelRegistrar<Self>) { r.track("count", \.$count) }
}

struct Row: Model {
    var node = ModelNode<Self>()
    @Tracked var counter = CountModel()
    let log: Log
    func onActivate() { log.add("activate Row") }
    static func register(_ r: inout ModelRegistrar<Self>) { r.track("counter", \.$counter) }
}

final class Log: Sendable {
    let lines = Mutex2([String]())
    func add(_ s: String) { lines.with { $0.append(s) } }
    var all: [String] { lines.with { $0 } }
}
import Synchronization
final class Mutex2<T: Sendable>: Sendable {
    let m: Mutex<T>
    init(_ v: T) { m = Mutex(v) }
    func with<R: Sendable>(_ f: (inout T) -> R) -> R { m.withLock { f(&$0) } }
}

struct App: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [Row] = []
    let log: Log
    func onActivate() {
        log.add("activate App")
    }
    static func register(_ r: inout ModelRegistrar<Self>) { r.track("rows", \.$rows) }
}

@Test func smoke() async throws {
    let model = CountModel().withAnchor()
    model.incrementTapped()
    #expect(model.count == 1)
    let log = Log()
    let app = App(log: log).withAnchor()
    let printed = Mutex2([String]())
    app._printChanges(to: { s in printed.with { $0.append(s) } })
    app.rows.append(Row(log: log))
    #expect(log.all == ["activate App", "activate Row"])
    app.rows[0].counter.incrementTapped()
    #expect(app.rows[0].counter.count == 1)
    print(printed.with { $0 })
    let row = app.rows[0]
    app.rows.removeAll()
    #expect(row.lifetime == .destructed)
    // observation
    let fired = Mutex2(false)
    withObservationTracking { _ = model.count } onChange: { fired.with { $0 = true } }
    model.count = 5
    #expect(fired.with { $0 })
    // change stream
    let stream = model.change(of: \.count)
    var it = stream.makeAsyncIterator()
    #expect(await it.next() == 5)
    model.count = 6
    #expect(await it.next() == 6)
    let frozen = model.frozenCopy
    model.count = 7
    #expect(frozen.count == 6)
    #expect(frozen.lifetime == .frozen)
}
