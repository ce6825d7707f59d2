// What the benchmarks are made of: scenarios of variants, and the rows they produce.

/// One way of doing a scenario's work: ModelKit's, or a baseline's.
///
/// `run(n)` does the work `n` times and returns how long the timed part took. Setup that must not
/// be timed (building models for the sample) happens inside `run` before it starts the clock; use
/// ``measure(_:)`` for the timed part.
struct Variant {
    let name: String
    /// The row this one is compared to in the "vs" column, if any.
    let baseline: String?
    let target: Target?
    /// A remark printed under the row.
    let note: String?
    let run: @MainActor (_ iterations: Int) async -> Duration

    init(
        _ name: String, baseline: String? = nil, target: Target? = nil, note: String? = nil,
        run: @escaping @MainActor (_ iterations: Int) async -> Duration
    ) {
        self.name = name
        self.baseline = baseline
        self.target = target
        self.note = note
        self.run = run
    }
}

/// How many times a variant repeats its work per sample.
enum IterationPolicy {
    /// Grows the count until a sample takes the configured sample time, up to `max`.
    case calibrated(max: Int)
    /// Always this many (for work that takes a known, long time, such as a timeout).
    case fixed(Int)

    static let calibrated = IterationPolicy.calibrated(max: 50_000_000)
}

/// A group of rows measured together.
struct Scenario {
    enum Kind {
        /// Variants timed in interleaved rounds. They are made when the scenario runs, so that the
        /// models they use live only meanwhile; what they register on the ``Teardown`` runs after.
        case timed(@MainActor (Teardown) -> [Variant], IterationPolicy)
        /// Rows measured some other way (memory), produced directly.
        case measured(@MainActor (Configuration) async -> [Row])
    }

    let name: String
    let kind: Kind

    static func timed(
        _ name: String, iterations: IterationPolicy = .calibrated,
        _ makeVariants: @escaping @MainActor () -> [Variant]
    ) -> Scenario {
        Scenario(name: name, kind: .timed({ _ in makeVariants() }, iterations))
    }

    /// Timed variants that leave something to end afterwards (a stream consumer).
    static func timedWithTeardown(
        _ name: String, iterations: IterationPolicy = .calibrated,
        _ makeVariants: @escaping @MainActor (Teardown) -> [Variant]
    ) -> Scenario {
        Scenario(name: name, kind: .timed(makeVariants, iterations))
    }

    static func measured(_ name: String, _ body: @escaping @MainActor (Configuration) async -> [Row]) -> Scenario {
        Scenario(name: name, kind: .measured(body))
    }
}

/// What a scenario leaves to do once its variants have been measured.
@MainActor
final class Teardown {
    private var actions: [@MainActor () async -> Void] = []

    func add(_ action: @escaping @MainActor () async -> Void) {
        actions.append(action)
    }

    func run() async {
        for action in actions { await action() }
        actions = []
    }
}

/// The measured result of one variant.
struct Row {
    enum Unit: String {
        case nanoseconds = "ns/op"
        case bytes = "bytes/model"
        /// A whole measurement's bytes (peak resident memory), shown in MB.
        case totalBytes = "bytes"
        /// A dimensionless ratio (throughput of one setup over another's).
        case ratio = "ratio"
    }

    let scenario: String
    let name: String
    /// Iterations per sample.
    let iterations: Int
    /// One value per round, in the row's unit.
    let samples: [Double]
    let unit: Unit
    let baseline: String?
    let target: Target?
    var note: String? = nil

    /// The median of the samples.
    var value: Double { median(samples) }

    /// (max − min) / median of the samples; 0 for a single sample.
    var spread: Double {
        guard let low = samples.min(), let high = samples.max(), value > 0 else { return 0 }
        return (high - low) / value
    }
}

/// A measured row with its comparison and verdict.
struct Result {
    let row: Row
    /// `row.value` divided by its baseline row's value.
    let ratio: Double?
    /// Whether the row meets its target; nil without a target or when it cannot be measured.
    let met: Bool?
}
