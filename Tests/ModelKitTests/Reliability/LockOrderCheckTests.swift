import ModelKit
import Testing

#if DEBUG
extension ReportedIssueTests {
    /// The debug-build lock-order check (`LockOrder`, Internal/Protected.swift): it reports each use of
    /// a second hierarchy under a hierarchy lock, and each lock taken against the order (a hierarchy,
    /// then the unbound lock, then the frozen copies' lock), and nothing else. The allowed pairings
    /// report nothing: DeadlockTests checks that for each of them, from two threads.
    @Suite struct LockOrderCheckTests {
        private static let fixes = """
            To fix, either:
              • Keep transactions, observe expressions and Equatable/visit/id code to models of one hierarchy.
              • Move work that spans two hierarchies outside the transaction, or into a task.
            """

        private static func message(holding held: String, taking taken: String) -> String {
            """
            A model of another hierarchy was used while this thread held a hierarchy for a transaction, \
            an observe expression or an Equatable/visit/id implementation (it holds \(held) and is taking \
            \(taken)); this can deadlock if another thread does the reverse.

            \(fixes)
            """
        }

        @Test func anchoringIntoAnotherHierarchyInsideATransactionIsReported() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let first = LockItem().withAnchor()
                let second = LockItem().withAnchor()
                let added = LockItem()
                first.node.transaction {
                    first.count = 1
                    second.kids = [added]
                }
                // The write and the activation it queues each take the second hierarchy's lock.
                let expected = Self.message(holding: "a hierarchy lock", taking: "a hierarchy lock")
                #expect(capture.messages.first == expected)
                #expect(Set(capture.messages).count == 1)
                let reported = capture.issues.count
                // Reported, not refused: the work is done, and both hierarchies stay usable.
                #expect(added.lifetime == .anchored)
                #expect(first.count == 1)
                second.kids[0].count = 2
                #expect(added.count == 2)
                #expect(capture.issues.count == reported)
            }
        }

        @Test func frozenCopyOfAnotherHierarchyInsideATransactionIsReported() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let first = LockItem().withAnchor()
                let second = LockItem(count: 3).withAnchor()
                let frozen = first.node.transaction { second.frozenCopy }
                #expect(frozen.count == 3)
                #expect(capture.issues.count == 1)
            }
        }

        @Test func observeExpressionWritingAnotherHierarchyIsReported() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let first = LockItem().withAnchor()
                let second = LockItem().withAnchor()
                let values = Collector(first.node.observe { () -> Int in
                    let count = first.count
                    second.mirror = count
                    return count
                })
                let afterStart = capture.issues.count
                first.count = 1
                #expect(afterStart == 1)
                #expect(capture.issues.count == 2)
                #expect(second.mirror == 1)
                #expect(await values.waitForCount(2))
                values.cancel()
            }
        }

        @Test func equatableImplementationWritingAnotherHierarchyIsReported() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let first = LockItem().withAnchor()
                let second = LockItem().withAnchor()
                first.compared = CallbackEquatable(number: 1) {}
                first.compared = CallbackEquatable(number: 1) { second.count += 1 }
                #expect(capture.issues.count == 1)
                #expect(second.count == 1)
            }
        }

        @Test func containerVisitWritingAnotherHierarchyIsReported() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let first = LockItem().withAnchor()
                let second = LockItem().withAnchor()
                first.slot = CallbackSlot(item: LockItem()) { second.count += 1 }
                #expect(capture.issues.count == 1)
                #expect(second.count == 1)
                #expect(first.slot?.item?.lifetime == .anchored)
            }
        }

        /// An initial model's compound update runs its mutation outside any lock, so the mutation may
        /// use anchored models.
        @Test func usingAnAnchoredModelInsideAnInitialModelsUpdateReportsNothing() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let anchored = LockItem().withAnchor()
                let initial = LockItem(numbers: [1, 2])
                initial.numbers.removeAll { number in
                    anchored.count += 1
                    return number == 1
                }
                #expect(capture.messages.isEmpty, "\(capture.messages.first ?? "")")
                #expect(anchored.count == 2)
                #expect(initial.numbers == [2])
            }
        }

        @Test func checkReportsNothingMoreAfterAViolation() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let first = LockItem().withAnchor()
                let second = LockItem().withAnchor()
                first.node.transaction { second.count = 1 }
                #expect(capture.issues.count == 1)
                // What this thread held was released: the allowed pairings report nothing.
                first.node.transaction {
                    first.kids = [LockItem(kids: [LockItem()])]
                    _ = first.frozenCopy.kids[0].kids[0].count
                }
                second.node.transaction { second.count = 2 }
                first.numbers.removeAll { $0 == first.frozenCopy.count }
                #expect(capture.issues.count == 1)
            }
        }

        // MARK: Reads and frozen copies

        /// A read takes the other hierarchy's lock too (it can wait for it), so a transaction that
        /// reads another hierarchy deadlocks against one of that hierarchy that reads this one.
        @Test func readingAnotherHierarchyInsideATransactionIsReported() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let first = LockItem().withAnchor()
                let second = LockItem(count: 2).withAnchor()
                first.node.transaction { first.count = second.count }
                #expect(first.count == 2)
                #expect(capture.issues.count == 1, "a read of another hierarchy was not checked")
            }
        }

        /// A frozen copy is an allowed API on any model, frozen copies included.
        @Test func frozenCopyOfAFrozenCopyReportsNothing() async {
            await IssueCapture.run(matching: lockOrderMarker) { capture in
                let root = LockItem(count: 4, kids: [LockItem(count: 5)]).withAnchor()
                let frozen = root.frozenCopy
                let again = frozen.frozenCopy
                #expect(again.lifetime == .frozen)
                #expect(again.count == 4 && again.kids.first?.count == 5)
                #expect(capture.messages.isEmpty, "\(capture.messages.first ?? "")")
            }
        }
    }
}
#endif
