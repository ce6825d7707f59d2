/// A write waiting for its section to end.
struct PendingChange {
    let context: Context
    let index: Int
    /// Boxed values, present when a hook listens.
    var old: Any?
    var new: Any?
    /// Not a change but a touch (`node.touch`): observers see the current value again, hooks see
    /// nothing.
    var isTouch = false

    /// Leaves one change per property: the first old value and the last new value, in first-write
    /// order. Most sections change each property once (a refresh changes hundreds, once each), and
    /// are left as they are after a linear check; `stamp` is a fresh reconciliation stamp, with
    /// which the check marks the contexts it meets (no pass is under way at a commit). Caller
    /// holds the lock.
    static func coalesce(_ changes: inout [PendingChange], stamp: UInt64) {
        if mayRepeat(changes, stamp: stamp) { changes = coalesced(changes) }
    }

    /// Whether some property may appear twice in `changes`: a context's changes are checked against
    /// each other while they follow one another (as a continued model's do), and a context met
    /// again after another one's counts as a repeat.
    private static func mayRepeat(_ changes: [PendingChange], stamp: UInt64) -> Bool {
        var current: ObjectIdentifier?
        var indices: UInt64 = 0
        // Safety: `changes` keeps each context alive: they are used unretained.
        return changes.withUnsafeBufferPointer { changes in
            for position in changes.indices {
                let index = changes[position].index
                guard UInt(bitPattern: index) < 64 else { return true }
                let bit: UInt64 = 1 << UInt64(index)
                let context = Unmanaged.passUnretained(changes[position].context)
                if ObjectIdentifier(context.takeUnretainedValue()) == current {
                    if indices & bit != 0 { return true }
                    indices |= bit
                } else {
                    if context._withUnsafeGuaranteedRef({ $0.isKept(in: stamp) }) { return true }
                    context._withUnsafeGuaranteedRef { $0.keep(in: stamp) }
                    current = ObjectIdentifier(context.takeUnretainedValue())
                    indices = bit
                }
            }
            return false
        }
    }

    /// One change per property: the first old value and the last new value, in first-write order.
    static func coalesced(_ changes: [PendingChange]) -> [PendingChange] {
        var result: [PendingChange] = []
        // Up to `scanned` distinct changes (a write and what it derived), a repeat is found by a
        // scan of those so far; past them, through a dictionary of positions built once.
        let scanned = 8
        var positions: [Key: Int] = [:]
        func position(of key: Key) -> Int? {
            if result.count <= scanned {
                return result.firstIndex { ObjectIdentifier($0.context) == key.context && $0.index == key.index }
            }
            if positions.isEmpty {
                for (position, change) in result.enumerated() {
                    positions[Key(context: ObjectIdentifier(change.context), index: change.index)] = position
                }
            }
            return positions[key]
        }
        // Whether each change of `result` may have ended where it began: only one that took a later
        // write carrying values (a single write of an equal value is no change already), and merged
        // no derived change (an environment value or fold changed below, carrying no values, while
        // the model's own value ended where it began, is still a change).
        var states: [MergeState] = []
        for change in changes {
            let key = Key(context: ObjectIdentifier(change.context), index: change.index)
            if let position = position(of: key) {
                if states[position] != .excluded {
                    if !change.isTouch && (change.new == nil || result[position].new == nil) {
                        states[position] = .excluded
                    } else if change.new != nil {
                        states[position] = .merged
                    }
                }
                if change.isTouch {
                    result[position].isTouch = true
                } else {
                    // A touch carries no values: the first real change's old value counts.
                    // (So does a derived change of an environment value or preference.)
                    if result[position].old == nil { result[position].old = change.old }
                    if change.new != nil || result[position].old == nil { result[position].new = change.new }
                }
            } else {
                if !positions.isEmpty { positions[key] = result.count }
                result.append(change)
                states.append(.single)
            }
        }
        return withoutNetZeroChanges(result, candidates: states.map { $0 == .merged })
    }

    /// `changes` without the properties written back to the value they had (`value = 1; value = 0`
    /// in one transaction): no observer, hook, `modifications` stream or undo entry hears of them.
    /// Told only where the values were recorded (a hook or a `modifications` stream listens, or
    /// undo tracks the property) and are `Equatable`. `candidates`: whether each change may be one.
    private static func withoutNetZeroChanges(_ changes: [PendingChange], candidates: [Bool]) -> [PendingChange] {
        var netZero = candidates
        var any = false
        for position in changes.indices where candidates[position] {
            let change = changes[position]
            // A contribution's values are not the fold a reader sees: a contribution set back to
            // where it was leaves the fold changed if anything below changed meanwhile.
            guard !change.isTouch, KeyedKind.of(change.index) != .preference, let old = change.old, let new = change.new
            else {
                netZero[position] = false
                continue
            }
            netZero[position] = valuesAreEqual(old, new) == true
            any = any || netZero[position]
        }
        guard any else { return changes }
        return changes.indices.filter { !netZero[$0] }.map { changes[$0] }
    }

    /// What `coalesced` knows of a change: written once, merged with later writes carrying values,
    /// or merged with a derived change (never net-zero).
    private enum MergeState {
        case single
        case merged
        case excluded
    }

    private struct Key: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }
}

