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

    /// One change per property: the first old value and the last new value, in first-write order.
    static func coalesced(_ changes: [PendingChange]) -> [PendingChange] {
        var result: [PendingChange] = []
        var positions: [Key: Int] = [:]
        for change in changes {
            let key = Key(context: ObjectIdentifier(change.context), index: change.index)
            if let position = positions[key] {
                if change.isTouch {
                    result[position].isTouch = true
                } else {
                    // A touch carries no values: the first real change's old value counts.
                    // (So does a derived change of an environment value or preference.)
                    if result[position].old == nil { result[position].old = change.old }
                    if change.new != nil || result[position].old == nil { result[position].new = change.new }
                }
            } else {
                positions[key] = result.count
                result.append(change)
            }
        }
        return result
    }

    private struct Key: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }
}

/// Something to do once a section's lock is released. Two words and a tag: a section that anchors
/// many models queues an activation for each, and an unboxed issue would make every entry ~90 bytes.
enum SectionAction {
    case activate(Context, [@Sendable (Any) -> Void])
    case teardown(TeardownBatch)
    indirect case issue(ModelIssue)
    case run(@Sendable () -> Void)
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
        for action in actions {
            switch action {
            case .activate(let context, let handlers):
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

    mutating func append(_ context: Context, _ index: Int) {
        if first == nil {
            first = (context, index)
        } else {
            others.append((context, index))
        }
    }

    /// Notifies each changed property once.
    func notifyObservation() {
        guard let first else { return }
        if others.isEmpty {
            first.context.notifyObservation(first.index)
            return
        }
        var notified = Set<Key>()
        for (context, index) in CollectionOfOne(first) + others
        where notified.insert(Key(context: ObjectIdentifier(context), index: index)).inserted {
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
    case property(PropertyObserver, AnyObject)
    case event(EventListener, Any, Any)
    case run(@Sendable () -> Void)

    /// Performs `items` in order, leaving the array empty (its capacity kept). Each delivery is
    /// moved out rather than copied, which would retain and release its payload once more.
    static func performAll(_ items: inout [Delivery]) {
        items.reverse()
        while let delivery = items.popLast() {
            delivery.perform()
        }
    }

    func perform() {
        switch self {
        case .property(let observer, let value):
            observer.deliver(value)
        case .event(let listener, let event, let sender):
            listener.deliver(event, sender)
        case .run(let body):
            body()
        }
    }
}
