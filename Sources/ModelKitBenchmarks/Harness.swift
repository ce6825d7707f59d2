import Synchronization

// The measuring machinery: calibration, interleaved rounds, medians, timing, and the sink that
// keeps the optimizer from deleting the work being measured.

/// Runs scenarios: calibrates each variant, then measures all of a scenario's variants in
/// interleaved rounds (the order rotating each round) and keeps the median per variant.
@MainActor
struct Runner {
    let configuration: Configuration

    /// Runs the scenarios (and rows) the filter selects.
    func run(_ scenarios: [Scenario], progress: (String) -> Void) async -> [Result] {
        var results: [Result] = []
        for scenario in scenarios where configuration.includes(scenario: scenario.name) {
            progress(scenario.name)
            let rows: [Row]
            switch scenario.kind {
            case .timed(let makeVariants, let policy):
                let teardown = Teardown()
                let variants = makeVariants(teardown).filter { configuration.includes(row: $0.name) }
                rows = await measureInterleaved(scenario.name, variants, policy)
                await teardown.run()
            case .measured(let body):
                rows = await body(configuration).filter { configuration.includes(row: $0.name) }
            }
            results += evaluate(rows)
        }
        return results
    }

    private func measureInterleaved(_ scenario: String, _ variants: [Variant], _ policy: IterationPolicy) async -> [Row] {
        var iterations: [Int] = []
        for variant in variants {
            iterations.append(await calibrate(variant, policy))
        }
        var samples = Array(repeating: [Double](), count: variants.count)
        for round in 0..<configuration.rounds {
            for offset in variants.indices {
                let index = (offset + round) % variants.count
                let elapsed = await variants[index].run(iterations[index])
                samples[index].append(elapsed.nanoseconds / Double(iterations[index]))
            }
        }
        return variants.indices.map { index in
            Row(
                scenario: scenario, name: variants[index].name, iterations: iterations[index],
                samples: samples[index], unit: .nanoseconds,
                baseline: variants[index].baseline, target: variants[index].target, note: variants[index].note
            )
        }
    }

    /// The iteration count that makes one sample last about the configured sample time.
    ///
    /// Each step keeps the faster of two runs, so that one interruption on a busy machine does not
    /// stop the growth early.
    private func calibrate(_ variant: Variant, _ policy: IterationPolicy) async -> Int {
        switch policy {
        case .fixed(let count):
            return count
        case .calibrated(let maximum):
            // The first run warms up lazy state (type metadata, registration, caches).
            _ = await variant.run(1)
            if let fixed = configuration.iterations { return min(fixed, maximum) }
            let goal = configuration.sampleTime.nanoseconds
            var count = 1
            while count < maximum {
                let first = await variant.run(count).nanoseconds
                let elapsed = min(first, await variant.run(count).nanoseconds)
                guard elapsed < goal else { break }
                let factor = elapsed > 0 ? goal / elapsed * 1.1 : 100
                count = min(maximum, Int(Double(count) * min(100, max(2, factor))))
            }
            return count
        }
    }

    /// Attaches ratios and verdicts; a row's baseline is looked up among the same scenario's rows.
    private func evaluate(_ rows: [Row]) -> [Result] {
        let values = Dictionary(rows.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        return rows.map { row in
            let baselineValue = row.baseline.flatMap { values[$0] }
            let ratio = baselineValue.map { row.value / $0 }
            let met = row.target?.isMet(by: row.value, ratio: ratio, rows: values)
            return Result(row: row, ratio: ratio, met: met)
        }
    }
}

// MARK: - Timing

/// Times `body` with the continuous clock.
@inline(__always)
func measure(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}

/// Times an asynchronous `body` with the continuous clock.
@inline(__always)
func measure(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void) async rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    return clock.now - start
}

/// Keeps the CPU busy for `duration`: stands in for a small amount of real work.
func spin(for duration: Duration) {
    let clock = ContinuousClock()
    let deadline = clock.now + duration
    var counter = 0
    while clock.now < deadline {
        counter &+= 1
    }
    blackHole(counter)
}

extension Duration {
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

// MARK: - Keeping work alive

/// Where ``blackHole(_:)`` publishes the address of what it is given.
private let sink = Atomic<UInt>(0)

/// Consumes `value` opaquely, so that the optimizer must compute it.
///
/// The value's address is published through an atomic, which the optimizer has to assume someone
/// reads; so the value must exist in memory and the work producing it cannot be deleted. Loops
/// accumulate a checksum and hand it here once per sample, which keeps the per-iteration cost out of
/// the measurement.
@inline(never)
func blackHole<T>(_ value: T) {
    withUnsafePointer(to: value) { pointer in
        sink.store(UInt(bitPattern: pointer), ordering: .relaxed)
    }
}

/// A thread-safe counter, for handlers that run on other threads.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    func increment() {
        count.add(1, ordering: .releasing)
    }

    /// Returns once the count reaches `target`, yielding while it waits. Gives up after `limit`,
    /// saying so on standard error, so that a lost delivery shows as a huge time instead of a hang.
    @MainActor
    func wait(until target: Int, limit: Duration = .seconds(10)) async {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while value < target {
            guard clock.now < deadline else {
                printError("ModelKitBenchmarks: gave up waiting after \(limit): \(value) of \(target) deliveries arrived")
                return
            }
            await Task.yield()
        }
    }
}