/// Something to do once a section's lock is released. One word: a section that anchors many models
/// queues an activation for each (8 bytes each for a million children, instead of 24 with the
/// handlers, a teardown batch or a closure inline), so every other case is boxed.
enum SectionAction {
    case activate(Context)
    /// An activation with `withActivation` handlers.
    indirect case activateWithHandlers(Context, [@Sendable (Any) -> Void])
    indirect case teardown(TeardownBatch)
    indirect case issue(ModelIssue)
    indirect case run(@Sendable () -> Void)
}

extension SectionAction {
    /// Performs an `activate` or `activateWithHandlers` action (nothing for the others).
    @inline(__always)
    borrowing func performActivation() {
        switch self {
        case .activate(let context):
            context.activate([])
        case .activateWithHandlers(let context, let handlers):
            context.activate(handlers)
        default:
            break
        }
    }
}

/// The work a section leaves for after its lock is released.
struct SectionWork {
    var notifications = NotificationList()
    var committedHooks: [any HierarchyHook] = []
    var actions: [SectionAction] = []
    /// The section's stream deliveries, performed after the notifications, in commit order.
    var deliveries = SectionDeliveries.none

    consuming func perform(_ hierarchy: Hierarchy) {
        notifications.notifyObservation()
        // Hooks (change printing, the Tester) hear of the commit before streams deliver it, so that
        // a change is printed before any work that waited for it goes on.
        for hook in committedHooks { hook.didCommit() }
        var deliveries = SectionDeliveries.none
        swap(&deliveries, &self.deliveries)
        switch consume deliveries {
        case .none: break
        case .direct(let items): hierarchy.deliverDirectly(items)
        case .queued(let ticket): hierarchy.deliver(ticket: ticket)
        }
        // Moved out one by one (in order), rather than copied and destroyed with the list.
        var actions = actions
        self.actions = []
        actions.reverse()
        while let action = actions.popLast() {
            switch consume action {
            case .activate(let context):
                context.activate([])
            case .activateWithHandlers(let context, let handlers):
                context.activate(handlers)
            case .teardown(let batch):
                batch.perform()
            case .issue(let issue):
                hierarchy.report(issue)
            case .run(let body):
                body()
            }
        }
    }
}

/// The properties a section changed, to notify Observation of once the lock is released. The
/// first is stored inline: most sections change one property.
struct NotificationList {
    private var first: (context: Context, index: Int)?
    private var others: [(context: Context, index: Int)] = []
    /// Whether a property may be listed twice: each commit's changes are coalesced, so only a
    /// section that commits more than once lists a property twice.
    private var mayRepeat = false

    /// Lists the properties of one commit's coalesced changes.
    mutating func append(contentsOf changes: [PendingChange]) {
        if first != nil { mayRepeat = true }
        for position in changes.indices {
            append(changes[position].context, changes[position].index)
        }
    }

    private mutating func append(_ context: Context, _ index: Int) {
        if first == nil {
            first = (context, index)
        } else {
            others.append((context, index))
        }
    }

    /// Notifies each changed property once.
    func notifyObservation() {
        guard let first else { return }
        first.context.notifyObservation(first.index)
        if others.isEmpty { return }
        if !mayRepeat {
            for position in others.indices {
                others[position].context.notifyObservation(others[position].index)
            }
            return
        }
        // A few changes (a write and the memoized values it moved): a scan of those before each
        // finds a repeat without hashing; a long list is deduplicated through a set.
        if others.count <= 8 {
            for position in others.indices {
                let (context, index) = others[position]
                if context === first.context && index == first.index { continue }
                if others[..<position].contains(where: { $0.context === context && $0.index == index }) { continue }
                context.notifyObservation(index)
            }
            return
        }
        var notified: Set<Key> = [Key(context: ObjectIdentifier(first.context), index: first.index)]
        for (context, index) in others where notified.insert(Key(context: ObjectIdentifier(context), index: index)).inserted {
            context.notifyObservation(index)
        }
    }

    private struct Key: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }
}

/// How a committed section's deliveries reach their streams.
enum SectionDeliveries {
    case none
    /// Nothing was queued before them: the section's thread drains, starting with these.
    case direct([Delivery])
    /// Queued behind earlier sections' deliveries, under this ticket.
    case queued(ticket: UInt64)
}

/// The stream deliveries of one committed section.
struct DeliveryBatch {
    let ticket: UInt64
    var items: [Delivery]
    var isReady = false
}

/// A queued stream delivery.
enum Delivery {
    case property(PropertyObserver, ObservedPayload)
    case event(EventListener, Any, Any)
    case run(@Sendable () -> Void)

    /// Performs `items` in order, leaving the array empty (its capacity kept). Each delivery is
    /// moved out rather than copied, which would retain and release its payload once more.
    static func performAll(_ items: inout [Delivery]) {
        items.reverse()
        while let delivery = items.popLast() {
            (consume delivery).perform()
        }
    }

    /// Consumes the delivery, so that its payload is moved to the receiver rather than copied.
    consuming func perform() {
        switch consume self {
        case .property(let observer, let value):
            observer.deliver(value)
        case .event(let listener, let event, let sender):
            listener.deliver(event, sender)
        case .run(let body):
            body()
        }
    }
}
