import ModelKit
import Observation
import Testing

/// A model with memoized derived values, counting how often each is computed.
private struct Inventory: Model {
    var node = ModelNode<Self>()
    let evaluations = Locked(0)
    @Tracked var counts: [Int] = []
    @Tracked var note = ""

    var total: Int {
        node.memoize {
            evaluations.withLock { $0 += 1 }
            return counts.reduce(0, +)
        }
    }

    var isLarge: Bool {
        node.memoize(for: "isLarge") { counts.reduce(0, +) > 10 }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$counts)
        r.track(\.$note)
    }
}

/// A memoized value of state that is not tracked (`limit`, as a dependency's value would be).
private struct Gauge: Model {
    var node = ModelNode<Self>()
    let limit: Locked<Int>
    @Tracked var level = 0

    var isOver: Bool { node.memoize(for: "isOver") { level > limit.value } }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$level) }
}

/// `node.memoize` and `resetMemoization(for:)` (API.md section 9).
@Suite struct MemoizeTests {
    /// Observation.md: a memoized value keeps its expression, and with it what the expression
    /// captured. Read through the model value (not the value `withAnchor()` returned), it leaves
    /// the anchor alone: releasing the anchor tears the hierarchy down.
    @Test func aMemoizedValueReadThroughTheModelLeavesTheAnchorAlone() {
        let inventory = Inventory()
        var anchor: Inventory? = inventory.withAnchor()
        inventory.counts = [1, 2]
        #expect(inventory.total == 3)
        #expect(anchor?.lifetime == .anchored)
        anchor = nil
        #expect(inventory.lifetime == .destructed)
    }

    @Test func resetComputesAgainAndItsObserversHearOfAChangedValue() {
        let limit = Locked(10)
        let gauge = Gauge(limit: limit).withAnchor()
        gauge.level = 5
        let log = Log()
        gauge.node.onChange(of: gauge.isOver) { old, new in log.add("\(old) → \(new)") }
        let observed = Locked(0)
        withObservationTracking { _ = gauge.isOver } onChange: { observed.withLock { $0 += 1 } }
        limit.withLock { $0 = 1 }
        gauge.node.resetMemoization(for: "isOver")
        #expect(log.all == ["false → true"])
        #expect(observed.value == 1)
        // Still computed from the tracked input after the reset.
        gauge.level = 0
        #expect(log.all == ["false → true", "true → false"])
        // A reset that leaves the value as it was notifies nothing.
        gauge.node.resetMemoization(for: "isOver")
        #expect(log.all.count == 2)
    }

    @Test func computedOnceThenCached() {
        let inventory = Inventory().withAnchor()
        inventory.counts = [1, 2]
        #expect(inventory.total == 3)
        #expect(inventory.total == 3)
        #expect(inventory.evaluations.value == 1)
    }

    @Test func computedAgainOncePerChangeOfWhatItRead() {
        let inventory = Inventory().withAnchor()
        _ = inventory.total
        inventory.counts = [5]
        inventory.note = "unrelated"
        #expect(inventory.total == 5)
        #expect(inventory.total == 5)
        #expect(inventory.evaluations.value == 2)
        inventory.node.transaction {
            inventory.counts.append(1)
            inventory.counts.append(1)
        }
        #expect(inventory.total == 7)
        #expect(inventory.evaluations.value == 3, "a transaction is one change")
    }

    @Test func observersHearOnlyWhenTheMemoizedValueChanges() {
        let inventory = Inventory().withAnchor()
        inventory.counts = [1]
        let fired = Locked(0)
        withObservationTracking { _ = inventory.isLarge } onChange: { fired.withLock { $0 += 1 } }
        inventory.counts = [2]
        inventory.counts = [3, 4]
        #expect(fired.value == 0, "the inputs changed, the value did not")
        inventory.counts = [20]
        #expect(fired.value == 1)
        #expect(inventory.isLarge)
    }

    @Test func onChangeOverAMemoizedValueFollowsIt() {
        let inventory = Inventory().withAnchor()
        let log = Log()
        inventory.node.onChange(of: inventory.total) { old, new in log.add("\(old) → \(new)") }
        inventory.counts = [1]
        inventory.counts = [1, 1]
        #expect(log.all == ["0 → 1", "1 → 2"])
    }

    @Test func insideATransactionAReadSeesTheWritesBeforeIt() {
        let inventory = Inventory().withAnchor()
        #expect(inventory.total == 0)
        let seen = inventory.node.transaction {
            inventory.counts = [4]
            return inventory.total
        }
        #expect(seen == 4)
        #expect(inventory.total == 4)
    }

