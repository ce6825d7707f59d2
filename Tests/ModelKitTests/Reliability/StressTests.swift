import Foundation
import ModelKit
import Testing

/// Several threads mutate one hierarchy at once and check its invariants as they go and at the end.
/// The threads are plain threads (not the cooperative pool), so they really run in parallel and
/// preempt each other anywhere. Sizes are iteration counts, not durations; a run takes well under a
/// second in a debug build. Run under Thread Sanitizer with `swift test --sanitize=thread`.
@Suite struct StressTests {
    private let rounds = 300

    /// Reads, writes, transactions, children appended, removed and replaced (by a new instance with
    /// the same id, which continues the row), rows shared on a shelf and moved between parents,
    /// events sent down and up, tasks started and cancelled: all at once, from six threads.
    @Test func mixedWorkloadKeepsEveryInvariant() async {
        let journal = StressJournal()
        let root = StressRoot(journal: journal).withAnchor()
        // Rows that live through the whole run; `keep-shared` sits in `rows`, on the shelf and under `keep-a`.
        let shared = StressRow("keep-shared", journal: journal)
        let keepA = StressRow("keep-a", journal: journal, kids: [shared])
        let keepB = StressRow("keep-b", journal: journal)
        root.rows = [keepA, keepB]
        root.rows.append(shared)
        root.shelf = [shared]
        let balances = Collector(root.node.observe { root.credit + root.debit })
        let pair = Collector(root.node.observe { keepA.value + keepB.value })
        let sentUp = AtomicCounter()
        let rounds = self.rounds

        let workers: [@Sendable () -> Void] = [
            { Self.moveBalances(root, keepA, keepB, rounds: rounds) },
            { Self.readSnapshots(root, journal, rounds: rounds) },
            { Self.changeStructure(root, journal, rounds: rounds, seed: 3) },
            { Self.shareAndMove(root, rounds: rounds, seed: 4) },
            { Self.sendEvents(root, sentUp: sentUp, rounds: rounds, seed: 5) },
            { Self.startAndCancelTasks(root, journal, rounds: rounds, seed: 6) },
        ]
        #expect(await allFinishWithoutDeadlock(workers), "the workers did not finish: a deadlock")

        #expect(journal.violations.isEmpty, "\(journal.violations.prefix(5))")
        #expect(root.credit == rounds && root.credit + root.debit == 0)
        #expect(keepA.value + keepB.value == 0)
        #expect(await eventually { balances.elements.last == 0 && pair.elements.last == 0 })
        #expect(balances.elements.allSatisfy { $0 == 0 }, "a transaction was seen half-applied")
        #expect(pair.elements.allSatisfy { $0 == 0 }, "a transaction was seen half-applied")
        // Each event reached each live listener once, in send order; a model shared at three places too.
        for id in ["keep-shared", "keep-a", "keep-b"] {
            #expect(await eventually { journal.downReceived(at: id).count == rounds }, "\(id)")
            #expect(journal.downReceived(at: id) == Array(0..<rounds), "\(id)")
        }
        #expect(await eventually { journal.upCount == sentUp.value })

        // Removing everything tears every row down once, ends every task, and leaves no work registered.
        root.rows = []
        root.shelf = []
        root.featured = nil
        #expect(shared.lifetime == .destructed)
        let activations = journal.activations
        let teardowns = journal.teardowns
        #expect(activations.count > 3)
        #expect(activations.values.allSatisfy { $0 == 1 })
        let notTornDown = Set(activations.keys).subtracting(teardowns.keys).sorted()
        #expect(teardowns == activations, "activated but not torn down: \(notTornDown.prefix(5))")
        let tasksEnded = await eventually { journal.idsWithRunningTasks.isEmpty }
        #expect(tasksEnded, "task bodies still running on \(journal.idsWithRunningTasks.prefix(5))")
        #expect(journal.startedTasks > 0)
        let work = root.hierarchy?.runningWork() ?? []
        #expect(work.allSatisfy { $0.modelType == "StressRoot" }, "\(work.map(\.modelType))")
        #expect(journal.violations.isEmpty, "\(journal.violations.prefix(5))")
        balances.cancel()
        pair.cancel()
    }

