import Foundation
import ModelKit
import ModelKitTesting
import Synchronization

// The app-shaped workload (issue 16): the Standups model tree (StandupsMirror.swift) with 1,000
// standups of 10 attendees, loaded from JSON when it activates, edited 10,000 times at random
// through the models' own methods (a detail's edit form: rename, add or delete an attendee, change
// the length; then save), and saved once by its debounced autosave. Time is end to end; memory is
// the malloc'd bytes the loaded tree holds and the peak resident growth of the whole run.
// `--quick` runs 100 standups and 1,000 edits, so that the workload cannot rot.

@MainActor
func standupsWorkloadScenarios() -> [Scenario] {
    let name = "app-shaped: Standups, load + random edits + debounced autosave"
    return [
        .measured(name) { configuration in
            let standups = configuration.quick ? 100 : 1_000
            let edits = configuration.quick ? 1_000 : 10_000
            let rounds = configuration.quick ? 1 : 3
            var times: [Double] = [], loaded: [Double] = [], peaks: [Double] = []
            for round in 0..<rounds {
                let result = await runStandupsWorkload(standups: standups, attendees: 10, edits: edits, seed: UInt64(round + 1))
                times.append(result.time.nanoseconds)
                loaded.append(result.loadedBytes)
                peaks.append(result.peakBytes)
            }
            let size = "\(group(standups)) standups × 10 attendees, \(group(edits)) edits"
            return [
                Row(scenario: name, name: "ModelKit: end to end, \(size)", iterations: 1, samples: times,
                    unit: .nanoseconds, baseline: nil, target: nil,
                    note: "load (JSON decode + activation), edits through edit forms, one autosave (JSON encode)"),
                Row(scenario: name, name: "malloc'd bytes held by the loaded tree", iterations: 1, samples: loaded,
                    unit: .totalBytes, baseline: nil, target: nil,
                    note: MemoryDelta.isAvailable ? nil : "n/a: measured on Linux with glibc only"),
                Row(scenario: name, name: "peak resident growth of the whole run", iterations: 1, samples: peaks,
                    unit: .totalBytes, baseline: nil, target: nil,
                    note: PeakMemory.isAvailable ? nil : "n/a: VmHWM is read on Linux only"),
            ]
        },
    ]
}

private struct WorkloadResult {
    var time: Duration
    var loadedBytes: Double
    var peakBytes: Double
}

@MainActor
private func runStandupsWorkload(standups count: Int, attendees: Int, edits: Int, seed: UInt64) async -> WorkloadResult {
    var generator = SplitMix(seed: seed)
    let file = try! JSONEncoder().encode((0..<count).map { index in
        Mirror.Standup(
            id: UUID(), attendees: (0..<attendees).map { Mirror.Attendee(id: UUID(), name: "Person \($0)") },
            title: "Standup \(index)"
        )
    })
    let saves = Atomic<Int>(0)
    let savedBytes = Atomic<Int>(0)
    let clock = TestClock()
    let peak = PeakMemory.start()
    let mallocBefore = mallocBytesInUse()
    let start = ContinuousClock.now
    var app: Mirror.AppFeature? = Mirror.AppFeature().withAnchor {
        $0.continuousClock = clock
        $0[Mirror.DataManager.self] = Mirror.DataManager(load: { file }, save: { data in
            savedBytes.store(data.count, ordering: .relaxed)
            saves.add(1, ordering: .relaxed)
        })
    }
    let loadedBytes = mallocBytesInUse() - mallocBefore
    let details = app!.standupsList.standupDetails
    for edit in 0..<edits {
        let detail = details[Int(generator.next() % UInt64(details.count))]
        detail.editButtonTapped()
        guard case .edit(let form, let save, _) = detail.destination else { fatalError("no edit form") }
        switch generator.next() % 4 {
        case 0: form.standup.title = "Edited \(edit)"
        case 1: form.addAttendeeButtonTapped()
        case 2: form.deleteAttendees(atOffsets: [Int(generator.next() % UInt64(form.standup.attendees.count))])
        default: form.standup.duration = .seconds(60 * Int(1 + generator.next() % 30))
        }
        save(form.standup)
    }
    // The autosave waits for a second without changes: move the clock until it has saved.
    while saves.load(ordering: .relaxed) == 0 {
        await clock.advance(by: .seconds(1))
        await Task.yield()
    }
    app = nil
    let time = ContinuousClock.now - start
    precondition(savedBytes.load(ordering: .relaxed) > 0)
    return WorkloadResult(time: time, loadedBytes: loadedBytes, peakBytes: peak.growth())
}

/// A small seeded generator, so that every run makes the same edits.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The bytes malloc has handed out (glibc); NaN elsewhere.
private func mallocBytesInUse() -> Double {
    #if os(Linux) && canImport(Glibc)
    Malloc.bytesInUse()
    #else
    .nan
    #endif
}
