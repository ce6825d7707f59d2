import ModelKit
import Testing

private struct MisuseItem: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var count = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}

private struct MisuseList: Model {
    var node = ModelNode<Self>()
    @Tracked var items: [MisuseItem] = []
    @Tracked var single: MisuseItem? = nil
    @Tracked var nested: MisuseList? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("items", \.$items)
        r.track("single", \.$single)
        r.track("nested", \.$nested)
    }
}

private struct MisuseFailure: Error, CustomStringConvertible {
    var description: String { "MisuseFailure(boom)" }
}

private enum MisuseKey: DependencyKey {
    static let liveValue = 0
}

extension ReportedIssueTests {
    @Suite struct MisuseTests {
        private static let notAnchoredFixes = """
            To fix, either:
              • Anchor the root model first (`withAnchor()`, or `andTester()` in tests), and call this from \
            the model's methods or `onActivate`.
              • To configure a model before it is anchored, use `withDependencies` or `withActivation`.
            """

        @Test func nodeAPIOnAnInitialModelIsReportedAndDoesNothing() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1)
                let ran = Locked(false)
                let line = #line + 1
                item.node.task { ran.value = true }
                #expect(capture.messages == ["""
                    MisuseItem.node.task was used on a MisuseItem that is not anchored; nothing happened.

                    \(Self.notAnchoredFixes)
                    """])
                #expect(capture.issues.first?.location?.fileID == "ModelKitTests/MisuseTests.swift")
                #expect(capture.issues.first?.location?.line == UInt(line))
                #expect(!ran.value)
                #expect(item.lifetime == .initial)
            }
        }

        @Test func everyNodeAPIOnAnInitialModelIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1)
                item.node.forEach([1].async) { _ in }
                item.node.send(1)
                _ = item.node.event(ofType: Int.self)
                _ = item.change(of: \.count)
                _ = item.node.observe { item.count }
                item.node.onChange(of: \.count) { _, _ in }
                item.node.cancelAll(for: 1)
                item.node.onCancel {}
                item.node.transaction { item.count = 1 }
                item._printChanges { _ in }
                #expect(item.node[MisuseKey.self] == 0)
                _ = item.node.uuid()
                let apis = capture.issues.map { $0.summary.components(separatedBy: " was used").first ?? "" }
                #expect(apis == [
                    "MisuseItem.node.forEach", "MisuseItem.node.send", "MisuseItem.node.event(ofType:)",
                    "MisuseItem.node.change(of:)", "MisuseItem.node.observe", "MisuseItem.node.onChange(of:)",
                    "MisuseItem.node.cancelAll(for:)", "MisuseItem.node.onCancel", "MisuseItem.node.transaction",
                    "MisuseItem.node._printChanges", "MisuseItem.node.[MisuseKey.self]",
                    "MisuseItem.node",
                ])
                #expect(item.count == 1)
            }
        }

        @Test func dependencyReadOnAnInitialModelIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1)
                let line = #line + 1
                _ = item.node[MisuseKey.self]
                _ = item.node.uuid()
                #expect(capture.messages.last == """
                    MisuseItem.node was used to read a UUIDGenerator dependency on a MisuseItem that is not \
                    anchored; its default value was returned.

                    To fix: Anchor the root model first (`withAnchor()`, or `andTester()` in tests), and read \
                    dependencies from the model's methods or `onActivate`.
                    """)
                // A subscript captures its call site; a dynamic member cannot.
                #expect(capture.issues.first?.location?.fileID == "ModelKitTests/MisuseTests.swift")
                #expect(capture.issues.first?.location?.line == UInt(line))
                #expect(capture.issues.last?.location == nil)
            }
        }

        @Test func writeToAFrozenCopyIsReportedAndIgnored() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1).withAnchor()
                item.count = 1
                let frozen = item.frozenCopy
                frozen.count = 5
                frozen.count += 1
                #expect(frozen.count == 1)
                #expect(item.count == 1)
                #expect(capture.messages == Array(repeating: """
                    Wrote to MisuseItem.count of a frozen copy of MisuseItem; the write was ignored.

