import Foundation
import ModelKit
import ModelKitTesting
import Testing

/// A search field: `task(id: query)` restarts the search on each distinct query.
private struct Search: Model {
    var node = ModelNode<Self>()
    let log: Log
    let gate: Gate
    @Tracked var query = ""
    @Tracked var other = 0

    func onActivate() {
        node.task(id: query) { [log, gate] query in
            log.add("start \(query)")
            defer { log.add("end \(query)") }
            if query == "wait" { await gate.enter() }
            await waitForCancellation()
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$query)
        r.track(\.$other)
    }
}

/// `node.task(id:)` (API.md section 9).
@Suite struct TaskIDTests {
    @Test func runsAtOnceWithTheCurrentValueAndRestartsOnEachChange() async {
        let log = Log()
        let search = Search(log: log, gate: Gate()).withAnchor()
        #expect(await log.waitFor("start "))
        search.query = "a"
        #expect(await log.waitFor("start a"))
        search.query = "ab"
        #expect(await log.waitFor("start ab"))
        #expect(log.all == ["start ", "end ", "start a", "end a", "start ab"])
    }

    @Test func thePreviousRunHasUnwoundBeforeTheNextStarts() async {
        let log = Log()
        let gate = Gate()
        let search = Search(log: log, gate: gate).withAnchor()
        search.query = "wait"
        #expect(await log.waitFor("start wait"))
        search.query = "next"
        // The run for "wait" ignores cancellation until the gate opens: "next" must not start before.
        #expect(log.count(of: "start next") == 0)
        gate.open()
        #expect(await log.waitFor("start next"))
        let all = log.all
        #expect(all.firstIndex(of: "end wait")! < all.firstIndex(of: "start next")!)
    }

    @Test func anEqualValueOrAnotherPropertyDoesNotRestart() async {
        let log = Log()
        let search = Search(log: log, gate: Gate()).withAnchor()
        search.query = "a"
        #expect(await log.waitFor("start a"))
        search.query = "a"
        search.other = 1
        search.query = "b"
        #expect(await log.waitFor("start b"))
        #expect(log.count(of: "start a") == 1)
    }

    @Test func removingTheModelCancelsTheRunningBody() async {
        let log = Log()
        let root = TreeModel("root", log: Log()).withAnchor()
        let holder = TreeModel("holder", log: Log())
        root.child = holder
        holder.node.task(id: holder.value) { value in
            log.add("start \(value)")
            defer { log.add("end \(value)") }
            await waitForCancellation()
        }
        #expect(await log.waitFor("start 0"))
        root.child = nil
        #expect(await log.waitFor("end 0"))
        #expect(log.all == ["start 0", "end 0"])
    }

    /// A change waiting for a slow body to unwind, then the model removed: no body starts after the
    /// removal. (Under a Tester, whose executor runs the tasks, `settle` returns once nothing is left
    /// to run, so a body started late would have logged by then.)
    @Test func noBodyStartsAfterTheModelIsRemovedWhileThePreviousUnwinds() async {
        let log = Log()
        let gate = Gate()
        let (root, tester) = TreeModel("root", log: Log()).andTester(exhaustivity: .off)
        let child = TreeModel("child", log: Log())
        root.child = child
        child.node.task(id: child.value) { value in
            log.add("start \(value)")
            defer { log.add("end \(value)") }
            if value == 0 { await gate.enter() }
            await waitForCancellation()
        }
        await tester.settle()
        #expect(log.all == ["start 0"])
        child.value = 1
        await tester.settle()
        root.child = nil
        gate.open()
        #expect(await log.waitFor("end 0"))
        await tester.settle()
        #expect(log.all == ["start 0", "end 0"])
        await tester.finish()
    }

