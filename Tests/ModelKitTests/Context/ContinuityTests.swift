import ModelKit
import Testing

/// Same-id continuity: a new instance whose `id` equals a live child's id (in the same slot)
/// continues that child; a different id replaces it.
@Suite struct ContinuityTests {
    /// Starts a task on `model` that runs until cancelled, logging `task cancelled <id>` inside the
    /// call that cancels it and `task ended <id>` when it ends.
    private func startLongTask(on model: TreeModel, log: Log) async {
        let started = Gate()
        let id = model.id
        model.node.task {
            await waitForCancellation(waiting: started.open) { log.add("task cancelled \(id)") }
            log.add("task ended \(model.id)")
        }
        await started.enter()
    }

    /// Checks that the child `a` was continued (not torn down or reactivated), its task still runs,
    /// and the new instance's values are live.
    private func expectContinued(_ log: Log, live: () -> TreeModel?, old: TreeModel, new: TreeModel) async {
        #expect(log.count(of: "activate a") == 1)
        #expect(log.count(of: "cancel a") == 0)
        // Cancelling the task would have logged this before the assignment returned.
        #expect(!log.all.contains("task cancelled a"))
        #expect(live()?.value == 2)
        #expect(new.lifetime == .anchored)
        #expect(old.value == 1)
    }

    @Test func newInstanceWithSameIDContinuesADirectChild() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let old = TreeModel("a", log: log, value: 1)
        root.child = old
        await startLongTask(on: old, log: log)
        let new = TreeModel("a", log: log, value: 2)
        root.child = new
        await expectContinued(log, live: { root.child }, old: old, new: new)
        root.child = nil
        #expect(new.lifetime == .destructed)
        #expect(await log.waitFor("task ended a"))
        #expect(log.count(of: "cancel a") == 1)
    }

    @Test func newInstancesWithSameIDsContinueArrayChildren() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let old = TreeModel("a", log: log, value: 1)
        root.children = [old, TreeModel("b", log: log)]
        await startLongTask(on: old, log: log)
        let new = TreeModel("a", log: log, value: 2)
        root.children = [TreeModel("b", log: log, value: 5), new]
        await expectContinued(log, live: { root.children.last }, old: old, new: new)
        #expect(root.children.map(\.id) == ["b", "a"])
        #expect(root.children.first?.value == 5)
        #expect(log.count(of: "activate b") == 1)
    }

    @Test func newInstanceWithSameIDContinuesADictionaryChild() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let old = TreeModel("a", log: log, value: 1)
        root.byKey = ["k": old]
        await startLongTask(on: old, log: log)
        let new = TreeModel("a", log: log, value: 2)
        root.byKey["k"] = new
        await expectContinued(log, live: { root.byKey["k"] }, old: old, new: new)
    }

    @Test func newInstanceWithSameIDContinuesAChildInACustomEnum() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let old = TreeModel("a", log: log, value: 1)
        root.destination = .detail(old)
        await startLongTask(on: old, log: log)
        let new = TreeModel("a", log: log, value: 2)
        root.destination = .detail(new)
        await expectContinued(log, live: {
            if case .detail(let model) = root.destination { model } else { nil }
        }, old: old, new: new)
    }

    @Test func newInstanceWithSameIDContinuesAChildInACustomStruct() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let old = TreeModel("a", log: log, value: 1)
        root.pair = Pair(left: TreeModel("left", log: log), right: old)
        await startLongTask(on: old, log: log)
        let new = TreeModel("a", log: log, value: 2)
        root.pair?.right = new
        await expectContinued(log, live: { root.pair?.right }, old: old, new: new)
        #expect(log.count(of: "activate left") == 1)
    }

    @Test func continuedChildReconcilesItsOwnChildren() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.child = TreeModel("a", log: log, children: [TreeModel("x", log: log), TreeModel("y", log: log)])
        let y = root.child?.children.last
        root.child = TreeModel("a", log: log, children: [TreeModel("x", log: log, value: 3), TreeModel("z", log: log)])
        #expect(log.count(of: "activate x") == 1)
        #expect(log.count(of: "cancel x") == 0)
        #expect(root.child?.children.first?.value == 3)
        #expect(y?.lifetime == .destructed)
        #expect(log.count(of: "activate z") == 1)
    }

    @Test func continuityCountsTheNewValuesAsChanges() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.child = TreeModel("a", log: log, value: 1)
        let printed = Locked<[String]>([])
        let printing = root._printChanges { line in printed.withLock { $0.append(line) } }
        root.child = TreeModel("a", log: log, value: 2)
        #expect(printed.value.contains("TreeModel.child.value: 1 → 2"))
        printing.cancel()
    }

    @Test func onChangeRegisteredBeforeContinuityKeepsReporting() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let old = TreeModel("a", log: log, value: 1)
        root.child = old
        old.node.onChange(of: \.value) { before, after in log.add("value \(before) → \(after)") }
        root.child = TreeModel("a", log: log, value: 2)
        root.child?.value = 3
        #expect(await log.waitFor("value 2 → 3"))
        #expect(log.entries(withPrefix: "value") == ["value 1 → 2", "value 2 → 3"])
    }

    @Test func changeStreamOfTheContinuedModelKeepsDelivering() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let old = TreeModel("a", log: log, value: 1)
        root.child = old
        let values = Collector(old.change(of: \.value))
        #expect(await values.waitForCount(1))
        root.child = TreeModel("a", log: log, value: 2)
        root.child?.value = 3
        #expect(await values.waitForCount(3))
        #expect(values.elements == [1, 2, 3])
        values.cancel()
    }

    @Test func copyOfTheReplacedInstanceIsNoLongerAnchored() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let old = TreeModel("a", log: log, value: 1)
        root.child = old
        root.child = TreeModel("a", log: log, value: 2)
        // Its writes are refused, so it must not tell callers that check `lifetime` it is live.
        #expect(old.lifetime == .destructed)
        #expect(root.child?.lifetime == .anchored)
    }

    @Test func differentIDReplacesTheChild() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        let a = TreeModel("a", log: log)
        root.child = a
        root.child = TreeModel("b", log: log)
        #expect(a.lifetime == .destructed)
        #expect(root.child?.lifetime == .anchored)
        #expect(log.count(of: "cancel a") == 1)
        #expect(log.count(of: "activate b") == 1)
    }

    @Test func replacedChildIsTornDownBeforeTheNewOneActivates() {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.child = TreeModel("a", log: log)
        log.clear()
        root.child = TreeModel("b", log: log)
        #expect(log.all == ["cancel a", "activate b"])
    }
}
