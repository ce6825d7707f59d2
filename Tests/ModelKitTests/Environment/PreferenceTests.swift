import ModelKit
import Observation
import Testing

/// `node.preference`, `removePreference` (API.md section 10).
@Suite struct PreferenceTests {
    @Test func aKeyNobodyContributesToReadsItsDefault() {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        #expect(root.unsavedCount == 0)
        #expect(root.titles == [])
    }

    @Test func aReadFoldsTheModelAndItsDescendantsDepthFirst() {
        let root = Panel("root", children: [Panel("a", children: [Panel("a1")]), Panel("b")]).withAnchor()
        root.detail = Panel("d")
        for panel in [root.children[1], root.children[0].children[0], root, root.detail!, root.children[0]] {
            panel.contributeTitle()
        }
        #expect(root.titles == ["root", "a", "a1", "b", "d"])
        #expect(root.children[0].titles == ["a", "a1"])
        #expect(root.children[1].titles == ["b"])
    }

    @Test func aChangedContributionChangesTheFoldsAbove() {
        let root = Panel("root", children: [Panel("a", children: [Panel("a1")]), Panel("b")]).withAnchor()
        let a1 = root.children[0].children[0]
        a1.unsavedCount = 1
        root.children[1].unsavedCount = 2
        #expect(root.unsavedCount == 3)
        #expect(root.children[0].unsavedCount == 1)
        a1.unsavedCount = 5
        #expect(root.unsavedCount == 7)
        a1.node.removePreference(\.unsavedCount)
        #expect(root.unsavedCount == 2)
        #expect(root.children[0].unsavedCount == 0)
    }

    @Test func addingAndRemovingContributorsChangesTheFold() {
        let root = Panel("root").withAnchor()
        #expect(root.unsavedCount == 0)
        root.children.append(Panel("a"))
        root.children[0].unsavedCount = 1
        #expect(root.unsavedCount == 1)
        let b = Panel("b")
        root.children.append(b)
        b.unsavedCount = 2
        #expect(root.unsavedCount == 3)
        root.children.removeFirst()
        #expect(root.unsavedCount == 2)
        root.children = []
        #expect(root.unsavedCount == 0)
    }

    @Test func observersOfAFoldHearOfContributionsAndStructure() {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        let fired = Locked(0)
        func track() { withObservationTracking { _ = root.unsavedCount } onChange: { fired.withLock { $0 += 1 } } }
        track()
        root.children[0].unsavedCount = 1
        #expect(fired.value == 1)
        track()
        let b = Panel("b")
        root.children.append(b)
        b.unsavedCount = 2
        #expect(fired.value == 2)
        #expect(root.unsavedCount == 3)
        track()
        root.children.removeLast()
        #expect(fired.value == 3)
        #expect(root.unsavedCount == 1)
    }

    @Test func aTransactionChangingTheFoldIsHeardThoughTheContributionEndsAsItWas() {
        let root = Panel("root", children: [Panel("a", children: [Panel("b")])]).withAnchor()
        root.children[0].children[0].unsavedCount = 2
        let log = Log()
        let observing = root.node.onChange(of: root.unsavedCount) { old, new in log.add("\(old)->\(new)") }
        #expect(root.unsavedCount == 2)
        // The root's contribution goes from none to 0 (recorded as 0 → 0) as a contributor below is removed.
        root.node.transaction {
            root.children[0].children = []
            root.unsavedCount = 0
        }
        #expect(log.all == ["2->0"])
        // The root's contribution removed and set back, as a contributor below is removed.
        root.unsavedCount = 1
        root.children[0].children = [Panel("c")]
        root.children[0].children[0].unsavedCount = 3
        root.node.transaction {
            root.node.removePreference(\.unsavedCount)
            root.children[0].children = []
            root.unsavedCount = 1
        }
        #expect(root.unsavedCount == 1)
        #expect(log.all == ["2->0", "0->1", "1->4", "4->1"])
        observing.cancel()
    }

