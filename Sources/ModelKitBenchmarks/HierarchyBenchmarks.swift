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
        // Every row with children in the three shapes (issue 16): the unsuffixed rows are the
        // default id, as in round one.
        .timed("activate + release a parent with N children", iterations: .calibrated(max: 20)) {
            allShapes.flatMap { shape -> [Variant] in
                let suffix = shapeSuffix(shape)
                let small = "ModelKit: 1,000 children" + suffix
                return [
                    Variant(small, target: Target(.milliseconds(3))) { n in
                        activateAndRelease(shape, parents: n, childrenEach: 1_000)
                    },
                    Variant("ModelKit: 10,000 children" + suffix, baseline: small, target: Target(.ratio(to: small, 12))) { n in
                        activateAndRelease(shape, parents: n, childrenEach: 10_000)
                    },
                ]
            }
        },
        .timed("append + remove one child beside N others") {
            allShapes.flatMap { shape -> [Variant] in
                let suffix = shapeSuffix(shape)
                let crowded = shape.make(children: 500).withAnchor()
                let sparse = shape.make(children: 50).withAnchor()
                let small = "ModelKit: beside 50" + suffix
                return [
                    Variant("ModelKit: beside 500" + suffix, baseline: small, target: Target(.microseconds(30), .baselineRatio(3))) { n in
                        measure {
                            for _ in 0..<n { crowded.appendAndRemoveOne() }
                        }
                    },
                    Variant(small) { n in
                        measure {
                            for _ in 0..<n { sparse.appendAndRemoveOne() }
                        }
                    },
                ]
            }
        },
    ]
}

/// "" for the default id (round one's row names), " (Int id)", " (UUID id)".
func shapeSuffix(_ shape: any ShapedParent.Type) -> String {
    shape == Parent.self ? "" : " (\(shape.shape))"
}

/// Anchors and releases `parents` parents of `childrenEach` children each; returns the time taken.
func activateAndRelease(_ shape: any ShapedParent.Type, parents: Int, childrenEach: Int) -> Duration {
    func run<P: ShapedParent>(_: P.Type) -> Duration {
        var unanchored = (0..<parents).map { _ in P.make(children: childrenEach) }
        return measure {
            // Popping hands each parent to the loop, so that it is freed within the timed part.
            while let parent = unanchored.popLast() {
                blackHole(parent.withAnchor())
            }
        }
    }
    return run(shape)
}
