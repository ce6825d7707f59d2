/// What a row should achieve, from issue 5. Informational: a missed target never fails the run.
struct Target {
    enum Bound {
        /// The row's value is at most this, in the row's unit (ns or bytes).
        case atMost(Double)
        /// The row's value is at least this, in the row's unit (a throughput ratio).
        case atLeast(Double)
        /// The row's value lies in this range, in the row's unit.
        case between(Double, Double)
        /// The row's value is at most this multiple of its baseline row.
        case baselineRatio(Double)
        /// The row's value is at most this multiple of the named row of the same scenario.
        case ratio(to: String, Double)
    }

    let bounds: [Bound]

    init(_ bounds: Bound...) {
        self.bounds = bounds
    }

    /// Whether every bound holds; nil if one cannot be decided (a row is missing or not measurable).
    func isMet(by value: Double, ratio: Double?, rows: [String: Double]) -> Bool? {
        guard value.isFinite else { return nil }
        var met = true
        for bound in bounds {
            switch bound {
            case .atMost(let limit):
                met = met && value <= limit
            case .atLeast(let limit):
                met = met && value >= limit
            case .between(let low, let high):
                met = met && low <= value && value <= high
            case .baselineRatio(let limit):
                guard let ratio else { return nil }
                met = met && ratio <= limit
            case .ratio(let name, let limit):
                guard let other = rows[name], other > 0 else { return nil }
                met = met && value / other <= limit
            }
        }
        return met
    }

    /// `≤ 2× baseline, ≤ 30 ns`.
    func description(unit: Row.Unit) -> String {
        bounds.map { bound in
            switch bound {
            case .atMost(let limit):
                "≤ \(format(limit, unit))"
            case .atLeast(let limit):
                "≥ \(format(limit, unit))"
            case .between(let low, let high):
                "\(format(low, unit))–\(format(high, unit))"
            case .baselineRatio(let limit):
                "≤ \(compact(limit))× baseline"
            case .ratio(let name, let limit):
                "≤ \(compact(limit))× \(name)"
            }
        }.joined(separator: ", ")
    }
}

/// Sets a target with the units it is written in.
extension Target.Bound {
    static func nanoseconds(_ value: Double) -> Self { .atMost(value) }
    static func microseconds(_ value: Double) -> Self { .atMost(value * 1e3) }
    static func milliseconds(_ value: Double) -> Self { .atMost(value * 1e6) }
    static func bytes(_ value: Double) -> Self { .atMost(value) }
    static func megabytes(_ value: Double) -> Self { .atMost(value * 1e6) }
}
