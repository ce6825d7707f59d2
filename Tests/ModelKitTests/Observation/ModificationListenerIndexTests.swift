import ModelKit
import Testing

/// Which `modifications(of:)` listeners a commit reaches, with listeners of a model and of the
/// models below it listed on that model (found by walking up from each change) and the others
/// offered every change. Each test ends with a commit that every listener hears of, so that once
/// its element arrives, every earlier one has.
@Suite struct ModificationListenerIndexTests {
    private static let root = "TreeModel.value"
    private static let a = "TreeModel.child.value"
    private static let b = "TreeModel.child.child.value"
    private static let c = "TreeModel.child.child.child.value"

    @Test func listenersAtSeveralDepthsAndRelationsEachHearOfTheirRelation() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.child = TreeModel("a", log: Log(), child: TreeModel("b", log: Log(), child: TreeModel("c", log: Log())))
        let a = root.child!, b = a.child!, c = b.child!
        let listeners: [(Collector<ModelModification>, [[String]])] = [
            (Collector(root.node.modifications()), [[Self.c], [Self.b, Self.root, Self.a], [Self.root, Self.a, Self.b, Self.c]]),
            (Collector(root.node.modifications(of: .children)), [[Self.a], [Self.a]]),
            (Collector(a.node.modifications(of: .self)), [[Self.a], [Self.a]]),
            (Collector(a.node.modifications(of: .children)), [[Self.b], [Self.b]]),
            (Collector(b.node.modifications(of: .descendants)), [[Self.c], [Self.c]]),
            (Collector(b.node.modifications(of: .ancestors)), [[Self.root, Self.a], [Self.root, Self.a]]),
            (Collector(a.node.modifications(of: [.self, .parent])), [[Self.root, Self.a], [Self.root, Self.a]]),
            (Collector(c.node.modifications(of: [.self, .ancestors])), [[Self.c], [Self.b, Self.root, Self.a], [Self.root, Self.a, Self.b, Self.c]]),
        ]
        c.value = 1
        root.node.transaction {
            b.value = 2
            root.value = 3
            b.value = 4
            a.value = 5
        }
        root.node.transaction {
            root.value = 10
            a.value = 11
            b.value = 12
            c.value = 13
        }
        for (index, (collector, expected)) in listeners.enumerated() {
            #expect(await collector.waitForCount(expected.count), "listener \(index)")
            #expect(collector.elements.map(\.paths) == expected, "listener \(index)")
            collector.cancel()
        }
    }

    /// A model held at two places is a child of both parents; a model below it is a descendant of
    /// every ancestor of either, and each listener names its change once.
    @Test func aSharedModelIsAChildOfEachOfItsParents() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.children = [TreeModel("x", log: Log(), child: TreeModel("y", log: Log())), TreeModel("mid", log: Log())]
        let x = root.children[0], mid = root.children[1], y = x.child!
        mid.child = x
        let xPath = "TreeModel.children[0].value"
        let yPath = "TreeModel.children[0].child.value"
        let midPath = "TreeModel.children[1].value"
        let listeners: [(Collector<ModelModification>, [[String]])] = [
            (Collector(root.node.modifications()), [[xPath], [yPath], ["TreeModel.value", midPath, xPath, yPath]]),
            (Collector(root.node.modifications(of: .children)), [[xPath], [midPath, xPath]]),
            (Collector(mid.node.modifications(of: .children)), [[xPath], [xPath]]),
            (Collector(mid.node.modifications(of: .descendants)), [[xPath], [yPath], [xPath, yPath]]),
            (Collector(x.node.modifications(of: .self)), [[xPath], [xPath]]),
            (Collector(y.node.modifications(of: .ancestors)), [[xPath], ["TreeModel.value", midPath, xPath]]),
        ]
        x.value = 1
        y.value = 2
        root.node.transaction {
            root.value = 3
            mid.value = 4
            x.value = 5
            y.value = 6
        }
        for (index, (collector, expected)) in listeners.enumerated() {
            #expect(await collector.waitForCount(expected.count), "listener \(index)")
            #expect(collector.elements.map(\.paths) == expected, "listener \(index)")
            collector.cancel()
        }
    }

    /// A child moved to another parent in a transaction is, for that commit's changes, below its
    /// new parent only.
    @Test func aChildMovedInATransactionIsBelowItsNewParent() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.children = [TreeModel("p1", log: Log(), children: [TreeModel("x", log: Log())]), TreeModel("p2", log: Log())]
        let p1 = root.children[0], p2 = root.children[1], x = p1.children[0]
        let p1Children = "TreeModel.children[0].children"
        let p2Children = "TreeModel.children[1].children"
        let xMoved = "TreeModel.children[1].children[0].value"
        let p1Value = "TreeModel.children[0].value"
        let p2Value = "TreeModel.children[1].value"
        let listeners: [(Collector<ModelModification>, [[String]])] = [
            (Collector(root.node.modifications()), [[p1Children, p2Children, xMoved], ["TreeModel.value", p1Value, p2Value, xMoved]]),
            (Collector(p1.node.modifications()), [[p1Children], [p1Value]]),
            (Collector(p2.node.modifications()), [[p2Children, xMoved], [p2Value, xMoved]]),
            (Collector(p2.node.modifications(of: .children)), [[xMoved], [xMoved]]),
            (Collector(x.node.modifications(of: .self)), [[xMoved], [xMoved]]),
        ]
        root.node.transaction {
            let moved = p1.children[0]
            p1.children = []
            p2.children = [moved]
            moved.value = 7
        }
        root.node.transaction {
            root.value = 1
            p1.value = 2
            p2.value = 3
            x.value = 4
        }
        for (index, (collector, expected)) in listeners.enumerated() {
            #expect(await collector.waitForCount(expected.count), "listener \(index)")
            #expect(collector.elements.map(\.paths) == expected, "listener \(index)")
            collector.cancel()
        }
    }

    /// A listener whose model a commit removes hears nothing of that commit; its stream ends.
    @Test func aListenerOnAModelRemovedInTheSameCommitHearsNothing() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.children = [TreeModel("r1", log: Log(), child: TreeModel("r1c", log: Log())), TreeModel("r2", log: Log())]
        let r1 = root.children[0], r2 = root.children[1]
        let ofRoot = Collector(root.node.modifications())
        let ofRemoved = Collector(r1.node.modifications())
        let ofRemovedChild = Collector(r1.child!.node.modifications(of: [.self, .parent]))
        root.node.transaction {
            r1.value = 1
            r1.child?.value = 2
            root.children = [r2]
        }
        #expect(await ofRemoved.waitForFinish())
        #expect(await ofRemovedChild.waitForFinish())
        #expect(ofRemoved.elements.isEmpty)
        #expect(ofRemovedChild.elements.isEmpty)
        #expect(await ofRoot.waitForCount(1))
        #expect(ofRoot.elements.map(\.paths) == [["TreeModel.children"]])
        #expect(root.hierarchy!.modificationStreamCount == 1)
        ofRoot.cancel()
    }

    /// With one listener per row, a write to a row reaches that row's listeners and its ancestors'
    /// `.descendants` listeners only.
    @Test func aWriteToOneRowReachesThatRowsListenersOnly() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        root.children = (0..<200).map { TreeModel("\($0)", log: Log()) }
        let rows = root.children
        let ofRows = rows.map { Collector($0.node.modifications(of: .self)) }
        let ofRowsAndBelow = rows.map { Collector($0.node.modifications()) }
        let ofRoot = Collector(root.node.modifications())
        let ofRootItself = Collector(root.node.modifications(of: .self))
        rows[57].value = 1
        root.node.transaction {
            root.value = 1
            for row in rows { row.value += 1 }
        }
        for (index, collectors) in zip(rows.indices, zip(ofRows, ofRowsAndBelow)) {
            let expected = index == 57
                ? [["TreeModel.children[57].value"], ["TreeModel.children[57].value"]]
                : [["TreeModel.children[\(index)].value"]]
            for collector in [collectors.0, collectors.1] {
                #expect(await collector.waitForCount(expected.count))
                #expect(collector.elements.map(\.paths) == expected, "row \(index)")
                collector.cancel()
            }
        }
        #expect(await ofRoot.waitForCount(2))
        #expect(ofRoot.elements.first?.paths == ["TreeModel.children[57].value"])
        #expect(ofRoot.elements.last?.paths.count == 201)
        #expect(await ofRootItself.waitForCount(1))
        #expect(ofRootItself.elements.map(\.paths) == [["TreeModel.value"]])
        ofRoot.cancel()
        ofRootItself.cancel()
    }

    /// Listeners leave their lists as they end, in any order, and as their rows are removed; the
    /// listeners that stay keep hearing of their rows.
    @Test func removingRowsWithListenersLeavesNoneListed() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let hierarchy = root.hierarchy!
        root.children = (0..<300).map { TreeModel("\($0)", log: Log()) }
        let rows = root.children
        let ofRows = rows.map { Collector($0.node.modifications(of: .self)) }
        let ofParents = rows.map { Collector($0.node.modifications(of: .parent)) }
        #expect(hierarchy.modificationStreamCount == 600)
        for index in stride(from: 0, to: 300, by: 3) {
            ofRows[index].cancel()
            ofParents[index].cancel()
        }
        // A cancelled collector's stream ends once its reading task has stopped.
        #expect(await eventually { hierarchy.modificationStreamCount == 400 })
        root.node.transaction {
            root.value = 1
            for row in rows { row.value = 1 }
        }
        for index in rows.indices where index % 3 != 0 {
            #expect(await ofRows[index].waitForCount(1))
            #expect(ofRows[index].elements.map(\.paths) == [["TreeModel.children[\(index)].value"]])
            #expect(await ofParents[index].waitForCount(1))
            #expect(ofParents[index].elements.map(\.paths) == [["TreeModel.value"]])
        }
        root.children = []
        #expect(hierarchy.modificationStreamCount == 0)
        for collector in ofRows + ofParents { #expect(await collector.waitForFinish()) }
    }

    /// Several listeners on one model: the one that ends first leaves the model's list, the others
    /// stay and keep hearing of it.
    @Test func listenersOfOneModelLeaveItsListInAnyOrder() async {
        let root = TreeModel("root", log: Log()).withAnchor()
        let hierarchy = root.hierarchy!
        root.child = TreeModel("a", log: Log())
        let first = Collector(root.node.modifications(of: .self))
        let second = Collector(root.node.modifications())
        let third = Collector(root.node.modifications(of: .children))
        #expect(hierarchy.modificationStreamCount == 3)
        first.cancel()
        #expect(await first.waitForFinish())
        #expect(await eventually { hierarchy.modificationStreamCount == 2 })
        root.node.transaction {
            root.value = 1
            root.child?.value = 2
        }
        #expect(await second.waitForCount(1))
        #expect(second.elements.map(\.paths) == [["TreeModel.value", "TreeModel.child.value"]])
        #expect(await third.waitForCount(1))
        #expect(third.elements.map(\.paths) == [["TreeModel.child.value"]])
        #expect(first.elements.isEmpty)
        third.cancel()
        #expect(await eventually { hierarchy.modificationStreamCount == 1 })
        root.value = 3
        #expect(await second.waitForCount(2))
        #expect(second.elements.last?.paths == ["TreeModel.value"])
        second.cancel()
        #expect(await eventually { hierarchy.modificationStreamCount == 0 })
    }
}
