import ModelKit
import Testing

/// A send to the sender's ancestors walks up the chain under the hierarchy lock without retaining
/// the contexts it passes, and hands the sending model only to listeners that read it.
struct SendUpwardsTests {
    @Test func listenersWithAndWithoutTheSenderOnOneModelEachGetTheEvent() async {
        let log = Log()
        let root = TreeModel("root", log: log, child: TreeModel("child", log: log)).withAnchor()
        let ofType = Collector(root.node.event(ofType: TreeModel.Event.self))
        let fromType = Collector(root.node.event(fromType: TreeModel.self))
        root.child!.node.send(.ping("up"))
        #expect(await ofType.waitForCount(1))
        #expect(await fromType.waitForCount(1))
        #expect(ofType.elements == [.ping("up")])
        #expect(fromType.elements.map(\.model.id) == ["child"])
        #expect(fromType.elements.map(\.event) == [.ping("up")])
        ofType.cancel()
        fromType.cancel()
    }

    @Test func aSenderThreeLevelsDownReachesEveryAncestorOnce() async {
        let log = Log()
        let leaf = TreeModel("leaf", log: log)
        let root = TreeModel("root", log: log, child: TreeModel("middle", log: log, child: leaf)).withAnchor()
        let atRoot = Collector(root.node.event(ofType: TreeModel.Event.self))
        let atMiddle = Collector(root.child!.node.event(fromType: TreeModel.self))
        leaf.node.send(.ping("up"))
        #expect(await atRoot.waitForCount(1))
        #expect(await atMiddle.waitForCount(1))
        #expect(atRoot.elements == [.ping("up")])
        #expect(atMiddle.elements.map(\.model.id) == ["leaf"])
        atRoot.cancel()
        atMiddle.cancel()
    }

    /// The walk holds no reference to the ancestors it passes: it relies on the hierarchy lock,
    /// under which a context on the chain cannot be removed and freed. Under Address Sanitizer a
    /// freed ancestor read by the walk would stop this test.
    @Test func sendingUpWhileAnotherThreadReplacesTheAncestorsReachesTheLiveRoot() async {
        let log = Log()
        let root = TreeModel("root", log: log, child: TreeModel("parent", log: log, child: TreeModel("leaf", log: log)))
            .withAnchor()
        let atRoot = Collector(root.node.event(ofType: TreeModel.Event.self))
        let sent = AtomicCounter()
        let rounds = 2_000
        let workers: [@Sendable () -> Void] = [
            {
                for _ in 0..<rounds {
                    // In a transaction, so that the leaf is still in place when it sends.
                    root.node.transaction {
                        guard let leaf = root.child?.child else { return }
                        leaf.node.send(.ping("up"))
                        sent.increment()
                    }
                }
            },
            {
                for index in 0..<rounds {
                    root.child = TreeModel("parent \(index)", log: log, child: TreeModel("leaf \(index)", log: log))
                }
            },
        ]
        #expect(await allFinishWithoutDeadlock(workers), "the workers did not finish: a deadlock")
        #expect(sent.value == rounds)
        #expect(await atRoot.waitForCount(rounds))
        #expect(atRoot.elements.count == rounds)
        atRoot.cancel()
    }
}
