import ModelKit
import Testing

private enum CancelID: Hashable, Sendable {
    case search
    case recording
}

private struct SearchModel: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var children: [SearchModel] = []

    /// Starts a task that logs `start <name>` once it waits for cancellation, `cancel requested
    /// <name>` inside the call that cancels it (so a test can check right after a call which work it
    /// cancelled), and `cancelled <name>` when it ends.
    @discardableResult
    func startWork(_ name: String, started: Gate? = nil) -> Cancellable {
        node.task {
            await waitForCancellation {
                log.add("start \(name)")
                started?.open()
            } onCancel: {
                log.add("cancel requested \(name)")
            }
            log.add("cancelled \(name)")
        }
    }

    /// Each call cancels the previous call's task (the id is this call site).
    func search(_ name: String) {
        startWork(name).cancelInFlight()
    }

    /// A different call site: its own in-flight id.
    func otherSearch(_ name: String) {
        startWork(name).cancelInFlight()
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("children", \.$children)
    }
}

@Suite struct CancellationTests {
    private func anchored() -> (SearchModel, Log) {
        let log = Log()
        return (SearchModel(log: log).withAnchor(), log)
    }

    @Test func cancelStopsTheTask() async {
        let (model, log) = anchored()
        let started = Gate()
        let work = model.startWork("a", started: started)
        await started.enter()
        work.cancel()
        #expect(await log.waitFor("cancelled a"))
    }

    @Test func cancellingTwiceOrAfterTheWorkEndedDoesNothing() async {
        let (model, log) = anchored()
        let done = model.node.task { log.add("ran") }
        #expect(await log.waitFor("ran"))
        done.cancel()
        done.cancel()
        let onCancel = model.node.onCancel { log.add("handler") }
        onCancel.cancel()
        onCancel.cancel()
        #expect(log.count(of: "handler") == 1)
    }

    @Test func cancelAllCancelsOnlyWorkTaggedWithTheID() async {
        let (model, log) = anchored()
        let first = Gate()
        let second = Gate()
        model.startWork("tagged", started: first).cancel(for: CancelID.search)
        model.startWork("untagged", started: second)
        await first.enter()
        await second.enter()
        model.node.cancelAll(for: CancelID.search)
        #expect(log.entries(withPrefix: "cancel requested") == ["cancel requested tagged"])
        #expect(await log.waitFor("cancelled tagged"))
    }

    @Test func cancelAllLeavesTheChildrensWorkAlone() async {
        let (model, log) = anchored()
        let child = SearchModel(log: log)
        model.children = [child]
        let parentStarted = Gate()
        let childStarted = Gate()
        model.startWork("parent", started: parentStarted).cancel(for: CancelID.search)
        child.startWork("child", started: childStarted).cancel(for: CancelID.search)
        await parentStarted.enter()
        await childStarted.enter()
        model.node.cancelAll(for: CancelID.search)
        #expect(log.entries(withPrefix: "cancel requested") == ["cancel requested parent"])
        #expect(await log.waitFor("cancelled parent"))
    }

    @Test func cancelForIDWithCancelInFlightCancelsThePreviousWork() async {
        let (model, log) = anchored()
        let started = Gate()
        model.startWork("first", started: started).cancel(for: CancelID.search, cancelInFlight: true)
        await started.enter()
        model.startWork("second").cancel(for: CancelID.search, cancelInFlight: true)
        #expect(await log.waitFor("cancelled first"))
        #expect(await log.waitFor("start second"))
        #expect(log.entries(withPrefix: "cancel requested") == ["cancel requested first"])
    }

    @Test func anyHashableValueIsAnID() async {
        let (model, log) = anchored()
        let started = Gate()
        model.startWork("a", started: started).cancel(for: "search-\(1)")
        await started.enter()
        model.node.cancelAll(for: "search-1")
        #expect(await log.waitFor("cancelled a"))
    }

    @Test func cancelInFlightUsesTheCallSiteAsID() async {
        let (model, log) = anchored()
        model.search("1")
        #expect(await log.waitFor("start 1"))
        model.otherSearch("other")
        #expect(await log.waitFor("start other"))
        model.search("2")
        #expect(await log.waitFor("cancelled 1"))
        #expect(await log.waitFor("start 2"))
        #expect(log.entries(withPrefix: "cancel requested") == ["cancel requested 1"])
    }

    @Test func cancellationContextTagsAllWorkStartedInside() async {
        let (model, log) = anchored()
        let started = Gate()
        model.node.cancellationContext(for: CancelID.recording) {
            model.startWork("recording", started: started)
            model.node.onCancel { log.add("stop recording") }
        }
        model.startWork("outside")
        await started.enter()
        #expect(await log.waitFor("start outside"))
        model.node.cancelAll(for: CancelID.recording)
        #expect(log.all.contains("stop recording"))
        #expect(log.entries(withPrefix: "cancel requested") == ["cancel requested recording"])
        #expect(await log.waitFor("cancelled recording"))
    }

    @Test func nestedCancellationContextsTagWithEveryID() async {
        let (model, log) = anchored()
        model.node.cancellationContext(for: CancelID.search) {
            _ = model.node.cancellationContext(for: CancelID.recording) {
                model.node.onCancel { log.add("inner") }
            }
            model.node.onCancel { log.add("outer") }
        }
        model.node.cancelAll(for: CancelID.recording)
        #expect(log.all == ["inner"])
        model.node.cancelAll(for: CancelID.search)
        #expect(log.all == ["inner", "outer"])
    }

    @Test func asyncCancellationContextTagsWorkStartedInside() async {
        let (model, log) = anchored()
        await model.node.cancellationContext(for: CancelID.search) {
            await Task.yield()
            model.node.onCancel { log.add("tagged handler") }
        }
        model.node.cancelAll(for: CancelID.search)
        #expect(log.all == ["tagged handler"])
    }

    @Test func cancellationContextReturnsTheBodysResult() {
        let (model, _) = anchored()
        let value = model.node.cancellationContext(for: CancelID.search) { 42 }
        #expect(value == 42)
    }

    @Test func onCancelRunsWhenTheModelIsRemoved() {
        let (model, log) = anchored()
        let child = SearchModel(log: log)
        model.children = [child]
        child.node.onCancel { log.add("child handler") }
        #expect(log.all.isEmpty)
        model.children = []
        #expect(log.all == ["child handler"])
    }

    @Test func onCancelRunsWhenItsCancellableIsCancelled() {
        let (model, log) = anchored()
        let handler = model.node.onCancel { log.add("handler") }
        handler.cancel()
        #expect(log.all == ["handler"])
    }
}
