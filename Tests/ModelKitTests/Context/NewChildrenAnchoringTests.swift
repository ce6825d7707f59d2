import ModelKit
import Testing

// New children are anchored while their slot's new value is visited when nothing can depend on
// waiting (a model without child slots, that cannot continue a live child, met before any new model
// that had to wait), and after the visit otherwise. Either way they are activated in the order they
// were met, and the same misuse is reported.

private struct Leaf: Model {
    var node = ModelNode<Self>()
    let name: String
    let log: Log
    @Tracked var value = 0

    func onActivate() { log.add("activate \(name)") }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$value)
    }
}

private struct NumberedLeaf: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log

    func onActivate() { log.add("activate #\(id)") }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// A leaf with its own id and storage; `id` is a `var`, so that a copy can take another id.
private struct ValuedLeaf: Model {
    var node = ModelNode<Self>()
    var id: Int
    let log: Log
    @Tracked var value = 0

    func onActivate() { log.add("activate #\(id)") }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$value)
    }
}

private struct Branch: Model {
    var node = ModelNode<Self>()
    let name: String
    let log: Log
    @Tracked var leaves: [Leaf] = []

    func onActivate() { log.add("activate \(name)") }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$leaves)
    }
}

/// A child slot of leaves and branches, in the order given.
private enum Child: ModelContainer, Sendable {
    case leaf(Leaf)
    case branch(Branch)

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .leaf(let leaf): visitor.visit(leaf)
        case .branch(let branch): visitor.visit(branch)
        }
    }
}

private struct Tree: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var children: [Child] = []
    @Tracked var numbered: [NumberedLeaf] = []
    @Tracked var leaves: [Leaf] = []
    /// A slot after `leaves`, so that a model shared with it is met in `leaves` first.
    @Tracked var later: [Leaf] = []
    @Tracked var valued: [ValuedLeaf] = []

    func onActivate() { log.add("activate tree") }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$children)
        r.track(\.$numbered)
        r.track(\.$leaves)
        r.track(\.$later)
        r.track(\.$valued)
    }
}

