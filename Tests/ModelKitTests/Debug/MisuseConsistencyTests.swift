import ModelKit
import Testing

extension ReportedIssueTests {
    /// After each reported misuse the hierarchy stays consistent: nothing is half done, nothing is
    /// activated or torn down by the misuse, and later writes, events and snapshots behave normally.
    @Suite struct MisuseConsistencyTests {
        @Test func initialModelUsedThroughItsNodeWorksOnceAnchored() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1)
                let early = Locked(false)
                item.node.task { early.value = true }
                item.node.onCancel { early.value = true }
                #expect(capture.issues.count == 2)
                let list = MisuseList().withAnchor()
                list.single = item
                let ran = Locked(false)
                item.node.task { ran.value = true }
                #expect(await eventually { ran.value })
                list.single = nil
                #expect(!early.value)
                #expect(capture.issues.count == 2)
            }
        }

        @Test func refusedWriteToAFrozenCopyLeavesItAndTheLiveModelAsTheyWere() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1).withAnchor()
                item.count = 1
                let frozen = item.frozenCopy
                let counts = Collector(item.change(of: \.count, initial: false))
                frozen.count = 5
                item.count = 2
                #expect(await counts.waitForCount(1))
                #expect(counts.elements == [2])
                #expect(frozen.count == 1 && frozen.lifetime == .frozen)
                #expect(item.frozenCopy.count == 2)
                #expect(capture.issues.count == 1)
                counts.cancel()
            }
        }

        @Test func refusedWriteToADestructedModelChangesNothingInItsOldHierarchy() async {
            await IssueCapture.run(matching: "MisuseLoggedItem") { capture in
                let log = Log()
                let root = MisuseLoggedItem(id: 0, log: log).withAnchor()
                let removed = MisuseLoggedItem(id: 1, log: log)
                let kept = MisuseLoggedItem(id: 2, log: log)
                root.kids = [removed, kept]
                removed.count = 3
                root.kids.removeFirst()
                let changes = Locked<[String]>([])
                let printing = root._printChanges { line in changes.withLock { $0.append(line) } }
                removed.count = 4
                removed.kids = [MisuseLoggedItem(id: 3, log: log)]
                #expect(capture.issues.count == 2)
                #expect(removed.count == 3 && removed.lifetime == .destructed)
                #expect(changes.value.isEmpty)
                #expect(log.count(of: "activate 3") == 0)
                kept.count = 1
                #expect(root.kids.map(\.id) == [2] && root.kids[0].count == 1)
                #expect(log.all == ["activate 0", "activate 1", "activate 2", "cancel 1"])
                printing.cancel()
            }
        }

        @Test func duplicateIDLeavesTheFirstChildLiveAndTheSecondFreeToUseElsewhere() async {
            await IssueCapture.run(matching: "MisuseLoggedItem") { capture in
                let log = Log()
                let root = MisuseLoggedItem(id: 0, log: log).withAnchor()
                let first = MisuseLoggedItem(id: 7, log: log)
                let second = MisuseLoggedItem(id: 7, log: log)
                root.kids = [first, second]
                #expect(capture.issues.count == 1)
                #expect(first.lifetime == .anchored && second.lifetime == .initial)
                first.count = 1
                second.count = 2
                #expect(first.count == 1 && second.count == 2)
                root.kids = [first]
                let other = MisuseLoggedItem(id: 100, log: log).withAnchor()
                other.kids = [second]
                #expect(second.lifetime == .anchored && second.count == 2)
                #expect(log.count(of: "activate 7") == 2)
                #expect(log.count(of: "cancel 7") == 0)
                #expect(capture.issues.count == 1)
            }
        }

        @Test func reInsertedDestructedModelIsNotActivatedAgainAndItsSiblingsAreUntouched() async {
            await IssueCapture.run(matching: "MisuseLoggedItem") { capture in
                let log = Log()
                let root = MisuseLoggedItem(id: 0, log: log).withAnchor()
                let removed = MisuseLoggedItem(id: 1, log: log)
                let sibling = MisuseLoggedItem(id: 2, log: log)
                root.kids = [removed, sibling]
                root.kids = [sibling]
                root.kids = [removed, sibling, MisuseLoggedItem(id: 3, log: log)]
                #expect(capture.issues.count == 1)
                #expect(removed.lifetime == .destructed)
                #expect(sibling.lifetime == .anchored && root.kids[2].lifetime == .anchored)
                #expect(log.all == ["activate 0", "activate 1", "activate 2", "cancel 1", "activate 3"])
                root.kids = [sibling]
                #expect(capture.issues.count == 1)
                #expect(log.count(of: "cancel 3") == 1 && log.count(of: "cancel 2") == 0)
            }
        }

        @Test func anchoringTwiceKeepsOneHierarchyAndOneActivation() async {
            await IssueCapture.run(matching: "MisuseLoggedItem") { capture in
                let log = Log()
                var first: MisuseLoggedItem? = MisuseLoggedItem(id: 0, log: log).withAnchor()
                let second = first?.withAnchor()
                #expect(capture.issues.count == 1)
                #expect(log.all == ["activate 0"])
                second?.count = 5
                #expect(first?.count == 5)
                first = nil
                // `second` is a copy of the anchored value: it keeps the hierarchy alive.
                #expect(second?.lifetime == .anchored)
                #expect(log.count(of: "cancel 0") == 0)
            }
        }

        @Test func modelAddedInsideItselfIsNotAnchoredAgainAndTheTreeStillWorks() async {
            await IssueCapture.run(matching: "MisuseLoggedItem") { capture in
                let log = Log()
                let root = MisuseLoggedItem(id: 0, log: log).withAnchor()
                let child = MisuseLoggedItem(id: 1, log: log)
                root.kids = [child]
                child.kids = [root]
                #expect(capture.issues.count == 1)
                #expect(log.all == ["activate 0", "activate 1"])
                child.count = 1
                root.count = 2
                #expect(child.count == 1 && root.count == 2)
                root.kids = []
                #expect(child.lifetime == .destructed && root.lifetime == .anchored)
                #expect(log.all == ["activate 0", "activate 1", "cancel 1"])
                #expect(root.frozenCopy.kids.isEmpty)
            }
        }

        /// The refused value stays in the child's cell (a container cannot be edited generically),
        /// so the values form a cycle: the frozen copy stops at the model met inside itself.
        @Test
        func modelAddedInsideItselfLeavesTheHierarchySnapshotable() async {
            await IssueCapture.run(matching: "MisuseLoggedItem") { capture in
                let log = Log()
                let root = MisuseLoggedItem(id: 0, log: log).withAnchor()
                let child = MisuseLoggedItem(id: 1, log: log)
                root.kids = [child]
                child.kids = [root]
                #expect(capture.issues.count == 1)
                let frozen = root.frozenCopy
                #expect(frozen.kids.map(\.id) == [1])
                #expect(frozen.lifetime == .frozen && frozen.kids[0].lifetime == .frozen)
                #expect(frozen.kids[0].kids.map(\.id) == [0])
            }
        }

        @Test func initialModelsHoldingEachOtherCanBeSnapshotAndAnchoredOnce() async {
            await IssueCapture.run(matching: "MisuseLoggedItem") { capture in
                let log = Log()
                let first = MisuseLoggedItem(id: 0, log: log)
                let second = MisuseLoggedItem(id: 1, log: log)
                first.kids = [second]
                second.kids = [first]
                #expect(first.frozenCopy.kids.map(\.id) == [1])

                let anchored = first.withAnchor()
                #expect(capture.issues.count == 1)
                #expect(log.all == ["activate 0", "activate 1"])
                #expect(anchored.frozenCopy.kids.map(\.id) == [1])
            }
        }

        @Test func eventSentFromARemovedModelReachesNobodyAndLaterEventsStillArrive() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let list = MisuseList().withAnchor()
                let received = Collector(list.node.event(ofType: String.self))
                let removed = MisuseItem(id: 1)
                list.single = removed
                list.single = nil
                removed.node.send("late")
                let current = MisuseItem(id: 2)
                list.single = current
                current.node.send("on time")
                list.node.send("end", to: .self)
                #expect(await received.waitForCount(2))
                #expect(received.elements == ["on time", "end"])
                #expect(capture.issues.count == 1)
                received.cancel()
            }
        }

        #if DEBUG
        @Test func modelWithARegistrationMistakeStillWorks() async {
            await IssueCapture.run(matching: "MisuseForgetfulItem") { capture in
                let item = MisuseForgetfulItem().withAnchor()
                #expect(capture.issues.count == 1)
                let counts = Collector(item.change(of: \.count, initial: false))
                item.count = 1
                item.title = "kept"
                #expect(item.title == "kept" && item.frozenCopy.count == 1)
                #expect(await counts.waitForCount(1))
                #expect(counts.elements == [1])
                counts.cancel()
            }
        }
        #endif
    }
}
