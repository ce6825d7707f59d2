import ModelKit
import Testing

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
                    MisuseList.items holds two different MisuseItem models with the id 7; the second was not anchored.

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

        @Test func addingAModelRemovedFromAnotherHierarchyIsReportedAsDestructed() async {
            await IssueCapture.run(matching: "MisuseList") { capture in
                let first = MisuseList().withAnchor(), second = MisuseList().withAnchor()
                let item = MisuseItem(id: 1)
                first.items = [item]
                first.items = []
                second.items = [item]
                #expect(item.lifetime == .destructed)
                #expect(second.items.first?.lifetime == .destructed)
                #expect(capture.messages == ["""
                    A destructed MisuseItem (removed from another hierarchy) was added to MisuseList.items; \
                    destructed models cannot be anchored again.

                    To fix: Create a new MisuseItem for this hierarchy; a model cannot move between hierarchies.
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

        @Test func anchoringTwiceIsReportedAtTheCallerWithOrWithoutOverrides() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let item = MisuseItem(id: 1).withAnchor()
                let line = #line + 1
                _ = item.withAnchor()
                _ = item.withAnchor { _ in }
                #expect(capture.issues.map { $0.location?.fileID } == Array(
                    repeating: "ModelKitTests/MisuseTests.swift", count: 2
                ))
                #expect(capture.issues.map { $0.location?.line } == [UInt(line), UInt(line + 1)])
            }
        }

        /// A model removed from its hierarchy, and a frozen copy taken of it while it was anchored.
        private func removedModelAndFrozenCopy() -> (removed: MisuseItem, frozen: MisuseItem) {
            let list = MisuseList().withAnchor()
            let item = MisuseItem(id: 1)
            list.single = item
            let frozen = item.frozenCopy
            list.single = nil
            return (item, frozen)
        }

        @Test func workStartedOnARemovedModelOrAFrozenCopyIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let (item, frozen) = removedModelAndFrozenCopy()
                item.node.task {}
                frozen.node.forEach(AsyncStream<Int> { $0.finish() }) { _ in }
                #expect(capture.messages.map { $0.components(separatedBy: "\n")[0] } == [
                    "Work (a task, forEach, task(id:), onChange or onCancel) was started on a MisuseItem that was removed from its hierarchy; it did not start.",
                    "Work (a task, forEach, task(id:), onChange or onCancel) was started on a frozen copy of MisuseItem; it did not start.",
                ])
            }
        }

        @Test func onChangeOnARemovedModelOrAFrozenCopyIsReported() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let (item, frozen) = removedModelAndFrozenCopy()
                item.node.onChange(of: \.count) { _, _ in }
                item.node.onChange(of: item.count) { _, _ in }
                frozen.node.onChange(of: \.count, initial: true) { _, _ in }
                frozen.node.onChange(of: frozen.count) { _, _ in }
                let removed = "Work (a task, forEach, task(id:), onChange or onCancel) was started on a MisuseItem that was removed from its hierarchy; it did not start."
                let copy = "Work (a task, forEach, task(id:), onChange or onCancel) was started on a frozen copy of MisuseItem; it did not start."
                #expect(capture.messages.map { $0.components(separatedBy: "\n")[0] } == [removed, removed, copy, copy])
            }
        }

        @Test func anchoringARemovedModelOrAFrozenCopySaysWhatItIs() async {
            await IssueCapture.run(matching: "MisuseItem") { capture in
                let (item, frozen) = removedModelAndFrozenCopy()
                #expect(item.withAnchor().lifetime == .destructed)
                #expect(frozen.withAnchor().lifetime == .frozen)
                #expect(capture.messages.map { $0.components(separatedBy: "\n")[0] } == [
                    "withAnchor() was called on a MisuseItem that was removed from its hierarchy, which cannot be anchored; it was returned unchanged.",
                    "withAnchor() was called on a frozen copy of MisuseItem, which cannot be anchored; it was returned unchanged.",
                ])
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
