import Foundation
import ModelKit
import Testing

private struct LedgerModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var credit = 0
    @Tracked var debit = 0
    @Tracked var rows: [TreeModel] = []
    @Tracked var shelf: [TreeModel] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("credit", \.$credit)
        r.track("debit", \.$debit)
        r.track("rows", \.$rows)
        r.track("shelf", \.$shelf)
    }
}

/// Hammers one hierarchy from several tasks and checks invariants. Sizes are iteration counts,
/// chosen so that each test takes well under a second in a debug build.
@Suite struct ConcurrencyStressTests {
    private let tasks = 4
    private let iterations = 300

    @Test func concurrentCompoundWritesAreNeverLost() async {
        let ledger = LedgerModel().withAnchor()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<iterations {
                        ledger.count += 1
                        _ = ledger.count
                    }
                }
            }
        }
        #expect(ledger.count == tasks * iterations)
    }

    @Test func transactionsAreAtomicForOtherThreads() async {
        let ledger = LedgerModel().withAnchor()
        let violations = AtomicCounter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks / 2 {
                group.addTask {
                    for _ in 0..<iterations {
                        ledger.node.transaction {
                            ledger.credit += 1
                            ledger.debit -= 1
                        }
                    }
                }
            }
            for reader in 0..<tasks / 2 {
                group.addTask {
                    for _ in 0..<iterations {
                        let (credit, debit) = reader.isMultiple(of: 2)
                            ? ledger.node.transaction { (ledger.credit, ledger.debit) }
                            : { let frozen = ledger.frozenCopy; return (frozen.credit, frozen.debit) }()
                        if credit + debit != 0 { violations.increment() }
                    }
                }
            }
        }
        #expect(violations.value == 0)
        #expect(ledger.credit == tasks / 2 * iterations)
        #expect(ledger.credit + ledger.debit == 0)
    }

    @Test func observersOfATransactionSeeOnlyCommittedStates() async {
        let ledger = LedgerModel().withAnchor()
        let sums = Collector(ledger.node.observe { ledger.credit + ledger.debit })
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<iterations / 3 {
                        ledger.node.transaction {
                            ledger.credit += 2
                            ledger.debit -= 2
                        }
                    }
                }
            }
        }
        ledger.credit += 1
        #expect(await eventually { sums.elements.last == 1 })
        #expect(sums.elements == [0, 1])
        sums.cancel()
    }

    @Test func concurrentlyAddedAndRemovedChildrenAreActivatedAndTornDownOnce() async {
        let log = Log()
        let ledger = LedgerModel().withAnchor()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in 0..<iterations / 3 {
                        let row = TreeModel("\(task)-\(index)", log: log)
                        ledger.rows.append(row)
                        row.value += 1
                        _ = ledger.rows.map(\.value)
                        ledger.rows.removeAll { $0.id == row.id }
                        if row.lifetime != .destructed { log.add("not destructed \(row.id)") }
                    }
                }
            }
        }
        let total = tasks * (iterations / 3)
        #expect(ledger.rows.isEmpty)
        #expect(log.entries(withPrefix: "activate").count == total)
        #expect(log.entries(withPrefix: "cancel").count == total)
        #expect(log.entries(withPrefix: "not destructed").isEmpty)
        #expect(Set(log.entries(withPrefix: "activate")).count == total)
    }

    @Test func concurrentSharingLeavesConsistentLifetimes() async {
        let log = Log()
        let ledger = LedgerModel().withAnchor()
        let shared = TreeModel("shared", log: log)
        ledger.rows = [shared]
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<iterations / 3 {
                        ledger.node.transaction {
                            if !ledger.shelf.contains(where: { $0.id == "shared" }) { ledger.shelf.append(shared) }
                        }
                        ledger.shelf.removeAll { $0.id == "shared" }
                        shared.value += 1
                    }
                }
            }
        }
        #expect(shared.lifetime == .anchored)
        #expect(log.count(of: "activate shared") == 1)
        #expect(log.count(of: "cancel shared") == 0)
        #expect(shared.value == tasks * (iterations / 3))
        ledger.rows = []
        #expect(shared.lifetime == .destructed)
        #expect(log.count(of: "cancel shared") == 1)
    }

    @Test func eventsFromConcurrentSendersArriveOnceAndInEachSendersOrder() async {
        let log = Log()
        let root = TreeModel("root", log: log).withAnchor()
        root.children = (0..<tasks).map { TreeModel("sender \($0)", log: log) }
        let received = Collector(root.node.event(ofType: Message.self))
        let perSender = iterations
        await withTaskGroup(of: Void.self) { group in
            for sender in root.children {
                group.addTask {
                    for sequence in 0..<perSender {
                        sender.node.send(Message(sender: sender.id, sequence: sequence))
                    }
                }
            }
        }
        #expect(await received.waitForCount(tasks * perSender))
        let bySender = Dictionary(grouping: received.elements, by: \.sender)
        #expect(bySender.count == tasks)
        for (sender, messages) in bySender {
            #expect(messages.map(\.sequence) == Array(0..<perSender), "\(sender)")
        }
        received.cancel()
    }

    @Test func streamCreatedDuringWritesStartsWithTheCurrentValueAndStaysInOrder() async {
        let ledger = LedgerModel().withAnchor()
        let stop = Locked(false)
        let writerEnded = Locked(false)
        // A thread of its own, not a task: a loop that never suspends would hold one of the
        // cooperative pool's two threads for the whole test and stall every test beside it.
        Thread {
            // Bounded; the readers below stop it long before (and it stops at once then: a `where`
            // clause would go on through the remaining iterations).
            var writes = 0
            while writes < 50_000_000 && !stop.value {
                ledger.count += 1
                writes += 1
            }
            writerEnded.value = true
        }.start()
        var outOfOrder: [(Int, Int)] = []
        for _ in 0..<40 {
            var iterator = ledger.change(of: \.count).makeAsyncIterator()
            guard let first = await iterator.next(), let second = await iterator.next() else { break }
            if second <= first { outOfOrder.append((first, second)) }
        }
        stop.value = true
        #expect(await eventually { writerEnded.value })
        #expect(outOfOrder.isEmpty, "first two values out of order: \(outOfOrder.prefix(5))")
    }

    @Test func mixedWorkloadKeepsEveryInvariant() async {
        let log = Log()
        let ledger = LedgerModel().withAnchor()
        let counts = Collector(ledger.change(of: \.count, initial: false))
        let events = Collector(ledger.node.event(ofType: Int.self))
        let violations = AtomicCounter()
        let rounds = iterations / 3
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<rounds { ledger.count += 1 }
            }
            group.addTask {
                for _ in 0..<rounds {
                    ledger.node.transaction {
                        ledger.credit += 1
                        ledger.debit -= 1
                    }
                }
            }
            group.addTask {
                for index in 0..<rounds {
                    let row = TreeModel("row \(index)", log: log)
                    ledger.rows.append(row)
                    row.node.send(index)
                    ledger.rows.removeAll { $0.id == row.id }
                }
            }
            group.addTask {
                for _ in 0..<rounds {
                    let frozen = ledger.frozenCopy
                    if frozen.credit + frozen.debit != 0 { violations.increment() }
                    if frozen.rows.contains(where: { $0.lifetime != .frozen }) { violations.increment() }
                    _ = ledger.rows.count
                }
            }
        }
        #expect(violations.value == 0)
        #expect(ledger.count == rounds)
        #expect(ledger.rows.isEmpty)
        #expect(await counts.waitForCount(rounds))
        #expect(counts.elements == Array(1...rounds))
        #expect(await events.waitForCount(rounds))
        #expect(events.elements == Array(0..<rounds))
        #expect(log.entries(withPrefix: "cancel").count == rounds)
        counts.cancel()
        events.cancel()
    }
}