    @Test func aChangeBelowThatLeavesTheFoldAsItWasIsNoChangeOfIt() {
        let root = Panel("root", children: [Panel("a", children: [Panel("a1")]), Panel("b")]).withAnchor()
        root.children[0].unsavedCount = 1
        #expect(root.unsavedCount == 1)
        let fired = Locked(0)
        func track() { withObservationTracking { _ = root.unsavedCount } onChange: { fired.withLock { $0 += 1 } } }
        track()
        // A child that contributes nothing, added and removed.
        root.children.append(Panel("c"))
        root.children.removeLast()
        // Children reordered: the sum is the same.
        root.children.reverse()
        #expect(fired.value == 0)
        #expect(root.unsavedCount == 1)
        // A real change is still heard.
        root.children[0].unsavedCount = 2
        #expect(fired.value == 1)
        #expect(root.unsavedCount == 3)
    }

    @Test func aSameIDRefreshThatChangesNoValueIsNoChangeOfTheFoldsAbove() {
        let list = PrefList(rows: [PrefRow(id: 1), PrefRow(id: 2)]).withAnchor()
        let fired = Locked(0)
        withObservationTracking { _ = list.unsavedCount } onChange: { fired.withLock { $0 += 1 } }
        list.rows = [PrefRow(id: 1), PrefRow(id: 2)]
        list.rows = [PrefRow(id: 1), PrefRow(id: 2)]
        #expect(fired.value == 0)
    }

    @Test func aFoldBroughtBackByARemovalAfterASameIDRefreshIsHeard() {
        let list = PrefList(rows: [PrefRow(id: 1)]).withAnchor()
        list.draft = Panel("draft")
        list.draft?.unsavedCount = 1
        #expect(list.unsavedCount == 1)
        list.rows = [PrefRow(id: 1)]
        list.node.preference.unsavedCount = 1
        #expect(list.unsavedCount == 2)
        let fired = Locked(0)
        withObservationTracking { _ = list.unsavedCount } onChange: { fired.withLock { $0 += 1 } }
        // The fold goes from 2 back to 1, the value it had before the refresh.
        list.draft = nil
        #expect(fired.value == 1)
        #expect(list.unsavedCount == 1)
    }

    @Test func onChangeOfAFoldRunsOncePerDistinctValue() async {
        let root = Panel("root", children: [Panel("a"), Panel("b")]).withAnchor()
        let log = Log()
        root.node.onChange(of: root.unsavedCount) { old, new in log.add("\(old) → \(new)") }
        root.children[0].unsavedCount = 1
        root.children[1].unsavedCount = 1
        root.children.removeFirst()
        #expect(await log.waitForCount(3))
        #expect(log.all == ["0 → 1", "1 → 2", "2 → 1"])
    }

    @Test func aTransactionNotifiesOnce() async {
        let root = Panel("root", children: [Panel("a"), Panel("b")]).withAnchor()
        let values = Collector(root.node.observe { root.unsavedCount })
        root.node.transaction {
            root.children[0].unsavedCount = 1
            root.children[1].unsavedCount = 1
        }
        #expect(await values.waitForCount(2))
        #expect(values.elements == [0, 2])
        values.cancel()
    }

    @Test func removingAContributionNeverSetDoesNothing() {
        let root = Panel("root").withAnchor()
        let printed = Locked<[String]>([])
        let printing = root._printChanges { line in printed.withLock { $0.append(line) } }
        root.node.removePreference(\.unsavedCount)
        #expect(printed.value.isEmpty)
        printing.cancel()
    }

