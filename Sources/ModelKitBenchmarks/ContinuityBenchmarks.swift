import ModelKit

// Same-id continuity: refreshing a list from new instances with the ids of its live children (the
// "reload from the server" pattern), against writing the one changed value of each child directly.
// The new instances are built before the clock starts, as a decoder would have built them.

@MainActor
func continuityScenarios() -> [Scenario] {
    [
        .timed("refresh 500 children from new instances with their ids") {
            let count = 500
            let list = RowList().withAnchor()
            list.rows = (0..<count).map { IdentifiedRow(id: $0) }
            var round = 0
            let baseline = "500 plain writes: rows[i].a = v"
            return [
                Variant(
                    "ModelKit: list.rows = 500 new instances, one changed value each", baseline: baseline,
                    target: Target(.baselineRatio(2))
                ) { n in
                    let batches = (0..<n).map { _ in
                        round += 1
                        return (0..<count).map { [round] in IdentifiedRow(id: $0, a: round) }
                    }
                    return measure {
                        for batch in batches { list.rows = batch }
                    }
                },
                Variant(
                    "ModelKit: the same, in reverse order each time", baseline: baseline,
                    note: "the fallback: every child matched by id, through the slot's index"
                ) { n in
                    let ascending = (0..<count).map { $0 }
                    let batches = (0..<n).map { index in
                        round += 1
                        let ids = index % 2 == 0 ? Array(ascending.reversed()) : ascending
                        return ids.map { [round] in IdentifiedRow(id: $0, a: round) }
                    }
                    let elapsed = measure {
                        for batch in batches { list.rows = batch }
                    }
                    // The other rows expect the children in ascending order.
                    if list.rows.first?.id != 0 {
                        round += 1
                        list.rows = ascending.map { [round] in IdentifiedRow(id: $0, a: round) }
                    }
                    return elapsed
                },
                Variant(baseline) { n in
                    let live = list.rows
                    return measure {
                        for _ in 0..<n {
                            round += 1
                            for row in live { row.a = round }
                        }
                    }
                },
            ]
        },
    ]
}
