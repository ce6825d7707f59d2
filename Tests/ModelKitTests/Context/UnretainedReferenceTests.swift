import ModelKit
import Testing

/// A child's places and an observer's registrations refer to contexts without retaining them; they
/// are removed before the context can be freed. These tests free a context that such references
/// pointed at, then use the paths that follow them.
@Suite struct UnretainedReferenceTests {
    @Test func sharedModelReachesOnlyItsRemainingParentAfterTheOtherIsFreed() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let shared = TreeModel("s", log: log)
        root.children = [TreeModel("a", log: log, child: shared), TreeModel("b", log: log, child: shared)]
        let listeners = [root, root.children[1]].map { Collector($0.node.event(ofType: Int.self)) }
        // `a` is destructed, and with no copy of it left, freed.
        root.children.removeFirst()
        #expect(shared.lifetime == .anchored)
        shared.node.send(1, to: .ancestors)
        shared.node.send(2, to: .parent)
        for listener in listeners { #expect(await listener.waitForCount(1)) }
        #expect(await listeners[1].waitForCount(2))
        #expect(listeners.map(\.elements) == [[1], [1, 2]])
        for listener in listeners { listener.cancel() }
    }

    @Test func observerOfAFreedModelGoesOnObservingWhatItReadsNext() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.children = [TreeModel("a", log: log)]
        let values = Collector(root.node.observe { root.children.first?.value ?? -1 })
        #expect(await values.waitForCount(1))
        // `a`, whose value the observer read, is destructed and freed.
        root.children = []
        root.children = [TreeModel("c", log: log, value: 5)]
        root.children[0].value = 6
        #expect(await values.waitForCount(4))
        #expect(values.elements == [0, -1, 5, 6])
        values.cancel()
    }

    @Test func onChangeOwnedByAFreedModelCanStillBeCancelled() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.children = [TreeModel("a", log: log)]
        let changes = Locked(0)
        let cancellable = root.children[0].node.onChange(of: \.value) { _, _ in changes.withLock { $0 += 1 } }
        root.children[0].value = 1
        root.children = []
        // The handle keeps only a husk of the removed model's context: cancelling does nothing.
        cancellable.cancel()
        #expect(changes.value == 1)
    }
}
