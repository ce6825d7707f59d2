import ModelKit

/// What the stress hierarchy's models report as they live: activations, teardowns, events received,
/// task bodies running. Every broken invariant it sees is kept as a violation, with what happened.
final class StressJournal: Sendable {
    private struct State {
        var activations: [String: Int] = [:]
        var teardowns: [String: Int] = [:]
        var downReceived: [String: [Int]] = [:]
        var upReceived: [String: [Int]] = [:]
        var runningTasks: [String: Int] = [:]
        var startedTasks = 0
        var violations: [String] = []
    }

    private let state = Protected(State())

    func activated(_ id: String) {
        state.withLock { state in
            state.activations[id, default: 0] += 1
            if state.activations[id]! > 1 { state.violations.append("\(id) activated twice") }
            if state.teardowns[id] != nil { state.violations.append("\(id) activated after its teardown") }
        }
    }

    func tornDown(_ id: String) {
        state.withLock { state in
            state.teardowns[id, default: 0] += 1
            if state.teardowns[id]! > 1 { state.violations.append("\(id) torn down twice") }
            if state.activations[id] == nil { state.violations.append("\(id) torn down but never activated") }
        }
    }

    /// A `Down` event reached row `id`; each sequence number must reach it once.
    func receivedDown(_ sequence: Int, at id: String) {
        state.withLock { state in
            if state.downReceived[id]?.contains(sequence) == true {
                state.violations.append("\(id) received down event \(sequence) twice")
            }
            state.downReceived[id, default: []].append(sequence)
        }
    }

    /// An `up` event from `sender` reached the root; each sender's sequence numbers must arrive once
    /// and in order.
    func receivedUp(_ sequence: Int, from sender: String) {
        state.withLock { state in
            if let last = state.upReceived[sender]?.last, last >= sequence {
                state.violations.append("root received up event \(sequence) from \(sender) after \(last)")
            }
            state.upReceived[sender, default: []].append(sequence)
        }
    }

    func taskStarted(_ id: String) {
        state.withLock { state in
            state.runningTasks[id, default: 0] += 1
            state.startedTasks += 1
        }
    }

    func taskEnded(_ id: String) {
        state.withLock { $0.runningTasks[id, default: 0] -= 1 }
    }

    func violation(_ description: String) {
        state.withLock { $0.violations.append(description) }
    }

    var violations: [String] { state.withLock { $0.violations } }
    var activations: [String: Int] { state.withLock { $0.activations } }
    var teardowns: [String: Int] { state.withLock { $0.teardowns } }
    var startedTasks: Int { state.withLock { $0.startedTasks } }
    var upCount: Int { state.withLock { $0.upReceived.values.map(\.count).reduce(0, +) } }

    func downReceived(at id: String) -> [Int] {
        state.withLock { $0.downReceived[id] ?? [] }
    }

    /// The ids with task bodies still running.
    var idsWithRunningTasks: [String] {
        state.withLock { $0.runningTasks.filter { $0.value != 0 }.keys.sorted() }
    }
}

/// A `Down` event, sent by the root to its descendants.
struct StressDown: Sendable {
    let sequence: Int
}

/// The root of the stress hierarchy: two balances moved in transactions, rows, a shelf on which
/// rows are shared, and a featured row replaced by new instances.
struct StressRoot: Model {
    var node = ModelNode<Self>()
    let journal: StressJournal
    @Tracked var credit = 0
    @Tracked var debit = 0
    @Tracked var rows: [StressRow] = []
    @Tracked var shelf: [StressRow] = []
    @Tracked var featured: StressRow? = nil

    func onActivate() {
        node.forEach(node.event(fromType: StressRow.self)) { [journal] event, _ in
            if case .up(let sender, let sequence) = event { journal.receivedUp(sequence, from: sender) }
        }
    }

    /// The live row with `id` among the rows, the shelf and the featured row. Call it inside a
    /// transaction to act on the row before another thread removes it.
    func row(_ id: String) -> StressRow? {
        rows.first { $0.id == id } ?? shelf.first { $0.id == id } ?? featured.flatMap { $0.id == id ? $0 : nil }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("credit", \.$credit)
        r.track("debit", \.$debit)
        r.track("rows", \.$rows)
        r.track("shelf", \.$shelf)
        r.track("featured", \.$featured)
    }
}

/// A row of the stress hierarchy, identified by a name: a new instance with the same name continues
/// it. Its `onActivate` logs its life and starts work that runs until it is removed.
struct StressRow: Model {
    enum Event: Sendable {
        case up(sender: String, sequence: Int)
    }

    var node = ModelNode<Self>()
    let id: String
    let journal: StressJournal
    @Tracked var value = 0
    @Tracked var kids: [StressRow] = []

    init(_ id: String, journal: StressJournal, kids: [StressRow] = []) {
        self.id = id
        self.journal = journal
        _kids = Tracked(wrappedValue: kids)
    }

    func onActivate() {
        journal.activated(id)
        node.onCancel { [journal, id] in journal.tornDown(id) }
        node.forEach(node.event(ofType: StressDown.self)) { [journal, id] down in
            journal.receivedDown(down.sequence, at: id)
        }
        node.task { [journal, id] in
            journal.taskStarted(id)
            await waitForCancellation()
            journal.taskEnded(id)
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("value", \.$value)
        r.track("kids", \.$kids)
    }
}