    /// One thread updates rows while another anchors them, so each update lands before, during or
    /// after its row's anchoring: none is lost.
    @Test func compoundUpdatesWhileTheModelIsBeingAnchoredAreNeverLost() async {
        let journal = StressJournal()
        let root = StressRoot(journal: journal).withAnchor()
        let rows = (0..<rounds).map { StressRow("row-\($0)", journal: journal) }
        let updates = 4
        let update: @Sendable () -> Void = {
            for step in 0..<updates {
                for row in rows {
                    row.value += 1
                    row.kids.append(StressRow("\(row.id)-kid-\(step)", journal: journal))
                }
            }
        }
        let anchor: @Sendable () -> Void = {
            for row in rows { root.rows.append(row) }
        }
        #expect(await allFinishWithoutDeadlock([update, anchor]))
        let lost = rows.filter { $0.value != updates || $0.kids.count != updates }.map(\.id)
        #expect(lost.isEmpty, "updates lost on \(lost.count) of \(rounds) rows, e.g. \(lost.prefix(3))")
        #expect(rows.allSatisfy { $0.lifetime == .anchored })
    }

    /// API.md: "Compound updates are atomic", for models not anchored yet too. Each update here
    /// tries to meet the other thread's inside its mutation (a bounded spin): atomic updates cannot
    /// meet, so each spin times out; updates that did meet would both start from the same value and
    /// one would be lost.
    @Test func compoundUpdatesOfAnInitialModelFromSeveralThreadsAreNeverLost() async {
        let item = LockItem()
        let meetings = 3
        let arrived = AtomicCounter()
        let update: @Sendable (Int) -> Void = { thread in
            for meeting in 0..<meetings {
                let rendezvous = Rendezvous(arrived: arrived, awaiting: 2 * (meeting + 1), value: thread)
                item.numbers.append(contentsOf: rendezvous)
            }
            for _ in 0..<10 * rounds { item.count += 1 }
        }
        #expect(await allFinishWithoutDeadlock([{ update(0) }, { update(1) }]))
        #expect(item.lifetime == .initial)
        #expect(item.numbers.count == 2 * meetings, "\(2 * meetings - item.numbers.count) appends lost")
        #expect(item.count == 20 * rounds, "\(20 * rounds - item.count) of \(20 * rounds) updates lost")
    }

    /// Values and children moved between two models in transactions are never seen half-moved: not
    /// by a frozen copy, a reading transaction or an `observe` stream.
    @Test func transactionsAcrossModelsAndChildrenAreNeverSeenHalfApplied() async {
        let journal = StressJournal()
        let root = StressRoot(journal: journal).withAnchor()
        let kidsPerRow = 4
        let kids = { (prefix: String) in
            (0..<kidsPerRow).map { StressRow("\(prefix)\($0)", journal: journal) }
        }
        let left = StressRow("left", journal: journal, kids: kids("l"))
        let right = StressRow("right", journal: journal, kids: kids("r"))
        root.rows = [left, right]
        let total = 2 * kidsPerRow
        let kidCounts = Collector(root.node.observe { left.kids.count + right.kids.count })
        let values = Collector(root.node.observe { left.value + right.value })
        let throughRows = Collector(root.node.observe { root.rows.map(\.kids.count).reduce(0, +) })
        let torn = AtomicCounter()
        let rounds = self.rounds
        let move: @Sendable (StressRow, StressRow) -> Void = { from, to in
            for step in 0..<rounds {
                root.node.transaction {
                    from.value -= step
                    to.value += step
                    if let kid = from.kids.last {
                        to.kids.append(kid)
                        from.kids.removeLast()
                    }
                    if step.isMultiple(of: 10) { root.rows = root.rows.reversed() }
                }
            }
        }
        let read: @Sendable () -> Void = {
            for _ in 0..<rounds {
                let frozen = root.frozenCopy
                let kids = frozen.rows.map(\.kids.count).reduce(0, +)
                let sum = frozen.rows.map(\.value).reduce(0, +)
                if kids != total || sum != 0 { torn.increment() }
                let (liveKids, liveSum) = root.node.transaction {
                    (left.kids.count + right.kids.count, left.value + right.value)
                }
                if liveKids != total || liveSum != 0 { torn.increment() }
            }
        }
        let finished = await allFinishWithoutDeadlock([
            { move(left, right) }, { move(right, left) }, read, read,
        ])
        #expect(finished, "the threads did not finish: a deadlock")
        #expect(torn.value == 0)
        #expect(left.kids.count + right.kids.count == total)
        #expect((left.kids + right.kids).allSatisfy { $0.lifetime == .anchored })
        // Moved within one transaction: never torn down, never activated again.
        #expect(journal.activations.values.allSatisfy { $0 == 1 })
        #expect(journal.teardowns.isEmpty)
        #expect(await eventually { values.elements.last == 0 && throughRows.elements.last == total })
        #expect(kidCounts.elements.allSatisfy { $0 == total })
        #expect(values.elements.allSatisfy { $0 == 0 })
        #expect(throughRows.elements.allSatisfy { $0 == total })
        kidCounts.cancel()
        values.cancel()
        throughRows.cancel()
    }
}

