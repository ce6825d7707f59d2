import ModelKit

// Undo (issue 13): the cost of recording a write, of undoing a one-property entry, and the memory
// an entry holds.

/// A one-property model recording undo for it.
struct UndoSingle: Model {
    var node = ModelNode<Self>()
    @Tracked var value = 0

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$value)
    }
}

@MainActor
func undoScenarios() -> [Scenario] {
    [
        .timed("tracked write with undo recording") {
            // Each sample records into a new stack whose limit is above its writes, so that every write
            // pushes an entry; the default limit (100) is the second row: there each push also drops
            // the oldest entry.
            let atLimit = UndoSingle().withAnchor()
            let plain = Single().withAnchor()
            var i = 0
            return [
                Variant("ModelKit: m.value = i, recording undo, unbounded stack", baseline: "ModelKit: m.value = i, no undo") { n in
                    let recording = UndoSingle().withAnchor { $0.undoStack = ModelUndoStack(limit: .max) }
                    recording.value = -1
                    let elapsed = measure {
                        for _ in 0..<n {
                            i &+= 1
                            recording.value = i
                        }
                    }
                    return elapsed
                },
                Variant("ModelKit: m.value = i, recording undo (stack at its limit of 100)", baseline: "ModelKit: m.value = i, no undo",
                        target: Target(.baselineRatio(2))) { n in
                    measure {
                        for _ in 0..<n {
                            i &+= 1
                            atLimit.value = i
                        }
                    }
                },
                Variant("ModelKit: m.value = i, no undo") { n in
                    measure {
                        for _ in 0..<n {
                            i &+= 1
                            plain.value = i
                        }
                    }
                },
            ]
        },
        .timed("undo of a one-property entry") {
            [
                Variant("ModelKit: undoStack.undo()", target: Target(.nanoseconds(2_000))) { n in
                    let model = UndoSingle().withAnchor { $0.undoStack = ModelUndoStack(limit: n) }
                    for value in 1...max(n, 1) { model.value = value }
                    let stack = model.node.undoStack
                    let elapsed = measure {
                        for _ in 0..<n { stack.undo() }
                    }
                    blackHole(model.value)
                    return elapsed
                },
            ]
        },
        .measured("memory per undo entry of a one-Int change") { configuration in
            let count = 100_000
            var deltas: [MemoryDelta] = []
            for _ in 0..<(configuration.quick ? 1 : 3) {
                deltas.append(.perModelBuiltTogether(count) {
                    let model = UndoSingle().withAnchor { $0.undoStack = ModelUndoStack(limit: count) }
                    for value in 1...count { model.value = value }
                    return model
                })
            }
            return [
                Row(
                    scenario: "memory per undo entry of a one-Int change", name: "ModelKit: 100,000 entries (malloc)",
                    iterations: count, samples: deltas.map(\.mallocBytes), unit: .bytes, baseline: nil,
                    target: Target(.bytes(200)),
                    note: MemoryDelta.isAvailable ? nil : "n/a: measured on Linux with glibc only"
                ),
            ]
        },
    ]
}
