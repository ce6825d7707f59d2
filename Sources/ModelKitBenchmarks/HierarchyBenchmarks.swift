import ModelKit

// Building and tearing down hierarchies: anchoring one small model, activating a parent with many
// children, and adding and removing one child beside many. Models a sample consumes are built before
// its clock starts; releasing them is timed, since teardown is part of the work.

@MainActor
func hierarchyScenarios() -> [Scenario] {
    [
        .timed("anchor + release a one-property model") {
            [
                Variant(
                    "ModelKit: Single().withAnchor(), released", baseline: "allocating the model: Single()",
                    target: Target(.microseconds(3))
                ) { n in
                    measure {
                        for _ in 0..<n { blackHole(Single().withAnchor()) }
                    }
                },
                Variant("allocating the model: Single()") { n in
                    measure {
                        for _ in 0..<n { blackHole(Single()) }
                    }
                },
            ]
        },
        .timed("activate + release a parent with N children", iterations: .calibrated(max: 20)) {
            let small = "ModelKit: 1,000 children"
            return [
                Variant(small, target: Target(.milliseconds(3))) { n in
                    activateAndRelease(parents: n, childrenEach: 1_000)
                },
                Variant("ModelKit: 10,000 children", baseline: small, target: Target(.ratio(to: small, 12))) { n in
                    activateAndRelease(parents: n, childrenEach: 10_000)
                },
            ]
        },
        .timed("append + remove one child beside N others") {
            let crowded = Parent(children: (0..<500).map { _ in Pair() }).withAnchor()
            let sparse = Parent(children: (0..<50).map { _ in Pair() }).withAnchor()
            let small = "ModelKit: beside 50"
            return [
                Variant("ModelKit: beside 500", baseline: small, target: Target(.microseconds(30), .baselineRatio(3))) { n in
                    measure {
                        for _ in 0..<n {
                            crowded.children.append(Pair())
                            crowded.children.removeLast()
                        }
                    }
                },
                Variant(small) { n in
                    measure {
                        for _ in 0..<n {
                            sparse.children.append(Pair())
                            sparse.children.removeLast()
                        }
                    }
                },
            ]
        },
    ]
}

/// Anchors and releases `parents` parents of `childrenEach` children each; returns the time taken.
private func activateAndRelease(parents: Int, childrenEach: Int) -> Duration {
    var unanchored = (0..<parents).map { _ in
        Parent(children: (0..<childrenEach).map { _ in Pair() })
    }
    return measure {
        // Popping hands each parent to the loop, so that it is freed within the timed part.
        while let parent = unanchored.popLast() {
            blackHole(parent.withAnchor())
        }
    }
}