// MARK: - The workers of mixedWorkloadKeepsEveryInvariant

extension StressTests {
    /// Moves amounts between the root's balances and between two rows, each move one transaction.
    private static func moveBalances(_ root: StressRoot, _ keepA: StressRow, _ keepB: StressRow, rounds: Int) {
        for step in 0..<rounds {
            root.node.transaction {
                root.credit += 1
                root.debit -= 1
            }
            keepA.node.transaction {
                keepA.value += step
                keepB.value -= step
            }
            keepB.value += 0
        }
    }

    /// Checks snapshots: frozen copies and reading transactions see whole transactions only.
    private static func readSnapshots(_ root: StressRoot, _ journal: StressJournal, rounds: Int) {
        for _ in 0..<rounds {
            let frozen = root.frozenCopy
            if frozen.credit + frozen.debit != 0 {
                journal.violation("frozen copy with credit \(frozen.credit), debit \(frozen.debit)")
            }
            let pair = frozen.rows.filter { $0.id == "keep-a" || $0.id == "keep-b" }.map(\.value)
            if pair.count != 2 || pair.reduce(0, +) != 0 {
                journal.violation("frozen copy with keep-a + keep-b values \(pair)")
            }
            let rows = frozen.rows + (frozen.featured.map { [$0] } ?? [])
            if rows.contains(where: { $0.lifetime != .frozen }) {
                journal.violation("frozen copy holding a live row")
            }
            let (credit, debit) = root.node.transaction { (root.credit, root.debit) }
            if credit + debit != 0 {
                journal.violation("transaction read credit \(credit), debit \(debit)")
            }
            _ = root.rows.map(\.value)
            _ = root.shelf.map(\.kids.count)
        }
    }

    /// Appends rows with a kid, removes rows, continues rows with new instances of the same id, and
    /// replaces or continues the featured row.
    private static func changeStructure(
        _ root: StressRoot, _ journal: StressJournal, rounds: Int, seed: UInt64
    ) {
        var random = SeededRandom(seed: seed)
        for step in 0..<rounds {
            switch random.below(4) {
            case 0:
                let kid = StressRow("kid-\(step)", journal: journal)
                root.rows.append(StressRow("row-\(step)", journal: journal, kids: [kid]))
            case 1:
                root.node.transaction {
                    let temporary = root.rows.filter { !$0.id.hasPrefix("keep") }
                    guard let victim = temporary.randomElement(using: &random) else { return }
                    root.rows.removeAll { $0.id == victim.id }
                }
            case 2:
                root.node.transaction {
                    let temporary = root.rows.indices.filter { !root.rows[$0].id.hasPrefix("keep") }
                    guard let index = temporary.randomElement(using: &random) else { return }
                    let id = root.rows[index].id
                    let kid = StressRow("kid-\(step)-new", journal: journal)
                    root.rows[index] = StressRow(id, journal: journal, kids: [kid])
                }
            default:
                switch random.below(3) {
                case 0: root.featured = StressRow("featured-\(step)", journal: journal)
                case 1: root.featured = root.featured.map { StressRow($0.id, journal: journal) }
                default: root.featured = nil
                }
            }
        }
    }

