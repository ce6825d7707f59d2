import ModelKit

// Environment reads far below where the value was set, preference folds over many descendants after
// one contribution changed, and a hierarchy query up a deep chain (issue 12).

struct DepthKey: ModelEnvironmentKey { static let defaultValue = 0 }
struct CountKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelEnvironmentValues {
    var depth: Int { get { self[DepthKey.self] } set { self[DepthKey.self] = newValue } }
}

extension ModelPreferenceValues {
    var count: Int { get { self[CountKey.self] } set { self[CountKey.self] = newValue } }
}

/// A node of a benchmark tree.
struct TreeNode: Model {
    var node = ModelNode<Self>()
    @Tracked var children: [TreeNode] = []

    init(children: [TreeNode] = []) {
        self.children = children
    }

    /// A chain of `depth` models below this one's new instance.
    static func chain(depth: Int) -> TreeNode {
        (0..<depth).reduce(TreeNode()) { child, _ in TreeNode(children: [child]) }
    }

    var deepest: TreeNode { children.first?.deepest ?? self }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$children)
    }
}

@MainActor
func environmentScenarios() -> [Scenario] {
    [
        .timed("environment, preferences, hierarchy queries") {
            let chain = TreeNode.chain(depth: 10).withAnchor()
            chain.node.environment.depth = 1
            let leaf = chain.deepest
            // 1,000 descendants: 1,000 children of the root, and 10 sections of 100.
            let flat = TreeNode(children: (0..<1_000).map { _ in TreeNode() }).withAnchor()
            let sections = TreeNode(children: (0..<10).map { _ in TreeNode(children: (0..<99).map { _ in TreeNode() }) })
                .withAnchor()
            let flatContributor = flat.children[500]
            let sectionContributor = sections.children[5].children[50]
            for child in flat.children { child.node.preference.count = 1 }
            for section in sections.children { for child in section.children { child.node.preference.count = 1 } }
            return [
                Variant("ModelKit: environment read 10 levels below where it was set", target: Target(.nanoseconds(60))) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= leaf.node.environment.depth }
                    }
                    withExtendedLifetime(chain) {}
                    precondition(sum == n, "the chain is alive")
                    blackHole(sum)
                    return elapsed
                },
                Variant(
                    "ModelKit: contribution changed + fold read, 1,000 children", target: Target(.nanoseconds(2_000)),
                    note: "one of 1,000 children of the root changes its contribution, then the root reads the fold"
                ) { n in
                    var sum = 0
                    let elapsed = measure {
                        for i in 0..<n {
                            flatContributor.node.preference.count = i & 1
                            sum &+= flat.node.preference.count
                        }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant(
                    "ModelKit: contribution changed + fold read, 10 × 100", target: Target(.nanoseconds(2_000)),
                    note: "the same over 10 sections of 99 children (1,000 descendants)"
                ) { n in
                    var sum = 0
                    let elapsed = measure {
                        for i in 0..<n {
                            sectionContributor.node.preference.count = i & 1
                            sum &+= sections.node.preference.count
                        }
                    }
                    blackHole(sum)
                    return elapsed
                },
                Variant("ModelKit: mapHierarchy(for: .ancestors) at depth 10", target: Target(.nanoseconds(1_000))) { n in
                    var sum = 0
                    let elapsed = measure {
                        for _ in 0..<n { sum &+= leaf.node.mapHierarchy(for: .ancestors) { _ in 1 }.count }
                    }
                    withExtendedLifetime(chain) {}
                    precondition(sum == 10 * n, "the chain is alive")
                    blackHole(sum)
                    return elapsed
                },
            ]
        },
    ]
}
