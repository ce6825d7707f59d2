import ModelKit
import Testing

private struct Failure: Error, Equatable {
    let code: Int
}

private struct WorkerModel: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var count = 0
    @Tracked var workers: [WorkerModel] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("workers", \.$workers)
    }
}

@Suite struct TaskLifetimeTests {
    @Test func taskRunsWhileTheModelIsAnchored() async {
        let model = WorkerModel(log: Log()).withAnchor()
        model.node.task { model.count = 1 }
        #expect(await eventually { model.count == 1 })
    }

    @Test func taskIsCancelledWhenTheModelIsRemoved() async {
        let log = Log()
        let root = WorkerModel(log: log).withAnchor()
        let worker = WorkerModel(log: log)
        root.workers = [worker]
        let started = Gate()
        worker.node.task {
            started.open()
            await waitForCancellation()
            log.add("cancelled=\(Task.isCancelled)")
        }
        await started.enter()
        root.workers = []
        #expect(await log.waitFor("cancelled=true"))
    }

    @Test func taskIsCancelledWhenTheHierarchyIsReleased() async {
        let log = Log()
        let started = Gate()
        do {
            let root = WorkerModel(log: log).withAnchor()
            root.node.task {
                started.open()
                await waitForCancellation()
                log.add("ended")
            }
            await started.enter()
        }
        #expect(await log.waitFor("ended"))
    }

    @Test func taskErrorGoesToItsCatchHandler() async {
        let log = Log()
        let model = WorkerModel(log: log).withAnchor()
        model.node.task {
            throw Failure(code: 7)
        } catch: { error in
            log.add("caught \((error as? Failure)?.code ?? -1)")
        }
        #expect(await log.waitFor("caught 7"))
    }

    @Test func cancellationErrorIsSwallowed() async {
        let log = Log()
        let model = WorkerModel(log: log).withAnchor()
        let started = Gate()
        let task = model.node.task {
            started.open()
            await waitForCancellation()
            log.add("throwing")
            throw CancellationError()
        } catch: { error in
            log.add("caught \(error)")
        }
        await started.enter()
        task.cancel()
        #expect(await log.waitFor("throwing"))
        // A later task's catch handler runs after; the first one's must not have.
        model.node.task { throw Failure(code: 1) } catch: { _ in log.add("second caught") }
        #expect(await log.waitFor("second caught"))
        #expect(log.entries(withPrefix: "caught").isEmpty)
    }

    @Test func taskOnARemovedModelDoesNotRun() async {
        let log = Log()
        let root = WorkerModel(log: log).withAnchor()
        let worker = WorkerModel(log: log)
        root.workers = [worker]
        root.workers = []
        worker.node.task { log.add("ran") }
        root.node.task { log.add("root ran") }
        #expect(await log.waitFor("root ran"))
        #expect(!log.all.contains("ran"))
    }

    @Test func forEachConsumesOneElementAtATimeInOrder() async {
        let log = Log()
        let model = WorkerModel(log: log).withAnchor()
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        model.node.forEach(stream) { element in
            log.add("start \(element)")
            await Task.yield()
            log.add("end \(element)")
        }
        for element in 1...3 { continuation.yield(element) }
        continuation.finish()
        #expect(await log.waitForCount(6))
        #expect(log.all == ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"])
    }

    @Test func forEachBodyErrorGoesToCatchAndTheLoopGoesOn() async {
        let log = Log()
        let model = WorkerModel(log: log).withAnchor()
        model.node.forEach([1, 2, 3].async) { element in
            if element == 2 { throw Failure(code: element) }
            log.add("body \(element)")
        } catch: { error in
            log.add("caught \((error as? Failure)?.code ?? -1)")
        }
        #expect(await log.waitForCount(3))
        #expect(log.all == ["body 1", "caught 2", "body 3"])
    }

    @Test func forEachSequenceErrorEndsTheLoopAndGoesToCatch() async {
        let log = Log()
        let model = WorkerModel(log: log).withAnchor()
        let (stream, continuation) = AsyncThrowingStream<Int, any Error>.makeStream()
        model.node.forEach(stream) { element in
            log.add("body \(element)")
        } catch: { error in
            log.add("caught \((error as? Failure)?.code ?? -1)")
        }
        continuation.yield(1)
        continuation.finish(throwing: Failure(code: 9))
        #expect(await log.waitForCount(2))
        #expect(log.all == ["body 1", "caught 9"])
    }

