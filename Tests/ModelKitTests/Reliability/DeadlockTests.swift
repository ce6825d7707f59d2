import ModelKit
import Observation
import Testing

extension ReportedIssueTests {
    /// Every lock pairing the design allows (Documentation/Internals.md, "Locks"), run from two threads
    /// at once in both orders, under a watchdog that fails the test instead of hanging the run. In
    /// debug builds each test also proves that the lock-order check reports nothing for it.
    @Suite struct DeadlockTests {
        private let rounds = 200

        /// Runs `first` and `second` on two threads at once, `rounds` times each, in both orders: one
        /// thread runs `first` then `second` in each round, the other `second` then `first`. Steps are
        /// numbered per thread (0..<rounds on the first, rounds..<2·rounds on the other), so an
        /// operation can reach what the other thread works on at the same moment:
        /// `(step + rounds) % (2 * rounds)`.
        private func expectNoDeadlock(
            _ first: @escaping @Sendable (_ step: Int) -> Void,
            _ second: @escaping @Sendable (_ step: Int) -> Void,
            alsoCapturing markers: [String] = [],
            sourceLocation: Testing.SourceLocation = #_sourceLocation
        ) async -> [String] {
            let rounds = self.rounds
            return await IssueCapture.run(matchingAny: [lockOrderMarker] + markers) { capture in
                let finished = await allFinishWithoutDeadlock([
                    { for step in 0..<rounds { first(step); second(step) } },
                    { for step in rounds..<2 * rounds { second(step); first(step) } },
                ])
                #expect(finished, "the two threads did not finish: a deadlock", sourceLocation: sourceLocation)
                let messages = capture.messages
                let lockOrder = messages.filter { $0.hasPrefix(lockOrderMarker) }
                #expect(lockOrder.isEmpty, "\(lockOrder.first ?? "")", sourceLocation: sourceLocation)
                return messages.filter { !$0.hasPrefix(lockOrderMarker) }
            }
        }

        private func other(_ step: Int) -> Int {
            (step + rounds) % (2 * rounds)
        }

        // MARK: Hierarchy lock → unbound lock

        @Test func anchoringWhileAnotherThreadWritesInitialModels() async {
            let root = LockItem().withAnchor()
            let pool = (0..<2 * rounds).map { _ in LockItem(kids: [LockItem()]) }
            let reports = await expectNoDeadlock(
                { step in
                    // Anchors under the hierarchy lock, then binds the storage under the unbound lock.
                    root.kids.append(pool[step].withActivation { $0.limit = 1 })
                },
                { step in
                    // Writes, under the unbound lock, a model the other thread anchors meanwhile.
                    let racing = pool[other(step)]
                    racing.count += 1
                    racing.numbers.append(step)
                    racing.kids[0].count = racing.count
                    let fresh = LockItem(numbers: [step])
                    fresh.numbers.append(fresh.numbers.count)
                    _ = fresh.frozenCopy
                }
            )
            #expect(reports.isEmpty)
            #expect(root.kids.count == 2 * rounds)
            let lost = pool.indices.filter {
                pool[$0].lifetime != .anchored || pool[$0].count != 1 || pool[$0].numbers.count != 1
                    || pool[$0].limit != 1 || pool[$0].kids[0].count != 1
            }
            #expect(lost.isEmpty, "writes lost or models not anchored at \(lost.prefix(5))")
        }

        @Test func initialModelsUpdateReadsAnAnchoredModelWhileAnotherThreadAnchors() async {
            let root = LockItem().withAnchor()
            let reports = await expectNoDeadlock(
                { _ in
                    // The mutation of an initial model's update reads an anchored model ...
                    let initial = LockItem(numbers: [0, 1, 2])
                    initial.numbers.removeAll { $0 == root.count }
                    initial.count += root.kids.count
                },
                // ... while anchoring in that hierarchy takes its lock, then the unbound lock.
                { step in root.kids = [LockItem(count: step)] }
            )
            #expect(reports.isEmpty)
            #expect(root.kids.count == 1)
        }