                    To fix: Write to the live model instead of its `frozenCopy`.
                    """, count: 2))
            }
        }

        @Test func writeToADestructedModelIsReportedAndIgnored() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let list = MisuseList().withAnchor()
                let item = MisuseItem(id: 1)
                list.items = [item]
                item.count = 3
                list.items = []
                item.count = 4
                item.count += 1
                #expect(item.count == 3)
                #expect(capture.messages == Array(repeating: """
                    Wrote to MisuseItem.count of a destructed MisuseItem; the write was ignored.

                    To fix, either:
                      • Keep a reference to the model's current place instead of a removed copy.
                      • Check `model.lifetime == .anchored` before writing from long-lived callbacks.
                    """, count: 2))
            }
        }

        @Test func writeThroughAnEarlierInstanceReachesTheLiveModelWithoutAReport() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let list = MisuseList().withAnchor()
                let old = MisuseItem(id: 1)
                list.single = old
                old.count = 2
                list.single = MisuseItem(id: 1)
                #expect(old.count == 0, "the new instance's value was applied")
                old.count = 9
                #expect(list.single?.count == 9)
                #expect(capture.messages.isEmpty)
            }
        }

        @Test func writeThroughAnEarlierInstanceOfARemovedModelIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let list = MisuseList().withAnchor()
                let old = MisuseItem(id: 1)
                list.single = old
                list.single = MisuseItem(id: 1)
                list.single = nil
                old.count = 9
                #expect(old.lifetime == .destructed)
                #expect(capture.messages.first?.hasPrefix("Wrote to MisuseItem.count of a destructed MisuseItem") == true)
            }
        }

        @Test func duplicateIDsInACollectionAreReported() async {
            await IssueCapture.run(matching: "MisuseList") { capture in
                let list = MisuseList().withAnchor()
                let first = MisuseItem(id: 7)
                let second = MisuseItem(id: 7)
                list.items = [first, second]
                #expect(first.lifetime == .anchored)
                #expect(second.lifetime == .initial)
                #expect(capture.messages == ["""
                    MisuseList.items holds two different models with the id 7; the second was not anchored.

                    To fix, either:
                      • Give each model in a collection its own id.
                      • To replace a model, remove the old instance in the same write that adds the new one.
                    """])
            }
        }

        @Test func reInsertingADestructedModelIsReported() async {
            await IssueCapture.run(matching: "MisuseList") { capture in
                let list = MisuseList().withAnchor()
                let item = MisuseItem(id: 1)
                list.items = [item]
                list.items = []
                list.items = [item]
                #expect(item.lifetime == .destructed)
                #expect(capture.messages == ["""
                    A destructed MisuseItem was added to MisuseList.items; destructed models cannot be anchored again.

                    To fix, either:
                      • Create a new MisuseItem instead of re-inserting a removed one.
                      • To move a model, add it to its new place before removing it from the old one, or do both \
                    in one `node.transaction`.
                    """])
            }
        }

        @Test func anchoringTwiceIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1).withAnchor()
                let again = item.withAnchor()
                #expect(again.lifetime == .anchored)
                let list = MisuseList().withAnchor()
                list.single = MisuseItem(id: 2)
                _ = list.single?.withAnchor()
                #expect(capture.messages == Array(repeating: """
                    MisuseItem is already anchored; withAnchor() returned it unchanged.

                    To fix, either:
                      • Anchor a model once, at the root of its hierarchy.
                      • To add a model to an existing hierarchy, assign it to a tracked property of a model in it.
                    """, count: 2))
            }
        }

        @Test func withDependenciesOnAnAnchoredModelIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1).withAnchor()
                _ = item.withDependencies { $0[MisuseKey.self] = 1 }
                #expect(item.node[MisuseKey.self] == 0)
                #expect(capture.messages == ["""
                    withDependencies was called on a MisuseItem that is already anchored; it has no effect.

                    To fix: Call withDependencies on the new MisuseItem before adding it to a hierarchy or anchoring it.
                    """])
            }
        }

        @Test func unhandledTaskErrorIsReportedAtTheTasksCallSite() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1).withAnchor()
                let line = #line + 1
                item.node.task { throw MisuseFailure() }
                #expect(await capture.waitForCount(1))
                #expect(capture.messages == ["""
                    A task of MisuseItem threw an error that nothing handled: MisuseFailure(boom)

