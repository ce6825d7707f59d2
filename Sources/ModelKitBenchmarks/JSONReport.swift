import Foundation

/// The results as JSON (`--json PATH`): the same numbers as the table, plus every round's sample.
///
/// ```json
/// { "mode": "full", "rounds": 9, "results": [
///   { "scenario": "tracked write, no observer", "name": "ModelKit: m.a = i", "unit": "ns/op",
///     "ns_per_op": 46.1, "iterations": 2000000, "samples": [45.9, …], "baseline": "@Observable: o.a = i",
///     "ratio": 1.12, "target": "≤ 2× baseline, ≤ 60 ns", "met": true } ] }
/// ```
struct JSONReport: Encodable {
    struct Entry: Encodable {
        let scenario: String
        let name: String
        let unit: String
        /// The median, for time rows.
        let nsPerOp: Double?
        /// The median, for memory rows.
        let bytesPerModel: Double?
        /// The median, for rows of other units (peak bytes, a ratio).
        let value: Double?
        let iterations: Int
        let samples: [Double]
        let spread: Double
        let baseline: String?
        let ratio: Double?
        let target: String?
        let met: Bool?
        let note: String?
    }

    let mode: String
    let rounds: Int
    let sampleTimeMilliseconds: Double
    let results: [Entry]

    init(_ results: [Result], configuration: Configuration) {
        mode = configuration.quick ? "quick" : "full"
        rounds = configuration.rounds
        sampleTimeMilliseconds = configuration.sampleTime.nanoseconds / 1e6
        self.results = results.map { result in
            let row = result.row
            let value = row.value.isFinite ? row.value : nil
            return Entry(
                scenario: row.scenario, name: row.name, unit: row.unit.rawValue,
                nsPerOp: row.unit == .nanoseconds ? value : nil,
                bytesPerModel: row.unit == .bytes ? value : nil,
                value: row.unit == .totalBytes || row.unit == .ratio ? value : nil,
                iterations: row.iterations, samples: row.samples.filter(\.isFinite),
                spread: row.spread.isFinite ? row.spread : 0,
                baseline: row.baseline, ratio: result.ratio.flatMap { $0.isFinite ? $0 : nil },
                target: row.target?.description(unit: row.unit), met: result.met, note: row.note
            )
        }
    }

    /// Writes the report to `path`; prints why and returns false if it cannot.
    func write(to path: String) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        do {
            try encoder.encode(self).write(to: URL(fileURLWithPath: path))
            return true
        } catch {
            printError("ModelKitBenchmarks: could not write \(path): \(error)")
            return false
        }
    }
}