    @Test func contributionsArePrinted() {
        let printed = Locked<[String]>([])
        let root = Panel("root", children: [Panel("a")])._withPrintChanges { line in printed.withLock { $0.append(line) } }
            .withAnchor()
        root.children[0].unsavedCount = 2
        root.children[0].node.removePreference(\.unsavedCount)
        #expect(printed.value == [
            "Panel.children[0].preference.unsavedCount: nil → 2",
            "Panel.children[0].preference.unsavedCount: 2 → nil",
        ])
    }

    @Test func aFirstContributionEqualToTheDefaultIsPrintedAsSetFromNil() {
        let printed = Locked<[String]>([])
        let root = Panel("root", children: [Panel("a")])._withPrintChanges { line in printed.withLock { $0.append(line) } }
            .withAnchor()
        root.children[0].unsavedCount = 0
        #expect(printed.value == ["Panel.children[0].preference.unsavedCount: nil → 0"])
    }

    @Test func modificationsNameTheContributorOnly() async {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        _ = root.unsavedCount
        let modifications = Collector(root.node.modifications())
        root.children[0].unsavedCount = 1
        #expect(await modifications.waitForCount(1))
        #expect(modifications.elements.map(\.paths) == [["Panel.children[0].preference.unsavedCount"]])
        modifications.cancel()
    }

    @Test func concurrentContributionsAndReadsAgreeInTheEnd() async {
        let root = Panel("root", children: (0..<8).map { Panel("\($0)", children: [Panel("leaf")]) }).withAnchor()
        let leaves = root.children.map { $0.children[0] }
        await withTaskGroup(of: Void.self) { group in
            for (offset, leaf) in leaves.enumerated() {
                group.addTask {
                    for round in 0..<200 {
                        leaf.unsavedCount = round
                        leaf.node.environment.fontSize = round
                        _ = root.unsavedCount
                        _ = leaf.theme
                    }
                    leaf.unsavedCount = offset
                }
            }
            group.addTask {
                for round in 0..<200 { root.theme = round.isMultiple(of: 2) ? "dark" : "light" }
            }
        }
        #expect(root.unsavedCount == (0..<8).reduce(0, +))
        #expect(leaves.allSatisfy { $0.node.environment.fontSize == 199 })
    }

    @Test func aFoldOverManyChildrenStaysCorrectAcrossChanges() {
        let root = Panel("root", children: (0..<200).map { Panel("\($0)") }).withAnchor()
        for (offset, child) in root.children.enumerated() { child.unsavedCount = offset }
        #expect(root.unsavedCount == (0..<200).reduce(0, +))
        root.children[100].unsavedCount = 0
        #expect(root.unsavedCount == (0..<200).reduce(0, +) - 100)
        root.children.remove(at: 10)
        #expect(root.unsavedCount == (0..<200).reduce(0, +) - 110)
    }
}

extension ReportedIssueTests {
    @Suite struct PreferenceMisuseTests {
        @Test func settingOnAnInitialModelIsReported() async {
            await IssueCapture.run(matching: "PrefPanel") { capture in
                let panel = PrefPanel()
                panel.node.preference.unsavedCount = 1
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix(
                    "PrefPanel.node.preference.unsavedCount was set on a PrefPanel that is not anchored; the value was not set."
                ) == true)
            }
        }

        @Test func settingOnARemovedModelIsReported() async {
            await IssueCapture.run(matching: "PrefPanel") { capture in
                let root = PrefPanel().withAnchor()
                let child = PrefPanel()
                root.children = [child]
                root.children = []
                child.node.preference.unsavedCount = 1
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix(
                    "Set PrefPanel.preference.unsavedCount of a destructed PrefPanel; the value was ignored."
                ) == true)
            }
        }

        @Test func removingFromARemovedModelOrAFrozenCopySaysItWasARemoval() async {
            await IssueCapture.run(matching: "PrefPanel") { capture in
                let root = PrefPanel().withAnchor()
                let child = PrefPanel()
                root.children = [child]
                let frozen = child.frozenCopy
                root.children = []
                child.node.removePreference(\.unsavedCount)
                frozen.node.removeEnvironment(\.theme)
                #expect(capture.messages.map { $0.components(separatedBy: "\n")[0] } == [
                    "Removed PrefPanel.preference.unsavedCount of a destructed PrefPanel; nothing was removed.",
                    "Removed PrefPanel.environment.theme of a frozen copy of PrefPanel; nothing was removed.",
                ])
            }
        }
    }
}

private struct PrefPanel: Model {
    var node = ModelNode<Self>()
    @Tracked var children: [PrefPanel] = []
    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$children) }
}

/// A list whose rows have ids of their own, so that a new array with the same ids continues them.
private struct PrefList: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [PrefRow] = []
    @Tracked var draft: Panel? = nil

    init(rows: [PrefRow]) {
        self.rows = rows
    }

    var unsavedCount: Int { node.preference.unsavedCount }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$rows)
        r.track(\.$draft)
    }
}

private struct PrefRow: Model {
    let id: Int
    var node = ModelNode<Self>()
    @Tracked var title = ""

    init(id: Int) {
        self.id = id
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$title) }
}