                    To fix, either:
                      • Pass a `catch:` closure to `node.task` or `node.forEach` to handle the error.
                      • Or catch it inside the task body.
                    """])
                #expect(capture.issues.first?.location?.line == UInt(line))
            }
        }

        @Test func unhandledForEachBodyErrorIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1).withAnchor()
                item.node.forEach([1, 2].async) { _ in throw MisuseFailure() }
                #expect(await capture.waitForCount(2))
            }
        }

        @Test func sendingFromARemovedModelIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let list = MisuseList().withAnchor()
                let item = MisuseItem(id: 1)
                list.single = item
                list.single = nil
                item.node.send("late")
                #expect(capture.messages == ["""
                    MisuseItem sent late after it was removed from its hierarchy; the event was not delivered.

                    To fix: Send events from models that are still anchored; check `lifetime == .anchored` in \
                    long-lived callbacks.
                    """])
            }
        }

        @Test func addingAModelFromAnotherHierarchyIsReported() async {
            await IssueCapture.run(matching: "MisuseList.single") { capture in
                let first = MisuseList().withAnchor()
                let second = MisuseList().withAnchor()
                let item = MisuseItem(id: 1)
                first.single = item
                second.single = item
                #expect(second.single?.count == 0)
                #expect(capture.messages == ["""
                    A MisuseItem anchored in another hierarchy was added to MisuseList.single; it was not anchored here.

                    To fix: Create a new MisuseItem for this hierarchy, or share state through a dependency.
                    """])
            }
        }

        #if DEBUG
        @Test func usingAnotherHierarchyInsideATransactionIsReportedAndStillWrites() async {
            await IssueCapture.run(matching: "A model of another hierarchy was used") { capture in
                let first = MisuseItem(id: 1).withAnchor()
                let second = MisuseItem(id: 2).withAnchor()
                first.node.transaction {
                    first.count = 1
                    second.count = 2
                }
                #expect(first.count == 1)
                #expect(second.count == 2)
                #expect(capture.issues.count == 1)
            }
        }
        #endif

        @Test func addingAModelFromAnotherHierarchyWhileChangesArePrintedIsReported() async {
            await IssueCapture.run(matching: "MisuseList.single") { capture in
                let first = MisuseList().withAnchor()
                let second = MisuseList().withAnchor()
                second.single = MisuseItem(id: 1)
                let printing = first._printChanges { _ in }
                first.single = second.single
                printing.cancel()
                #expect(capture.issues.count == 1)
            }
        }

        @Test func addingAModelInsideItselfIsReported() async {
            await IssueCapture.run(matching: "MisuseList.nested") { capture in
                let root = MisuseList().withAnchor()
                let child = MisuseList()
                root.nested = child
                child.nested = root
                #expect(capture.messages == ["""
                    A MisuseList was added to MisuseList.nested, which is inside that same MisuseList; a model \
                    cannot be its own descendant.

                    To fix: Remove the model from its current place first, or add a new instance.
                    """])
            }
        }

        @Test func sameModelTwiceInOneCollectionIsReported() async {
            await IssueCapture.run(matching: "MisuseList.items") { capture in
                let list = MisuseList().withAnchor()
                let item = MisuseItem(id: 1)
                list.items = [item]
                list.items = [item, item]
                #expect(capture.messages == ["""
                    MisuseList.items holds the same MisuseItem twice; it was anchored once.

                    To fix: Store each model once per collection.
                    """])
            }
        }

        @Test func addingAFrozenCopyIsReported() async {
            await IssueCapture.run(matching: "MisuseList.single") { capture in
                let list = MisuseList().withAnchor()
                list.single = MisuseItem(id: 1)
                let frozen = list.single?.frozenCopy
                list.single = nil
                list.single = frozen
                #expect(capture.messages == ["""
                    A frozen copy of MisuseItem was added to MisuseList.single; frozen copies cannot be anchored.

                    To fix: Add a new MisuseItem built from the frozen copy's values.
                    """])
            }
        }
    }
}

/// A model that logs its life, to show that a misuse activates or tears down nothing.
private struct MisuseLoggedItem: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log
    @Tracked var count = 0
    @Tracked var kids: [MisuseLoggedItem] = []

    func onActivate() {
        log.add("activate \(id)")
        node.onCancel { [log, id] in log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("kids", \.$kids)
    }
}

#if DEBUG
/// Declares `title` but does not register it.
private struct MisuseForgetfulItem: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var title = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}
#endif

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