/// Counts its activations and the `onCancel` runs its `onActivate` registers, after a little work.
private struct SlowlyActivating: Model {
    var node = ModelNode<Self>()
    let id: Int
    let counts: Locked<(activations: Int, cancels: Int)>
    @Tracked var value = 0

    func onActivate() {
        counts.withLock { $0.activations += 1 }
        for _ in 0..<20 {
            _ = value
            Thread.yield()
        }
        node.onCancel { [counts] in counts.withLock { $0.cancels += 1 } }
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track("value", \.$value) }
}

private struct SlowlyActivatingList: Model {
    var node = ModelNode<Self>()
    @Tracked var items: [SlowlyActivating] = []

    static func register(_ r: inout ModelRegistrar<Self>) { r.track("items", \.$items) }
}

@Suite struct ActivationRaceTests {
    @Test func everyActivationMeetsItsOnCancelWhenAnotherThreadRemovesTheModelMeanwhile() async {
        let counts = Locked<(activations: Int, cancels: Int)>((0, 0))
        let list = SlowlyActivatingList().withAnchor()
        let finished = await allFinishWithoutDeadlock([
            { for id in 0..<400 { list.items.append(SlowlyActivating(id: id, counts: counts)) } },
            { for _ in 0..<400 { list.items.removeAll() } },
        ])
        #expect(finished)
        list.items.removeAll()
        let (activations, cancels) = counts.value
        // A model removed before its activation is never activated: only the pairs must match.
        #expect(activations > 0 && cancels == activations, "\(activations) activations, \(cancels) onCancel runs")
    }
}

private struct Message: Sendable, Equatable {
    let sender: String
    let sequence: Int
}