        @Test func modelDependencyFirstUsedFromTwoThreadsAtOnceIsOneModel() async {
            let roots = (0..<rounds).map { _ in LockItem().withAnchor() }
            let activationsBefore = LockSettings.activations.value
            let use: @Sendable (Int) -> Void = { step in
                roots[step % rounds].node[LockSettings.self].count += 1
            }
            let read: @Sendable (Int) -> Void = { step in
                _ = roots[step % rounds].node[LockSettings.self].count
            }
            let reports = await expectNoDeadlock(use, read)
            #expect(reports.isEmpty)
            #expect(roots.allSatisfy { $0.node[LockSettings.self].count == 2 })
            #expect(LockSettings.activations.value - activationsBefore == rounds)
        }

        // MARK: Frozen copies

        @Test func frozenCopiesAreReadWhileAnotherThreadAnchorsAndWrites() async {
            let root = LockItem().withAnchor()
            let torn = AtomicCounter()
            let reports = await expectNoDeadlock(
                { _ in
                    let frozen = root.frozenCopy
                    let liveKid = frozen.kids.contains { $0.lifetime != .frozen }
                    if frozen.count != frozen.mirror || liveKid { torn.increment() }
                    _ = frozen.kids.map(\.count)
                    // A frozen copy read under the hierarchy lock: in a transaction, in a mutation.
                    root.node.transaction { root.limit = frozen.count }
                    root.numbers.removeAll { $0 == frozen.count }
                    _ = LockItem(count: frozen.count).frozenCopy
                },
                { step in
                    root.node.transaction {
                        root.count += 1
                        root.mirror += 1
                    }
                    root.kids.append(LockItem(count: step))
                    root.node.transaction {
                        if root.kids.count > 6 { root.kids.removeFirst() }
                    }
                    root.numbers.append(step)
                }
            )
            #expect(reports.isEmpty)
            #expect(torn.value == 0)
            #expect(root.count == 2 * rounds)
        }

        @Test func frozenCopyOfAFrozenCopyWhileAnotherThreadReadsItInAnInitialModelsUpdate() async {
            let frozen = LockItem(count: 1).withAnchor().frozenCopy
            let reports = await expectNoDeadlock(
                // Copies a frozen copy (the frozen copies' lock) ...
                { _ in _ = frozen.frozenCopy.count },
                // ... while an initial model's update (the unbound lock) reads it.
                { _ in
                    let initial = LockItem(numbers: [0, 1, 2])
                    initial.numbers.removeAll { $0 == frozen.count }
                }
            )
            #expect(reports.isEmpty)
        }

        // MARK: One hierarchy, re-entered on the same thread

        @Test func compoundUpdatesWhoseMutationReadsTheSameModel() async {
            let root = LockItem(kids: [LockItem()]).withAnchor()
            let kid = root.kids[0]
            let update: @Sendable (LockItem, LockItem) -> Void = { model, other in
                model.numbers.append(model.numbers.count + other.count)
                model.numbers.removeAll { $0 < model.limit || $0 < other.limit }
                // Both threads run both updates, so this read-modify-write can lose an update and
                // go negative: nothing below may depend on its sign.
                model.count += other.count - model.count + 1
                let numbers = model.numbers
                model.limit = numbers.count > 8 ? numbers[numbers.count - 8] : 0
                // Reads both models for every child, removes none whatever the counts are.
                model.kids.removeAll { kid in
                    let (own, mine, theirs) = (kid.count, model.count, other.count)
                    return own == mine && own == theirs && mine != theirs
                }
            }
            let reports = await expectNoDeadlock({ _ in update(root, kid) }, { _ in update(kid, root) })
            #expect(reports.isEmpty)
            #expect(kid.lifetime == .anchored)
            #expect(root.kids.count == 1)
        }

