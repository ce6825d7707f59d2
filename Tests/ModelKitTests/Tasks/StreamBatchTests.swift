import ModelKit
import Testing

/// A stream's reader takes everything buffered in one go and hands it out one element per `next()`:
/// the order, ending, stopping and cancelling behave as if it read the buffer element by element.
struct StreamBatchTests {
    @Test func valuesWrittenWhileAReaderHandsOutItsBatchComeAfterIt() async {
        let model = CounterModel().withAnchor()
        let stream = model.change(of: \.count, initial: false)
        for value in 1...5 { model.count = value }
        var iterator = stream.makeAsyncIterator()
        // The first read takes 1...5.
        #expect(await iterator.next() == 1)
        for value in 6...8 { model.count = value }
        var seen: [Int] = []
        for _ in 2...8 {
            if let value = await iterator.next() { seen.append(value) }
        }
        #expect(seen == Array(2...8))
    }

    @Test func finishingWhileABatchIsPartlyReadDeliversItsRestThenEnds() async {
        let parent = TreeModel("parent", log: Log()).withAnchor()
        parent.child = TreeModel("child", log: Log())
        let child = parent.child!
        let stream = child.change(of: \.value, initial: false)
        for value in 1...3 { child.value = value }
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        // Removing the model finishes its stream while 2 and 3 wait in the reader's batch.
        parent.child = nil
        #expect(await iterator.next() == 2)
        #expect(await iterator.next() == 3)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
    }

    @Test func droppingAReaderReleasesTheElementsItTookButDidNotHandOut() async {
        let tracker = LifetimeTracker()
        let root = TreeModel("root", log: Log()).withAnchor()
        do {
            var iterator = root.node.event(ofType: TokenEvent.self).makeAsyncIterator()
            for _ in 1...4 { root.node.send(TokenEvent(token: tracker.token())) }
            // Takes the four events, hands out the first (released at the end of this statement).
            #expect(await iterator.next() != nil)
            #expect(tracker.liveCount == 3)
        }
        #expect(await tracker.allFreed(), "live: \(tracker.liveCount)")
    }

    @Test func aCancelledReaderHandsOutWhatWasBufferedThenEndsAndStopsTheObserver() async {
        let model = CounterModel().withAnchor()
        let stream = model.change(of: \.count, initial: false)
        for value in 1...3 { model.count = value }
        let reader = Task {
            var iterator = stream.makeAsyncIterator()
            var seen: [Int] = []
            if let first = await iterator.next() { seen.append(first) }
            // Cancelled with 2 and 3 in its batch and 4 still in the stream's buffer.
            withUnsafeCurrentTask { $0?.cancel() }
            model.count = 4
            while let value = await iterator.next() { seen.append(value) }
            // Ended: the observer was stopped, so later writes reach no buffer.
            model.count = 5
            let afterEnd = await iterator.next()
            return (seen, afterEnd)
        }
        let (seen, afterEnd) = await reader.value
        #expect(seen == [1, 2, 3, 4])
        #expect(afterEnd == nil)
    }

    @Test func copiesOfAnIteratorShareWhatItTook() async {
        let model = CounterModel().withAnchor()
        let stream = model.change(of: \.count, initial: false)
        for value in 1...4 { model.count = value }
        var first = stream.makeAsyncIterator()
        #expect(await first.next() == 1)
        var second = first
        #expect(await second.next() == 2)
        #expect(await first.next() == 3)
        #expect(await second.next() == 4)
    }

    @Test func aReaderThatKeepsUpWithAWriterOnAnotherThreadSeesEveryValueInOrder() async {
        let model = CounterModel().withAnchor()
        let collector = Collector(model.change(of: \.count, initial: false))
        let writer = Task.detached {
            for value in 1...5_000 { model.count = value }
        }
        await writer.value
        #expect(await collector.waitForCount(5_000))
        #expect(collector.elements == Array(1...5_000))
        collector.cancel()
    }
}

private struct TokenEvent: Sendable {
    let token: LifetimeTracker.Token
}
