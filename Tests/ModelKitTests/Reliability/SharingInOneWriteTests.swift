import ModelKit
import Testing

/// A node identified by a name, with a single child and a list of children.
private struct OneWriteNode: Model {
    var node = ModelNode<Self>()
    let id: String
    let log: Log
    @Tracked var child: OneWriteNode? = nil
    @Tracked var children: [OneWriteNode] = []
    @Tracked var leaves: [OneWriteLeaf] = []

    init(
        _ id: String, log: Log, child: OneWriteNode? = nil, children: [OneWriteNode] = [],
        leaves: [OneWriteLeaf] = []
    ) {
        self.id = id
        self.log = log
        _child = Tracked(wrappedValue: child)
        _children = Tracked(wrappedValue: children)
        _leaves = Tracked(wrappedValue: leaves)
    }

    func onActivate() {
        log.add("activate \(id)")
        node.onCancel { [log, id] in log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("child", \.$child)
        r.track("children", \.$children)
        r.track("leaves", \.$leaves)
    }
}

/// A model identified by its instance (`ModelID`), with children of its own kind.
private struct OneWriteLeaf: Model {
    var node = ModelNode<Self>()
    @Tracked var kids: [OneWriteLeaf] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("kids", \.$kids)
    }
}

extension ReportedIssueTests {
    /// A new model that one write places at several places is shared, exactly like a live model
    /// added at a second place: one live model, activated once, alive until its last place goes.
    @Suite struct SharingInOneWriteTests {
        @Test func newModelInTwoSlotsOfANewParentIsShared() async {
            await IssueCapture.run(matching: "OneWrite") { capture in
                let log = Log()
                let root = OneWriteNode("root", log: log).withAnchor()
                let shared = OneWriteNode("shared", log: log)
                root.child = OneWriteNode("parent", log: log, child: shared, children: [shared])
                #expect(capture.messages.isEmpty)
                #expect(log.count(of: "activate shared") == 1)
                root.child?.child = nil
                #expect(shared.lifetime == .anchored)
                root.child?.children = []
                #expect(shared.lifetime == .destructed)
                #expect(log.count(of: "cancel shared") == 1)
            }
        }

        @Test func newModelInsideANewSiblingAndBesideItIsShared() async {
            await IssueCapture.run(matching: "OneWrite") { capture in
                let log = Log()
                let root = OneWriteNode("root", log: log).withAnchor()
                let shared = OneWriteNode("shared", log: log)
                root.children = [OneWriteNode("a", log: log, children: [shared]), shared]
                #expect(capture.messages.isEmpty, "\(capture.messages.first ?? "")")
                #expect(log.count(of: "activate shared") == 1)
                // Leaving its place in `a` keeps it: `root.children` still holds it.
                root.children[0].children = []
                #expect(shared.lifetime == .anchored)
                #expect(log.count(of: "cancel shared") == 0)
                root.children = []
                #expect(shared.lifetime == .destructed)
                #expect(log.count(of: "cancel shared") == 1)
            }
        }

        @Test func newInstanceIdentifiedModelInsideANewSiblingAndBesideItIsShared() async {
            await IssueCapture.run(matching: "OneWrite") { capture in
                let root = OneWriteNode("root", log: Log()).withAnchor()
                let shared = OneWriteLeaf()
                root.leaves = [OneWriteLeaf(kids: [shared]), shared]
                #expect(capture.messages.isEmpty, "\(capture.messages.first ?? "")")
                root.leaves[0].kids = []
                #expect(shared.lifetime == .anchored)
                root.leaves = []
                #expect(shared.lifetime == .destructed)
            }
        }

        @Test func sameNewModelTwiceInOneCollectionIsReportedLikeALiveOne() async {
            await IssueCapture.run(matching: "OneWrite") { capture in
                let root = OneWriteNode("root", log: Log()).withAnchor()
                let leaf = OneWriteLeaf()
                root.leaves = [leaf, leaf]
                #expect(capture.messages == ["""
                    OneWriteNode.leaves holds the same OneWriteLeaf twice; it was anchored once.

                    To fix: Store each model once per collection.
                    """])
                #expect(leaf.lifetime == .anchored)
                root.leaves = [leaf]
                #expect(leaf.lifetime == .anchored)
            }
        }
    }
}