    /// Shares rows on the shelf, takes them off, and moves kids between rows: in one transaction, or
    /// added to the new parent before leaving the old one.
    private static func shareAndMove(_ root: StressRoot, rounds: Int, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<rounds {
            switch random.below(3) {
            case 0:
                root.node.transaction {
                    guard let row = root.rows.randomElement(using: &random),
                          !root.shelf.contains(where: { $0.id == row.id }) else { return }
                    root.shelf.append(row)
                }
            case 1:
                root.node.transaction {
                    let removable = root.shelf.filter { $0.id != "keep-shared" }
                    guard let row = removable.randomElement(using: &random) else { return }
                    root.shelf.removeAll { $0.id == row.id }
                }
            default:
                let inOneTransaction = random.chance(50)
                let pending: (kid: String, from: String)? = root.node.transaction {
                    // keep-a's kids stay put: `keep-shared` is one of them.
                    let parents = root.rows.filter { !$0.kids.isEmpty && $0.id != "keep-a" }
                    guard let from = parents.randomElement(using: &random),
                          let to = root.rows.randomElement(using: &random), to.id != from.id,
                          let kid = from.kids.last, !to.kids.contains(where: { $0.id == kid.id })
                    else { return nil }
                    to.kids.append(kid)
                    guard !inOneTransaction else {
                        from.kids.removeLast()
                        return nil
                    }
                    return (kid.id, from.id)
                }
                if let pending {
                    root.node.transaction {
                        root.row(pending.from)?.kids.removeAll { $0.id == pending.kid }
                    }
                }
            }
        }
    }

    /// Sends events down from the root to every row, and up from a live row to the root.
    private static func sendEvents(_ root: StressRoot, sentUp: AtomicCounter, rounds: Int, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for step in 0..<rounds {
            root.node.send(StressDown(sequence: step), to: .descendants)
            root.node.transaction {
                guard let row = root.rows.randomElement(using: &random) else { return }
                row.node.send(.up(sender: row.id, sequence: step))
                sentUp.increment()
            }
        }
    }

    /// Starts tasks, loops and `onCancel` handlers on rows that other threads may be removing, and
    /// cancels some of them at once, some later, and leaves the rest to the rows' removal.
    private static func startAndCancelTasks(
        _ root: StressRoot, _ journal: StressJournal, rounds: Int, seed: UInt64
    ) {
        var random = SeededRandom(seed: seed)
        var later: [Cancellable] = []
        for step in 0..<rounds {
            guard let row = root.rows.randomElement(using: &random) else { continue }
            let id = "\(row.id) task"
            let work = row.node.task {
                journal.taskStarted(id)
                await waitForCancellation()
                journal.taskEnded(id)
            }
            switch random.below(3) {
            case 0: work.cancel()
            case 1: later.append(work)
            default: break
            }
            row.node.forEach([step, step + 1].async) { _ in }
            row.node.cancellationContext(for: step % 3) {
                row.node.onCancel {}
                row.node.task {
                    journal.taskStarted(id)
                    await waitForCancellation()
                    journal.taskEnded(id)
                }
            }
            row.node.cancelAll(for: (step + 1) % 3)
            if later.count > 8 { later.removeFirst().cancel() }
        }
        for work in later { work.cancel() }
    }
}

/// One element, produced once `awaiting` threads have arrived, or after a bounded spin: consumed by
/// `append(contentsOf:)`, it holds a thread inside the mutation of a compound update.
private struct Rendezvous: Sequence {
    let arrived: AtomicCounter
    let awaiting: Int
    let value: Int

    func makeIterator() -> AnyIterator<Int> {
        var produced = false
        return AnyIterator {
            guard !produced else { return nil }
            produced = true
            arrived.increment()
            // Bounded by time, not by a count of yields: under load a yield can take a time slice.
            let clock = ContinuousClock()
            let deadline = clock.now + .milliseconds(50)
            while arrived.value < awaiting && clock.now < deadline {
                Thread.yield()
            }
            return value
        }
    }
}
