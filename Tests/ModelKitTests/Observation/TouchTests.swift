import ModelKit
import ModelKitTesting
import Observation
import Testing

/// A model holding a reference type that it mutates in place.
private final class Buffer: Sendable {
    let lines = Locked<[String]>([])
}

private struct LogView: Model {
    var node = ModelNode<Self>()
    @Tracked var buffer = Buffer()
    @Tracked var count = 0

    func append(_ line: String) {
        buffer.lines.withLock { $0.append(line) }
        node.touch(\.buffer)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$buffer)
        r.track(\.$count)
    }
}

/// `node.touch(_:)` (API.md section 9).
extension ReportedIssueTests {
    @Suite struct TouchTests {
        @Test func touchNotifiesObservationWithoutAChange() {
            let view = LogView().withAnchor()
            let fired = Locked(0)
            withObservationTracking { _ = view.buffer } onChange: { fired.withLock { $0 += 1 } }
            view.append("hello")
            #expect(fired.value == 1)
        }

        @Test func onChangeAndStreamsSeeTheCurrentValueAgain() async {
            let view = LogView().withAnchor()
            view.count = 2
            let log = Log()
            view.node.onChange(of: \.count) { old, new in log.add("\(old) → \(new)") }
            let counts = Collector(view.change(of: \.count))
            #expect(await counts.waitForCount(1))
            view.node.touch(\.count)
            #expect(log.all == ["2 → 2"])
            #expect(await counts.waitForCount(2))
            #expect(counts.elements == [2, 2])
            counts.cancel()
        }

        @Test func touchIsAModification() async {
            let view = LogView().withAnchor()
            let modifications = Collector(view.node.modifications())
            view.append("line")
            #expect(await modifications.waitForCount(1))
            #expect(modifications.elements.map(\.paths) == [["LogView.buffer"]])
            modifications.cancel()
        }

        @Test func insideATransactionObserversHearOnce() {
            let view = LogView().withAnchor()
            let log = Log()
            view.node.onChange(of: \.count) { old, new in log.add("\(old) → \(new)") }
            view.node.transaction {
                view.node.touch(\.count)
                view.count = 1
                view.node.touch(\.count)
            }
            #expect(log.all == ["0 → 1"])
        }

        @Test func theTesterRecordsNoChange() async {
            let (view, tester) = LogView().andTester()
            view.append("a")
            view.node.touch(\.count)
            await tester.finish()
        }

        @Test func touchingAnInitialModelIsReported() async {
            await IssueCapture.run(matching: "LogView.node.touch") { capture in
                let view = LogView()
                view.node.touch(\.count)
                #expect(capture.messages.count == 1)
            }
        }
    }
}