// Nested in `ReportedIssueTests`: some of these tests install the global issue handler.
extension ReportedIssueTests {
    @Suite struct NewChildrenAnchoringTests {
        @Test func newSiblingsAreActivatedInTheOrderMetWhetherOrNotTheyHaveChildSlots() {
            let log = Log()
            let tree = Tree(log: log).withAnchor()
            let branch = Branch(name: "branch", log: log)
            branch.leaves = [Leaf(name: "inner", log: log)]
            tree.children = [
                .leaf(Leaf(name: "first", log: log)),
                .branch(branch),
                .leaf(Leaf(name: "last", log: log)),
            ]
            #expect(log.all == ["activate tree", "activate first", "activate branch", "activate inner", "activate last"])
            #expect(tree.children.allSatisfy {
                switch $0 {
                case .leaf(let leaf): leaf.lifetime == .anchored
                case .branch(let branch): branch.lifetime == .anchored && branch.leaves[0].lifetime == .anchored
                }
            })
        }

        @Test func newChildrenAppendedBesideLiveOnesAreActivatedInOrderAfterTheParent() {
            let log = Log()
            let tree = Tree(log: log).withAnchor()
            tree.leaves = [Leaf(name: "a", log: log)]
            tree.leaves += [Leaf(name: "b", log: log), Leaf(name: "c", log: log)]
            #expect(log.all == ["activate tree", "activate a", "activate b", "activate c"])
            #expect(tree.leaves.map(\.lifetime) == [.anchored, .anchored, .anchored])
        }

        @Test func aFirstValueMixingNewAndSharedModelsKeepsTheirOrderAmongTheChildren() {
            let log = Log()
            let tree = Tree(log: log).withAnchor()
            let shared = Leaf(name: "shared", log: log)
            tree.later = [shared]
            // Two new children anchored as they are met, then a model live in another slot, then a
            // new one: the slot's children keep the order of its value.
            tree.leaves = [
                Leaf(name: "first", log: log), Leaf(name: "second", log: log), shared, Leaf(name: "last", log: log),
            ]
            let names = tree.node.mapHierarchy(for: .children) { ($0 as? Leaf)?.name }
            #expect(names == ["first", "second", "shared", "last"])
            #expect(log.all == ["activate tree", "activate shared", "activate first", "activate second", "activate last"])
            tree.leaves.remove(at: 1)
            #expect(tree.node.mapHierarchy(for: .children) { ($0 as? Leaf)?.name } == ["first", "shared", "last"])
            tree.leaves = []
            #expect(shared.lifetime == .anchored)
            #expect(tree.node.mapHierarchy(for: .children) { ($0 as? Leaf)?.name } == ["shared"])
        }

        @Test func aSecondNewChildWithAnIdMetInOneWriteIsReportedAndNotAnchored() async {
            await IssueCapture.run(matching: "Tree.numbered") { capture in
                let log = Log()
                let tree = Tree(log: log).withAnchor()
                let second = NumberedLeaf(id: 1, log: log)
                tree.numbered = [NumberedLeaf(id: 1, log: log), NumberedLeaf(id: 2, log: log), second]
                #expect(second.lifetime == .initial)
                #expect(log.all == ["activate tree", "activate #1", "activate #2"])
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix("Tree.numbered holds two different NumberedLeaf models with the id 1") == true)
            }
        }

        @Test func aSecondNewChildWithAnIdBesideLiveChildrenIsReportedAtTheEndOfTheVisit() async {
            await IssueCapture.run(matching: "Tree.numbered") { capture in
                let log = Log()
                let tree = Tree(log: log).withAnchor()
                tree.numbered = [NumberedLeaf(id: 1, log: log)]
                // Beside a live child: the first new id is anchored at once; the second model with
                // it waits for the end of the visit (it might have continued a live child), where it
                // is reported.
                let duplicate = NumberedLeaf(id: 2, log: log)
                tree.numbered = [tree.numbered[0], NumberedLeaf(id: 2, log: log), duplicate]
                #expect(duplicate.lifetime == .initial)
                #expect(capture.messages.count == 1)
            }
        }

        @Test func anIdentifiedCopyThatSharesStorageLeavesItsIdFreeForALaterChild() async {
            await IssueCapture.run(matching: "shares its storage") { capture in
                let log = Log()
                let tree = Tree(log: log).withAnchor()
                let original = ValuedLeaf(id: 1, log: log)
                var copy = original
                copy.node = ModelNode()
                copy.id = 9
                tree.valued = [original, copy, ValuedLeaf(id: 3, log: log)]
                #expect(copy.lifetime == .initial)
                #expect(capture.messages.count == 1)
                // The refused copy's id was indexed for a moment. A new child with it, met after a
                // new instance continuing #3 out of order (so both wait for the end of the visit,
                // where the index decides), is anchored, not reported as a second model with it.
                let later = ValuedLeaf(id: 9, log: log)
                tree.valued = [ValuedLeaf(id: 3, log: log), later]
                #expect(later.lifetime == .anchored)
                #expect(original.lifetime == .destructed)
                #expect(log.all == ["activate tree", "activate #1", "activate #3", "activate #9"])
                #expect(capture.messages.count == 1)
            }
        }

        @Test func aCopyThatSharesAnotherModelsStorageIsReportedAndTheOthersAreAnchored() async {
            await IssueCapture.run(matching: "shares its storage") { capture in
                let log = Log()
                let tree = Tree(log: log).withAnchor()
                let original = Leaf(name: "original", log: log)
                var copy = original
                copy.node = ModelNode()
                tree.leaves = [original, copy, Leaf(name: "other", log: log)]
                #expect(original.lifetime == .anchored)
                #expect(copy.lifetime == .initial)
                #expect(tree.leaves[2].lifetime == .anchored)
                #expect(log.all == ["activate tree", "activate original", "activate other"])
                #expect(capture.messages.first?.hasPrefix("Leaf.value shares its storage with another model instance") == true)
            }
        }
    }
}
