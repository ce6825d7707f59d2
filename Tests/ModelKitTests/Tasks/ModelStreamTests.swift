import ModelKit
import Testing

/// The behaviour of `ModelStream`, the sequence that `change(of:)`, `observe` and the event streams
/// return: buffering from creation, ending, and what stopping to listen does.
struct ModelStreamTests {
    @Test func valuesWrittenBeforeTheFirstReadAreBufferedInOrder() async {
        let model = CounterModel().withAnchor()
        let stream = model.change(of: \.count)
        for value in 1...100 { model.count = value }
        var iterator = stream.makeAsyncIterator()
        var seen: [Int] = []
        for _ in 0...100 {
            if let value = await iterator.next() { seen.append(value) }
        }
        #expect(seen == Array(0...100))
    }

    @Test func removedModelsStreamDeliversWhatWasBufferedThenEnds() async {
        let parent = TreeModel("parent", log: Log()).withAnchor()
        parent.child = TreeModel("child", log: Log())
        let child = parent.child!
        let stream = child.change(of: \.value, initial: false)
        child.value = 1
        child.value = 2
        parent.child = nil
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
    }

    @Test func aWaitingReaderIsWokenByTheNextWrite() async {
        let model = CounterModel().withAnchor()
        let collector = Collector(model.change(of: \.count, initial: false))
        // The collector's task waits in `next()` with nothing buffered; each write wakes it.
        for value in 1...20 {
            model.count = value
            #expect(await collector.waitForCount(value))
        }
        #expect(collector.elements == Array(1...20))
        collector.cancel()
    }

    @Test func cancellingTheReaderEndsTheStreamAndStopsTheObserver() async {
        let tracker = LifetimeTracker()
        let model = CounterModel().withAnchor()
        let token = tracker.token()
        let collector = Collector(model.node.observe { _ = token; return model.count })
        #expect(await collector.waitForCount(1))
        collector.cancel()
        #expect(await collector.waitForFinish())
        model.count = 1
        #expect(collector.elements == [0])
        // The observer, and the token its expression captured, were released.
        _ = consume token
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
    }

    @Test func droppingAStreamReleasesWhatItBuffered() async {
        let tracker = LifetimeTracker()
        let root = TreeModel("root", log: Log()).withAnchor()
        do {
            let stream = root.node.event(ofType: TokenEvent.self)
            root.node.send(TokenEvent(token: tracker.token()))
            _ = stream
        }
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
    }

    @Test func twoReadersOfOneStreamShareItsElements() async {
        let model = CounterModel().withAnchor()
        let stream = model.change(of: \.count, initial: false)
        let first = Collector(stream)
        let second = Collector(stream)
        for value in 1...200 { model.count = value }
        #expect(await eventually { first.elements.count + second.elements.count == 200 })
        #expect(Set(first.elements + second.elements) == Set(1...200))
        #expect(first.elements == first.elements.sorted())
        #expect(second.elements == second.elements.sorted())
        first.cancel()
        second.cancel()
    }

    @MainActor
    @Test func aReaderOnTheMainActorReadsWithoutLeavingIt() async {
        let model = CounterModel().withAnchor()
        var iterator = model.change(of: \.count, initial: false).makeAsyncIterator()
        model.count = 1
        // `next(isolation:)` waits on the caller's actor.
        let value = await iterator.next(isolation: MainActor.shared)
        MainActor.assertIsolated()
        #expect(value == 1)
    }
}

private struct TokenEvent: Sendable {
    let token: LifetimeTracker.Token
}
