import ModelKit
import Observation
import Testing

// Each test uses its own model types: a schema is built, and its report made, once per type.

/// Registers a key path through its child's tracked property: the child's storage, not its own.
private struct ReachingThroughAChild: Model {
    var node = ModelNode<Self>()
    @Tracked var child = CounterModel()
    @Tracked var title = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("child", \.$child)
        r.track("childCount", \.child.$count)
        r.track("title", \.$title)
    }
}

/// Registers a key path into a model it stores without tracking it.
private struct ReachingIntoAStoredModel: Model {
    var node = ModelNode<Self>()
    var inner = CounterModel()
    @Tracked var slot: CounterModel? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("innerCount", \.inner.$count)
        r.track("slot", \.$slot)
    }
}

extension ReportedIssueTests {
    @Suite struct ForeignStorageTests {
        @Test func aKeyPathThroughAChildsTrackedPropertyIsReportedAndLeftOut() async {
            await IssueCapture.run(matching: "ReachingThroughAChild") { capture in
                let parent = ReachingThroughAChild().withAnchor()
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix(
                    "ReachingThroughAChild.register(_:) tracks \"childCount\" with a key path that leads outside ReachingThroughAChild's own storage (through another model's tracked property, a class or a collection); it is not tracked."
                ) == true)
                // The child keeps its storage: it is anchored, and its writes are observed.
                #expect(parent.child.lifetime == .anchored)
                let fired = Locked(0)
                withObservationTracking { _ = parent.child.count } onChange: { fired.withLock { $0 += 1 } }
                parent.child.count = 2
                #expect(fired.value == 1 && parent.child.count == 2)
                parent.title = "kept"
                #expect(parent.title == "kept")
            }
        }

        @Test func aKeyPathIntoAStoredModelIsReportedAndTheModelCanStillBeAnchored() async {
            await IssueCapture.run(matching: "ReachingIntoAStoredModel") { capture in
                let holder = ReachingIntoAStoredModel().withAnchor()
                #if DEBUG
                // Debug builds also report the model kept outside a tracked slot.
                #expect(capture.messages.count == 2)
                #expect(capture.messages.last?.hasPrefix("ReachingIntoAStoredModel.inner holds a CounterModel model in a property that is not `@Tracked`") == true)
                #else
                #expect(capture.messages.count == 1)
                #endif
                #expect(capture.messages.first?.contains("tracks \"innerCount\" with a key path that leads outside ReachingIntoAStoredModel's own storage (into the CounterModel in `inner`)") == true)
                holder.slot = holder.inner
                #expect(holder.inner.lifetime == .anchored)
            }
        }
    }
}