        @Test func transactionsOverSeveralModelsInOppositeOrders() async {
            let root = LockItem(kids: [LockItem(), LockItem()]).withAnchor()
            let (left, right) = (root.kids[0], root.kids[1])
            let halfApplied = AtomicCounter()
            let reports = await expectNoDeadlock(
                { step in
                    root.node.transaction {
                        if left.count + right.count != 0 { halfApplied.increment() }
                        left.count += 1
                        right.count -= 1
                        left.kids.append(LockItem(count: step))
                        root.numbers = [left.kids.count, right.kids.count]
                    }
                },
                { step in
                    right.node.transaction {
                        if left.count + right.count != 0 { halfApplied.increment() }
                        right.count += 2
                        left.count -= 2
                        if !left.kids.isEmpty { right.kids.append(left.kids.removeLast()) }
                        root.numbers = [left.kids.count, right.kids.count]
                    }
                }
            )
            #expect(reports.isEmpty)
            #expect(halfApplied.value == 0)
            #expect(left.count + right.count == 0)
            #expect(left.kids.count + right.kids.count == 2 * rounds)
            #expect((left.kids + right.kids).allSatisfy { $0.lifetime == .anchored })
        }

        @Test func observersWhoseExpressionsAndCallbacksWriteBack() async {
            let root = LockItem(kids: [LockItem()]).withAnchor()
            let kid = root.kids[0]
            // The expression writes back while it is evaluated under the lock for the commit.
            let mirrored = Collector(root.node.observe { () -> Int in
                let count = root.count
                root.mirror = count
                return count
            })
            root.node.onChange(of: \.count) { _, new in kid.mirror = new }
            kid.node.onChange(of: \.count) { _, new in root.numbers.append(new) }
            root.node.forEach(root.change(of: \.count)) { value in kid.limit = value }
            let observed = AtomicCounter()
            let reports = await expectNoDeadlock(
                { _ in root.count += 1 },
                { _ in
                    withObservationTracking {
                        _ = kid.count
                    } onChange: {
                        observed.increment()
                        root.limit += 1
                    }
                    root.node.transaction {
                        kid.count += 1
                        root.count += 1
                    }
                }
            )
            #expect(reports.isEmpty)
            #expect(root.count == 4 * rounds)
            #expect(root.mirror == root.count)
            #expect(await eventually { kid.mirror == 4 * rounds && kid.limit == 4 * rounds })
            #expect(await eventually { root.numbers.count == 2 * rounds })
            #expect(root.numbers == Array(1...2 * rounds))
            // Each tracking fires once per thread that saw it armed: Observation calls `onChange` from
            // every thread whose write found the tracking before it was cancelled.
            #expect(observed.value >= 2 * rounds)
            #expect(root.limit == observed.value)
            #expect(await eventually { mirrored.elements.last == 4 * rounds })
            mirrored.cancel()
        }

        @Test func replacedValuesWhoseDeinitUsesTheModels() async {
            let root = LockItem(kids: [LockItem(), LockItem()]).withAnchor()
            let (left, right) = (root.kids[0], root.kids[1])
            let freed = AtomicCounter()
            let callback: @Sendable (LockItem, LockItem) -> DeinitCallback = { reading, writing in
                DeinitCallback {
                    _ = reading.count + writing.numbers.count
                    writing.mirror += 1
                    freed.increment()
                }
            }
            let replace: @Sendable (LockItem, LockItem) -> Void = { model, other in
                // Released after the write's lock: the assignment's old value.
                model.callbacks = [callback(model, other)]
                // Released inside the mutation, with the lock held.
                model.callbacks.removeAll()
                model.callbacks.append(callback(other, model))
            }
            let reports = await expectNoDeadlock({ _ in replace(left, right) }, { _ in replace(right, left) })
            #expect(reports.isEmpty)
            left.callbacks = []
            right.callbacks = []
            #expect(freed.value == 8 * rounds)
            #expect(left.mirror + right.mirror == 8 * rounds)
        }

