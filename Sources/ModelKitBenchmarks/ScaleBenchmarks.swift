#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ModelKit

// Round two, scale (issue 16): a million models (time and peak resident memory), and contention
// between two threads writing one hierarchy against each writing its own.

@MainActor
func scaleScenarios() -> [Scenario] {
    [millionModelsScenario(), contentionScenario()]
}

/// Activates and releases a root with 10,000, 100,000 and 1,000,000 children, in the three shapes,
/// and its peak resident memory. `--quick` uses 1,000, 10,000 and 100,000 children, one round.
@MainActor
private func millionModelsScenario() -> Scenario {
    .measured("a million models: activate + release a root with N children") { configuration in
        let sizes = configuration.quick ? [1_000, 10_000, 100_000] : [10_000, 100_000, 1_000_000]
        let rounds = configuration.quick ? 1 : 3
        var rows: [Row] = []
        for shape in allShapes {
            let suffix = shapeSuffix(shape)
            var times = Array(repeating: [Double](), count: sizes.count)
            var peaks: [Double] = []
            for _ in 0..<rounds {
                for (index, size) in sizes.enumerated() {
                    let isLargest = index == sizes.count - 1
                    let peak = PeakMemory.start()
                    times[index].append(activateAndRelease(shape, parents: 1, childrenEach: size).nanoseconds)
                    if isLargest { peaks.append(peak.growth()) }
                }
            }
            let name = { (size: Int) in "ModelKit: \(group(size)) children" + suffix }
            let full = !configuration.quick
            for (index, size) in sizes.enumerated() {
                var target: Target?
                if full && size == 1_000_000 { target = Target(.milliseconds(1_000)) }
                if full && size == 100_000 { target = Target(.ratio(to: name(10_000), 10.5)) }
                rows.append(Row(
                    scenario: "a million models: activate + release a root with N children", name: name(size),
                    iterations: 1, samples: times[index], unit: .nanoseconds,
                    baseline: index == 0 ? nil : name(sizes[0]), target: target
                ))
            }
            rows.append(Row(
                scenario: "a million models: activate + release a root with N children",
                name: "peak resident memory, \(group(sizes.last!)) children" + suffix,
                iterations: 1, samples: peaks, unit: .totalBytes, baseline: nil,
                target: full ? Target(.megabytes(400)) : nil,
                note: PeakMemory.isAvailable
                    ? "growth of VmHWM over the resident set before building the children (Linux)"
                    : "n/a: VmHWM is read on Linux only"
            ))
        }
        return rows
    }
}

/// Two threads each writing `a` of their own child, of one shared hierarchy or of two hierarchies.
/// The row is the throughput of the shared setup over the separate one (1 = no contention cost).
@MainActor
private func contentionScenario() -> Scenario {
    let name = "contention: two threads writing different children"
    return .measured(name) { configuration in
        let writes = configuration.quick ? 50_000 : 500_000
        let rounds = configuration.quick ? 3 : 9
        let shared = Parent.make(children: 2).withAnchor()
        let separate = [Parent.make(children: 2).withAnchor(), Parent.make(children: 2).withAnchor()]
        var sharedTimes: [Double] = [], separateTimes: [Double] = [], ratios: [Double] = []
        for round in 0..<rounds {
            // Interleaved, alternating which goes first.
            var pair: [Double] = [0, 0]
            for step in 0..<2 {
                let sharedFirst = (round + step) % 2 == 0
                let elapsed = sharedFirst
                    ? writeConcurrently(writes) { thread, value in shared.write(child: thread, value) }
                    : writeConcurrently(writes) { thread, value in separate[thread].write(child: 0, value) }
                pair[sharedFirst ? 0 : 1] = elapsed.nanoseconds
            }
            sharedTimes.append(pair[0] / Double(2 * writes))
            separateTimes.append(pair[1] / Double(2 * writes))
            ratios.append(pair[1] / pair[0])
        }
        let separateName = "ModelKit: each thread its own hierarchy"
        return [
            Row(scenario: name, name: "ModelKit: both threads in one hierarchy", iterations: writes,
                samples: sharedTimes, unit: .nanoseconds, baseline: separateName, target: nil,
                note: "ns per write, wall time over both threads' writes"),
            Row(scenario: name, name: separateName, iterations: writes, samples: separateTimes,
                unit: .nanoseconds, baseline: nil, target: nil),
            Row(scenario: name, name: "throughput ratio: one hierarchy / own hierarchies", iterations: writes,
                samples: ratios, unit: .ratio, baseline: nil, target: Target(.atLeast(0.5)),
                note: "under 0.5: see Performance.md, \"Round two: scale\", for a finer lock's cost and gain"),
        ]
    }
}

/// Runs `write(thread, value)` `count` times on each of two threads at once; returns the wall time.
private func writeConcurrently(_ count: Int, _ write: @escaping @Sendable (Int, Int) -> Void) -> Duration {
    measure {
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for value in 0..<count { write(thread, value) }
        }
    }
}

/// The peak resident memory of a piece of work (Linux: VmHWM of /proc/self/status, reset through
/// /proc/self/clear_refs before the work).
struct PeakMemory {
    private let residentBefore: Double

    static var isAvailable: Bool {
        #if os(Linux)
        true
        #else
        false
        #endif
    }

    /// Trims malloc, notes the resident set and resets the high-water mark to it.
    static func start() -> PeakMemory {
        #if os(Linux) && canImport(Glibc)
        Malloc.trim()
        if let file = fopen("/proc/self/clear_refs", "w") {
            fputs("5", file)
            fclose(file)
        }
        return PeakMemory(residentBefore: statusField("VmRSS:"))
        #else
        return PeakMemory(residentBefore: .nan)
        #endif
    }

    /// How far the high-water mark rose above the resident set at `start()`, in bytes.
    func growth() -> Double {
        #if os(Linux) && canImport(Glibc)
        return PeakMemory.statusField("VmHWM:") - residentBefore
        #else
        return .nan
        #endif
    }

    #if os(Linux) && canImport(Glibc)
    /// A `kB` field of /proc/self/status, in bytes.
    private static func statusField(_ name: String) -> Double {
        guard let file = fopen("/proc/self/status", "r") else { return .nan }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard line.hasPrefix(name) else { continue }
            let kilobytes = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) }
            return (kilobytes ?? .nan) * 1024
        }
        return .nan
    }
    #endif
}