    @Test func onAModelNotAnchoredItRunsEveryTime() {
        let inventory = Inventory()
        inventory.counts = [1]
        #expect(inventory.total == 1)
        #expect(inventory.total == 1)
        #expect(inventory.evaluations.value == 2)
    }

    @Test func resetMakesTheNextReadComputeAgain() {
        let inventory = Inventory().withAnchor()
        #expect(inventory.isLarge == false)
        inventory.node.resetMemoization(for: "isLarge")
        inventory.node.resetMemoization(for: "never used")
        inventory.counts = [50]
        #expect(inventory.isLarge)
    }

    @Test func concurrentReadsAndWritesStayConsistent() async {
        let inventory = Inventory().withAnchor()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for i in 0..<200 { inventory.counts = [i] } }
            group.addTask { for _ in 0..<200 { _ = inventory.total } }
            group.addTask { for _ in 0..<200 { _ = inventory.isLarge } }
        }
        #expect(inventory.total == 199)
        #expect(inventory.isLarge)
    }

    @Test func aChangedMemoizedValueIsNoModificationOfItsOwn() async {
        let inventory = Inventory().withAnchor()
        _ = inventory.total
        let modifications = Collector(inventory.node.modifications())
        inventory.counts = [3]
        inventory.note = "x"
        #expect(await modifications.waitForCount(2))
        #expect(modifications.elements.map(\.paths) == [["Inventory.counts"], ["Inventory.note"]])
        modifications.cancel()
    }
}

/// A count, a switch, and a memoized value of the count.
private struct Doubler: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var enabled = false
    @Tracked var title = ""

    var doubled: Int { node.memoize { count * 2 } }
    var quadrupled: Int { node.memoize { doubled * 2 } }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$count)
        r.track(\.$enabled)
        r.track(\.$title)
    }
}

/// Observers that read a memoized value and one of its inputs, registered on the input before the
/// memoized value was: they see each committed state, never the new input beside the old value.
@Suite struct MemoizedValueGlitchTests {
    private struct Pair: Equatable, Sendable {
        var count: Int
        var doubled: Int
    }

    @Test func anObserverRegisteredBeforeTheMemoSeesOnlyCommittedStates() async {
        let model = Doubler().withAnchor()
        // Reads the memoized value only once `enabled` is set: it registers on `count` first.
        let values = Collector(model.node.observe { () -> Pair in
            Pair(count: model.count, doubled: model.enabled ? model.doubled : -1)
        })
        #expect(await values.waitForCount(1))
        _ = model.doubled
        model.enabled = true
        #expect(await values.waitForCount(2))
        model.count = 5
        #expect(await values.waitForCount(3))
        model.node.transaction {
            model.count = 7
            model.title = "x"
        }
        #expect(await values.waitForCount(4))
        #expect(values.elements == [
            Pair(count: 0, doubled: -1), Pair(count: 0, doubled: 0), Pair(count: 5, doubled: 10), Pair(count: 7, doubled: 14),
        ])
        values.cancel()
    }

    @Test func onChangeOfAnExpressionReadingTheMemoRunsOncePerCommit() {
        let model = Doubler().withAnchor()
        let seen = Locked<[String]>([])
        let observing = model.node.onChange(of: model.count * 1000 + (model.enabled ? model.quadrupled : 0)) { old, new in
            seen.withLock { $0.append("\(old)->\(new)") }
        }
        _ = model.quadrupled
        model.enabled = true
        model.count = 5
        // 5000 (the count changed, the memoized values not yet) was never a committed state.
        #expect(seen.value == ["0->5020"])
        observing.cancel()
    }

    @Test func taskIDReadingTheMemoStartsNoBodyForAStateNeverCommitted() async {
        let model = Doubler().withAnchor()
        let runs = Log()
        model.node.task(id: model.count * 1000 + (model.enabled ? model.doubled : 0)) { value in runs.add("\(value)") }
        #expect(await runs.waitFor("0"))
        _ = model.doubled
        model.enabled = true
        model.count = 5
        #expect(await runs.waitFor("5010"))
        #expect(runs.all == ["0", "5010"])
    }

    @Test func aMemoReadBeforeItsTurnNotifiesItsObserversOncePerCommit() {
        let model = Doubler().withAnchor()
        let early = model.node.onChange(of: model.count + (model.enabled ? model.doubled : 0)) { _, _ in }
        model.enabled = true
        let heard = Locked<[Int]>([])
        let observing = model.node.onChange(of: model.doubled) { _, new in heard.withLock { $0.append(new) } }
        model.count = 1
        model.node.transaction {
            model.count = 2
            model.title = "x"
        }
        #expect(heard.value == [2, 4])
        early.cancel()
        observing.cancel()
    }
}
