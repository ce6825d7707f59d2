import Foundation
import ModelKit
import ModelKitTesting
import Testing

/// One link of a chain of models, each holding the next as an optional child: a thread of replies,
/// an outline, a navigation stack.
private struct DeepLink: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var value = 0
    @Tracked var next: DeepLink? = nil

    init(id: Int) { self.id = id }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$value)
        r.track(\.$next)
    }
}

/// Holds a chain in an optional slot, so that the top of the chain can be assigned again.
private struct DeepHolder: Model {
    var node = ModelNode<Self>()
    @Tracked var top: DeepLink? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$top)
    }
}

private struct DeepLabelKey: ModelEnvironmentKey { static let defaultValue = "unset" }
private struct DeepCountKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelEnvironmentValues {
    fileprivate var deepLabel: String {
        get { self[DeepLabelKey.self] }
        set { self[DeepLabelKey.self] = newValue }
    }
}

extension ModelPreferenceValues {
    fileprivate var deepCount: Int {
        get { self[DeepCountKey.self] }
        set { self[DeepCountKey.self] = newValue }
    }
}

/// A chain of `depth` new models with ids 0 (the top) to `depth - 1`, built from the bottom up.
private func deepChain(_ depth: Int, value: Int = 0) -> DeepLink {
    var link = DeepLink(id: depth - 1)
    link.value = value
    for id in stride(from: depth - 2, through: 0, by: -1) {
        let parent = DeepLink(id: id)
        parent.value = value
        parent.next = link
        link = parent
    }
    return link
}

/// The links of the chain from `top` down, read without recursion.
private func links(from top: DeepLink) -> [DeepLink] {
    var links = [top]
    while let next = links[links.count - 1].next { links.append(next) }
    return links
}

/// Runs jobs on one thread with a 512 KB stack, the size of the cooperative pool's threads on Apple
/// platforms (Linux gives them 8 MB, as the main thread): code that recurses once per level of a
/// chain overflows it within a few hundred levels.
private final class SmallStackExecutor: TaskExecutor {
    static let shared = SmallStackExecutor()

    private let jobs = Protected<[UnownedJob]>([])
    private let ready = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                ready.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        // Address Sanitizer moves locals to a fake stack and pads every frame with red zones, so an
        // instrumented frame takes several times its size: the library's recursion stays bounded
        // (32 levels), but 512 KB no longer holds 32 instrumented levels of it.
        thread.stackSize = runsUnderAddressSanitizer ? 4 * 1024 * 1024 : 512 * 1024
        thread.name = "DeepHierarchyTests 512 KB"
        thread.start()
    }

    func enqueue(_ job: UnownedJob) {
        jobs.withLock { $0.append(job) }
        ready.signal()
    }
}

/// `body`, run in a task on a thread with a 512 KB stack.
private func onSmallStack(_ body: @Sendable () async throws -> Void) async rethrows {
    try await withTaskExecutorPreference(SmallStackExecutor.shared) {
        try await body()
    }
}

/// Every operation on a chain of models nested 1,000 deep, run on a 512 KB stack (as a `Task` on
/// Apple platforms has): anchoring, tearing down, continuing, and what walks the chain. Each used to
/// recurse once per level (about 5 KB per level in a debug build, so 8 MB held ~1,400 levels and
/// 512 KB under 100).
@Suite struct DeepHierarchyTests {
    static let depth = 1_000

    @Test func anchoringListeningPrintingAndTeardownOfADeepChain() async {
        await onSmallStack {
            let depth = Self.depth
            let original = deepChain(depth)
            var anchored: DeepLink? = original.withAnchor()
            // Walked from the original value, which (unlike `anchored`) does not keep the
            // hierarchy alive.
            let chain = links(from: original)
            #expect(chain.count == depth)
            #expect(chain.allSatisfy { $0.lifetime == .anchored })
            let top = chain[0], bottom = chain[depth - 1]

            // A `modifications` listener and an `onChange` at the top, a write at the bottom.
            let modifications = Protected<[String]>([])
            top.node.forEach(top.node.modifications(of: .descendants)) { modification in
                modifications.withLock { $0 += modification.paths }
            }
            let seen = Protected(0)
            top.node.onChange(of: bottom.value) { _, new in seen.withLock { $0 = new } }
            let printed = Protected<[String]>([])
            let printing = top._printChanges { line in printed.withLock { $0.append(line) } }
            bottom.value = 5
            printing.cancel()
            let path = "DeepLink" + String(repeating: ".next", count: depth - 1) + ".value"
            #expect(printed.withLock { $0 } == ["\(path): 0 → 5"])
            #expect(await eventually { seen.withLock { $0 } == 5 })
            #expect(await eventually { modifications.withLock { $0 } == [path] })

            // Environment down, preferences up.
            top.node.environment.deepLabel = "top"
            #expect(bottom.node.environment.deepLabel == "top")
            bottom.node.preference.deepCount = 2
            chain[depth / 2].node.preference.deepCount = 1
            #expect(top.node.preference.deepCount == 3)

            // Undo of a change at the bottom.
            bottom.node.trackUndo(\.value)
            bottom.value = 9
            top.node.undoStack.undo()
            #expect(bottom.value == 5)

            withExtendedLifetime(anchored) {}
            anchored = nil
            #expect(chain.allSatisfy { $0.lifetime == .destructed })
        }
    }

    /// The walk up to the model that set an environment value stopped after 10,000 levels, and the
    /// bottom read the default.
    @Test func environmentValueReachesMoreThanTenThousandLevelsDown() async {
        await onSmallStack {
            let depth = 10_010
            let original = deepChain(depth)
            let anchored = original.withAnchor()
            anchored.node.environment.deepLabel = "top"
            let bottom = links(from: original)[depth - 1]
            #expect(bottom.node.environment.deepLabel == "top")
        }
    }

    @Test func sameIDReassignmentContinuesEveryLevel() async {
        await onSmallStack {
            let depth = Self.depth
            let holder = DeepHolder().withAnchor()
            holder.top = deepChain(depth)
            let live = links(from: holder.top!)
            holder.top = deepChain(depth, value: 3)
            #expect(live.allSatisfy { $0.lifetime == .anchored && $0.value == 3 })
            #expect(links(from: holder.top!).count == depth)
        }
    }

    @Test func testerAssertsAChangeAtTheBottom() async {
        await onSmallStack {
            let (top, tester) = deepChain(Self.depth).andTester()
            let bottom = links(from: top)[Self.depth - 1]
            bottom.value = 1
            await tester.assert { bottom.value == 1 }
            await tester.finish()
        }
    }
}
