import ModelKit
import Testing

private struct NamedTaskFailure: Error {}

/// A model whose work logs the name of the Swift task it runs in.
private struct NamedWorker: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var query = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$query)
    }

    /// The name of the current task, as the log writes it.
    static var currentName: String { Task.name ?? "no name" }
}

/// `node.task(name:)`, `forEach(_:name:)` and `task(id:name:)`.
@Suite struct NamedTaskTests {
    @Test func aTaskRunsUnderTheNameItWasGiven() async {
        let log = Log()
        let worker = NamedWorker(log: log).withAnchor()
        worker.node.task(name: "Load facts") { log.add("task: \(NamedWorker.currentName)") }
        worker.node.task { log.add("unnamed: \(NamedWorker.currentName)") }
        #expect(await log.waitForCount(2))
        #expect(Set(log.all) == ["task: Load facts", "unnamed: no name"])
    }

    @Test func forEachBodiesRunUnderTheLoopsName() async {
        let log = Log()
        let worker = NamedWorker(log: log).withAnchor()
        let (values, continuation) = AsyncStream<Int>.makeStream()
        worker.node.forEach(values, name: "Handle values") { _ in log.add("one: \(NamedWorker.currentName)") }
        let (others, otherContinuation) = AsyncStream<Int>.makeStream()
        worker.node.forEach(others, name: "Latest value", cancelPrevious: true) { _ in
            log.add("latest: \(NamedWorker.currentName)")
        }
        continuation.yield(1)
        otherContinuation.yield(1)
        #expect(await log.waitForCount(2))
        #expect(Set(log.all) == ["one: Handle values", "latest: Latest value"])
    }

    @Test func everyRunOfATaskIDRunsUnderItsName() async {
        let log = Log()
        let worker = NamedWorker(log: log).withAnchor()
        worker.node.task(id: worker.query, name: "Search") { query in
            log.add("\(query): \(NamedWorker.currentName)")
        }
        #expect(await log.waitFor(": Search"))
        worker.query = "a"
        #expect(await log.waitFor("a: Search"))
    }
}

extension ReportedIssueTests {
    @Suite struct NamedTaskReportTests {
        @Test func anUnhandledErrorOfANamedTaskQuotesItsName() async {
            await IssueCapture.run(matching: "NamedWorker") { capture in
                let worker = NamedWorker(log: Log()).withAnchor()
                worker.node.task(name: "Sync") { throw NamedTaskFailure() }
                let (values, continuation) = AsyncStream<Int>.makeStream()
                worker.node.forEach(values, name: "Apply") { _ in throw NamedTaskFailure() }
                #expect(await capture.waitForCount(1))
                continuation.yield(1)
                #expect(await capture.waitForCount(2))
                #expect(capture.messages.map { $0.components(separatedBy: "\n")[0] } == [
                    "The task \"Sync\" of NamedWorker threw an error that nothing handled: NamedTaskFailure()",
                    "The task \"Apply\" of NamedWorker threw an error that nothing handled: NamedTaskFailure()",
                ])
            }
        }
    }
}