    @Test func forEachCancelPreviousStartsTheNextBodyOnlyAfterThePreviousUnwound() async {
        let log = Log()
        let model = WorkerModel(log: log).withAnchor()
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        model.node.forEach(stream, cancelPrevious: true) { element in
            log.add("start \(element)")
            if element < 3 {
                await waitForCancellation()
                // Unwinding takes several suspensions; the next body must wait for all of them.
                for _ in 0..<20 { await Task.yield() }
                log.add("unwound \(element)")
            } else {
                log.add("done \(element)")
            }
        }
        continuation.yield(1)
        #expect(await log.waitFor("start 1"))
        continuation.yield(2)
        #expect(await log.waitFor("start 2"))
        continuation.yield(3)
        #expect(await log.waitFor("done 3"))
        #expect(log.all == ["start 1", "unwound 1", "start 2", "unwound 2", "start 3", "done 3"])
        continuation.finish()
    }

    @Test func forEachCancelPreviousKeepsTheRunningBodyAsItsWorkWhenTheSequenceFails() async {
        for removeModel in [true, false] {
            let log = Log()
            let root = WorkerModel(log: log).withAnchor()
            let worker = WorkerModel(log: log)
            root.workers = [worker]
            let fail = Gate()
            let loop = worker.node.forEach(FailingAfterOne(fail: fail, log: log), cancelPrevious: true) { element in
                log.add("start \(element)")
                await waitForCancellation()
                log.add("body cancelled \(element)")
            } catch: { error in
                log.add("caught \((error as? Failure)?.code ?? -1)")
            }
            #expect(await log.waitFor("start 1"))
            fail.open()
            #expect(await log.waitFor("sequence failed"))
            if removeModel { root.workers = [] } else { loop.cancel() }
            #expect(await log.waitFor("body cancelled 1"), "removeModel: \(removeModel)")
            #expect(await log.waitFor("caught 9"))
            #expect(log.all == ["start 1", "sequence failed", "body cancelled 1", "caught 9"])
        }
    }

    @Test func cancellingAForEachCancelsItsRunningBody() async {
        for cancelPrevious in [false, true] {
            let log = Log()
            let model = WorkerModel(log: log).withAnchor()
            let (stream, continuation) = AsyncStream<Int>.makeStream()
            let loop = model.node.forEach(stream, cancelPrevious: cancelPrevious) { element in
                log.add("start \(element)")
                await waitForCancellation()
                log.add("body cancelled \(element)")
            }
            continuation.yield(1)
            #expect(await log.waitFor("start 1"))
            loop.cancel()
            #expect(await log.waitFor("body cancelled 1"), "cancelPrevious: \(cancelPrevious)")
            continuation.finish()
        }
    }

    @Test func forEachEndsWhenTheModelIsRemoved() async {
        let log = Log()
        let root = WorkerModel(log: log).withAnchor()
        let worker = WorkerModel(log: log)
        root.workers = [worker]
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        continuation.onTermination = { _ in log.add("stream terminated") }
        worker.node.forEach(stream) { element in log.add("body \(element)") }
        continuation.yield(1)
        #expect(await log.waitFor("body 1"))
        root.workers = []
        // The loop's end terminates the stream: no later element can reach a body.
        #expect(await log.waitFor("stream terminated"))
        let result = continuation.yield(2)
        guard case .terminated = result else {
            Issue.record("the stream still takes elements: \(result)")
            return
        }
        #expect(!log.all.contains("body 2"))
    }
}

private let failureOfTheSequence = Failure(code: 9)

/// Yields 1, then fails once `fail` opens.
private struct FailingAfterOne: AsyncSequence, Sendable {
    typealias Element = Int
    let fail: Gate
    let log: Log

    struct AsyncIterator: AsyncIteratorProtocol {
        let fail: Gate
        let log: Log
        var yielded = false

        mutating func next() async throws -> Int? {
            if !yielded {
                yielded = true
                return 1
            }
            await fail.enter()
            log.add("sequence failed")
            throw failureOfTheSequence
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(fail: fail, log: log) }
}
