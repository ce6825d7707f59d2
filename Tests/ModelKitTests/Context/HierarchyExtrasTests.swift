import ModelKit
import Testing

private enum SeedKey: DependencyKey {
    static let liveValue = 7
}

/// A hierarchy keeps what few hierarchies use (event listener counts, dependency defaults, hooks,
/// undo, the tester) in extras created on first use and published for reads without the lock. They
/// live as long as the hierarchy: under Address Sanitizer a reader that found freed extras, or a
/// hierarchy that released them twice, would stop these tests.
struct HierarchyExtrasTests {
    @Test func extrasCreatedByTwoThreadsAtOnceServeBoth() async {
        for round in 0..<200 {
            let log = Log()
            // `model` is the same model as `root` but does not keep the hierarchy alive.
            let model = TreeModel("root \(round)", log: log, child: TreeModel("child", log: log))
            var root: TreeModel? = model.withAnchor()
            guard let child = model.child else {
                Issue.record("the root lost its child")
                return
            }
            let events = Collector(model.node.event(ofType: TreeModel.Event.self))
            let seeds = Locked<[Int]>([])
            // One thread resolves a dependency default (publishing it for reads without the lock)
            // while the other sends; either may be the one that creates the extras.
            let finished = await allFinishWithoutDeadlock([
                { seeds.withLock { $0.append(child.node[SeedKey.self]) } },
                { child.node.send(.ping("up")) },
            ])
            #expect(finished)
            #expect(seeds.value == [7])
            #expect(model.node[SeedKey.self] == 7)
            #expect(await events.waitForCount(1))
            events.cancel()
            #expect(root?.lifetime == .anchored)
            root = nil
            #expect(child.lifetime == .destructed)
        }
    }
}
