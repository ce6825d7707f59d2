#if canImport(Glibc)
import Glibc
#endif
import ModelKit

// Memory per model, measured over 100,000 models: the growth of the bytes malloc has handed out
// (glibc's `malloc_info` totals) and of the resident set (`/proc/self/statm`, Linux). Models made one
// by one go into an array reserved before the first reading, so the array's own storage is not
// counted; children assigned to one parent are, as part of what holding them costs.

@MainActor
func memoryScenarios() -> [Scenario] {
    let name = "memory per anchored model with two tracked Ints"
    return [
        .measured(name) { configuration in
            let count = 100_000
            var anchored: [MemoryDelta] = [], children: [MemoryDelta] = []
            var unanchored: [MemoryDelta] = [], observable: [MemoryDelta] = []
            // The other two shapes of children (issue 16): explicit Int id, UUID id.
            var intChildren: [MemoryDelta] = [], uuidChildren: [MemoryDelta] = []
            for _ in 0..<(configuration.quick ? 1 : 3) {
                intChildren.append(.perModelBuiltTogether(count) { RowList.make(children: count).withAnchor() })
                uuidChildren.append(.perModelBuiltTogether(count) { UUIDRowList.make(children: count).withAnchor() })
                anchored.append(.perModel(count) { Pair().withAnchor() })
                children.append(.perModelBuiltTogether(count) {
                    let parent = Parent().withAnchor()
                    parent.children = (0..<count).map { _ in Pair() }
                    return parent
                })
                unanchored.append(.perModel(count) { Pair() })
                observable.append(.perModel(count) { ObservablePair() })
            }
            let baseline = "@Observable class with two Ints"
            func row(_ row: String, _ samples: [Double], target: Target? = nil, isBaseline: Bool = false) -> Row {
                Row(
                    scenario: name, name: row, iterations: count, samples: samples, unit: .bytes,
                    baseline: isBaseline ? nil : baseline, target: target,
                    note: MemoryDelta.isAvailable ? nil : "n/a: measured on Linux with glibc only"
                )
            }
            // The target rows: 100,000 models anchored in one hierarchy (an app's models live in one
            // tree). A model anchored as its own root also pays for a hierarchy and an anchor.
            return [
                row("ModelKit: Pair() anchored in one parent's array (malloc)", children.map(\.mallocBytes), target: Target(.bytes(400))),
                row("ModelKit: Pair() anchored in one parent's array (RSS)", children.map(\.residentBytes), target: Target(.bytes(400))),
                row("ModelKit: IdentifiedRow (Int id) anchored in one parent's array (malloc)", intChildren.map(\.mallocBytes), target: Target(.bytes(400))),
                row("ModelKit: IdentifiedRow (Int id) anchored in one parent's array (RSS)", intChildren.map(\.residentBytes)),
                row("ModelKit: UUIDRow (UUID id) anchored in one parent's array (malloc)", uuidChildren.map(\.mallocBytes), target: Target(.bytes(400))),
                row("ModelKit: UUIDRow (UUID id) anchored in one parent's array (RSS)", uuidChildren.map(\.residentBytes)),
                row("ModelKit: Pair().withAnchor(), each its own root (malloc)", anchored.map(\.mallocBytes)),
                row("ModelKit: Pair().withAnchor(), each its own root (RSS)", anchored.map(\.residentBytes)),
                row("ModelKit: Pair(), not anchored (malloc)", unanchored.map(\.mallocBytes)),
                row(baseline, observable.map(\.mallocBytes), isBaseline: true),
            ]
        },
    ]
}

/// How much memory making some models took, per model.
struct MemoryDelta {
    /// Growth of the bytes malloc has handed out, per model; NaN where unavailable.
    var mallocBytes: Double
    /// Growth of the resident set, per model; NaN where unavailable.
    var residentBytes: Double

    static var isAvailable: Bool {
        #if os(Linux) && canImport(Glibc)
        true
        #else
        false
        #endif
    }

    /// Makes `count` models one by one with `make`, holding them in an array.
    static func perModel<T>(_ count: Int, _ make: () -> T) -> MemoryDelta {
        var models: [T] = []
        models.reserveCapacity(count)
        let before = Reading.now()
        for _ in 0..<count { models.append(make()) }
        let after = Reading.now()
        withExtendedLifetime(models) {}
        return MemoryDelta(before, after, count)
    }

    /// Builds something holding `count` models in one go (a parent and its children).
    static func perModelBuiltTogether<T>(_ count: Int, _ build: () -> T) -> MemoryDelta {
        let before = Reading.now()
        let built = build()
        let after = Reading.now()
        withExtendedLifetime(built) {}
        return MemoryDelta(before, after, count)
    }

    private init(_ before: Reading, _ after: Reading, _ count: Int) {
        mallocBytes = (after.mallocBytes - before.mallocBytes) / Double(count)
        residentBytes = (after.residentBytes - before.residentBytes) / Double(count)
    }

    /// One reading of the process's memory.
    private struct Reading {
        var mallocBytes = Double.nan
        var residentBytes = Double.nan

        /// Returns freed memory to the system first, so that new allocations show in the resident set.
        static func now() -> Reading {
            var reading = Reading()
            #if os(Linux) && canImport(Glibc)
            Malloc.trim()
            reading.mallocBytes = Malloc.bytesInUse()
            reading.residentBytes = residentSetBytes()
            #endif
            return reading
        }
    }
}

#if os(Linux) && canImport(Glibc)
/// The resident set in bytes: the second field of `/proc/self/statm`, in pages.
private func residentSetBytes() -> Double {
    guard let file = fopen("/proc/self/statm", "r") else { return .nan }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 128)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return .nan }
    let fields = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
}

/// glibc's malloc statistics. `<malloc.h>` is not part of the `Glibc` module, so its functions are
/// looked up by name; only C-representable signatures are used.
enum Malloc {
    private typealias Trim = @convention(c) (Int) -> Int32
    private typealias Info = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32

    private static func function<F>(_ name: String, as type: F.Type) -> F? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }

    /// `malloc_trim(0)`: gives free pages back to the system.
    static func trim() {
        _ = function("malloc_trim", as: Trim.self)?(0)
    }

    /// The bytes handed out by malloc and not freed (what `mallinfo2` calls `uordblks + hblkhd`),
    /// from the totals `malloc_info` prints: the heap obtained from the system, minus its free chunks
    /// ("fast" and "rest", the latter including the top chunk), plus the separately mapped blocks.
    static func bytesInUse() -> Double {
        guard let info = function("malloc_info", as: Info.self) else { return .nan }
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return .nan }
        let status = info(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard status == 0, let buffer else { return .nan }
        // The process-wide totals follow the per-arena sections, so the last occurrence of each wins.
        var totals: [String: Double] = [:]
        for line in String(cString: buffer).split(separator: "\n") {
            let text = line.trimmingPrefix(while: { $0 == " " })
            guard text.hasPrefix("<total ") || text.hasPrefix("<system ") else { continue }
            guard let type = attribute("type", in: text), let value = attribute("size", in: text).flatMap(Double.init) else {
                continue
            }
            totals[(text.hasPrefix("<total ") ? "total." : "system.") + type] = value
        }
        guard let system = totals["system.current"], let fast = totals["total.fast"],
              let rest = totals["total.rest"], let mapped = totals["total.mmap"]
        else { return .nan }
        return system - fast - rest + mapped
    }

    /// The value of `name="value"` in an XML tag.
    private static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.firstRange(of: name + "=\"")?.upperBound,
              let end = tag[start...].firstIndex(of: "\"")
        else { return nil }
        return String(tag[start..<end])
    }
}
#endif