    @Test func noBodyStartsAfterTheWorkIsCancelledWhileThePreviousUnwinds() async {
        let log = Log()
        let gate = Gate()
        let (model, tester) = CounterModel().andTester(exhaustivity: .off)
        let work = model.node.task(id: model.count) { value in
            log.add("start \(value)")
            defer { log.add("end \(value)") }
            if value == 0 { await gate.enter() }
            await waitForCancellation()
        }
        await tester.settle()
        model.count = 1
        await tester.settle()
        work.cancel()
        gate.open()
        #expect(await log.waitFor("end 0"))
        await tester.settle()
        #expect(log.all == ["start 0", "end 0"])
        await tester.finish()
    }

    @Test func forEachRunsNoBodyForElementsStillBufferedWhenTheModelIsRemoved() async {
        let log = Log()
        let gate = Gate()
        let (root, tester) = TreeModel("root", log: Log()).andTester(exhaustivity: .off)
        let child = TreeModel("child", log: Log())
        root.child = child
        let (elements, input) = AsyncStream<Int>.makeStream()
        child.node.forEach(elements) { element in
            log.add("body \(element)")
            if element == 0 { await gate.enter() }
        }
        input.yield(0)
        #expect(await log.waitFor("body 0"))
        input.yield(1)
        input.yield(2)
        root.child = nil
        gate.open()
        await tester.settle()
        #expect(log.all == ["body 0"])
        input.finish()
        await tester.finish()
    }

    @Test func errorsGoToTheCatchHandler() async {
        struct Failure: Error {}
        let log = Log()
        let model = CounterModel().withAnchor()
        model.node.task(id: model.count) { count in
            if count == 1 { throw Failure() }
            log.add("ran \(count)")
        } catch: { _ in
            log.add("caught")
        }
        #expect(await log.waitFor("ran 0"))
        model.count = 1
        #expect(await log.waitFor("caught"))
        model.count = 2
        #expect(await log.waitFor("ran 2"))
    }
}

/// Restarts on each query; counts the bodies that start once its teardown has run.
private struct RacingSearch: Model {
    var node = ModelNode<Self>()
    let removed: Locked<Bool>
    let startedAfterRemoval: AtomicCounter
    let running: Locked<Int>
    @Tracked var query = 0

    func onActivate() {
        node.task(id: query) { [removed, startedAfterRemoval, running] _ in
            // A teardown can land between the library's start-of-run check and this line, so a
            // body may see `removed`; but then its task was cancelled first (the `task(id:)` is
            // cancelled before `onCancel` runs), so it unwinds at once. A body running after the
            // teardown in a task nobody cancelled is the bug this counts.
            if removed.value && !Task.isCancelled { startedAfterRemoval.increment() }
            running.withLock { $0 += 1 }
            defer { running.withLock { $0 -= 1 } }
            await waitForCancellation()
        }
        // Runs after the `task(id:)`'s own cancellation, in the same teardown.
        node.onCancel { [removed] in removed.value = true }
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track("query", \.$query) }
}

private struct RacingSearchHolder: Model {
    var node = ModelNode<Self>()
    @Tracked var search: RacingSearch? = nil

    static func register(_ r: inout ModelRegistrar<Self>) { r.track("search", \.$search) }
}

@Suite struct TaskIDRemovalRaceTests {
    @Test func noBodyStartsOnceItsModelIsTornDown() async {
        let startedAfterRemoval = AtomicCounter()
        for _ in 0..<20 {
            let removed = Locked(false)
            let running = Locked(0)
            let holder = RacingSearchHolder().withAnchor()
            let search = RacingSearch(removed: removed, startedAfterRemoval: startedAfterRemoval, running: running)
            holder.search = search
            let finished = await allFinishWithoutDeadlock([
                { for query in 0..<120 where search.lifetime == .anchored { search.query = query } },
                {
                    for _ in 0..<20 { Thread.yield() }
                    holder.search = nil
                },
            ])
            #expect(finished)
            #expect(await eventually { running.value == 0 })
        }
        #expect(startedAfterRemoval.value == 0)
    }
}