        @Test func eventHandlersWriteTheSender() async {
            let root = LockItem(kids: [LockItem(), LockItem()]).withAnchor()
            let (left, right) = (root.kids[0], root.kids[1])
            root.node.forEach(root.node.event(fromType: LockItem.self)) { _, sender in
                sender.mirror += 1
            }
            for kid in [left, right] {
                kid.node.forEach(kid.node.event(ofType: Int.self)) { _ in
                    kid.count += 1
                    root.limit += 1
                }
            }
            let reports = await expectNoDeadlock(
                { step in
                    left.node.send(.poke(step))
                    root.node.send(step, to: .children)
                },
                { step in
                    right.node.send(.poke(step))
                    root.node.transaction { right.node.send(step, to: .self) }
                }
            )
            #expect(reports.isEmpty)
            #expect(await eventually { left.mirror == 2 * rounds && right.mirror == 2 * rounds })
            #expect(await eventually { left.count == 2 * rounds && right.count == 4 * rounds })
            #expect(await eventually { root.limit == 6 * rounds })
        }

        @Test func equatableVisitAndIDCodeReadTheModelWhileAnotherThreadWrites() async {
            let root = LockItem(kids: [LockItem()]).withAnchor()
            let kid = root.kids[0]
            let reports = await expectNoDeadlock(
                { step in
                    root.compared = CallbackEquatable(number: step % 3) { _ = root.count + kid.count }
                    root.slot = CallbackSlot(item: step.isMultiple(of: 2) ? kid : nil) { _ = kid.numbers.count }
                    root.keyed = [KeyedLockItem(key: step % 4) { _ = root.limit }]
                    root.node.transaction { root.keyed[0].count += 1 }
                },
                { step in
                    kid.count += 1
                    root.node.transaction {
                        root.count += 1
                        kid.numbers = [step]
                    }
                }
            )
            #expect(reports.isEmpty)
            #expect(kid.lifetime == .anchored)
            #expect(root.keyed.count == 1)
            #expect(root.count == 2 * rounds && kid.count == 2 * rounds)
        }

        // MARK: Teardown and several hierarchies

        @Test func releasingAnAnchorWhileAnotherThreadUsesTheHierarchy() async {
            let originals = (0..<2 * rounds).map { _ in LockItem(kids: [LockItem()]) }
            let anchors = Protected<[LockItem?]>(originals.map { $0.withAnchor() })
            let reports = await expectNoDeadlock(
                { step in
                    var released = anchors.withLock { anchors -> LockItem? in
                        defer { anchors[step] = nil }
                        return anchors[step]
                    }
                    released = nil
                    _ = released
                },
                { step in
                    let model = originals[other(step)]
                    // Checked and written in one transaction: the teardown waits for it.
                    model.node.transaction {
                        if model.lifetime == .anchored { model.count += 1 }
                    }
                    _ = model.frozenCopy
                    _ = model.kids.first?.count
                },
                alsoCapturing: ["LockItem"]
            )
            #expect(reports.isEmpty, "\(reports.first ?? "")")
            #expect(originals.allSatisfy { $0.lifetime == .destructed })
            #expect(originals.allSatisfy { $0.kids.allSatisfy { $0.lifetime == .destructed } })
        }

        @Test func twoHierarchiesUsedOneAfterTheOtherInBothOrders() async {
            let first = LockItem().withAnchor()
            let second = LockItem().withAnchor()
            let reports = await expectNoDeadlock(
                { _ in
                    first.node.transaction { first.count += 1 }
                    second.numbers.append(first.count)
                },
                { _ in
                    second.node.transaction { second.count += 1 }
                    first.numbers.append(second.count)
                }
            )
            #expect(reports.isEmpty)
            #expect(first.count == 2 * rounds && second.count == 2 * rounds)
            #expect(first.numbers.count == 2 * rounds && second.numbers.count == 2 * rounds)
        }
    }
}
