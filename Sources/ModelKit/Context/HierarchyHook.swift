/// A tool observing a hierarchy's changes and events (change printing, the Tester).
package protocol HierarchyHook: AnyObject, Sendable {
    /// A committed change. Called under the hierarchy lock: record it, do nothing else.
    func record(_ change: ChangeRecord)
    /// A sent event. Called under the hierarchy lock: record it, do nothing else.
    func record(_ event: EventRecord)
    /// Called on the committing thread after the lock is released.
    func didCommit()
}

extension HierarchyHook {
    package func record(_ event: EventRecord) {}
}

/// One committed change of one tracked property.
package struct ChangeRecord: @unchecked Sendable {
    // Safety: immutable; `context` is only used to match models, the values only to print.
    let context: Context
    package let index: Int
    /// `AppModel.counters[0].counter`: the model's path from its hierarchy's root.
    package let path: String
    package let property: String
    package let old: Any
    package let new: Any

    /// `AppModel.counters[0].counter.count`.
    package var propertyPath: String { "\(path).\(property)" }

    /// Identifies the changed model (its context) for matching with recorded reads.
    package var contextID: ObjectIdentifier { ObjectIdentifier(context) }

    /// Whether the changed model was removed (or its hierarchy torn down) since: its `path` may now
    /// lead to another model. Takes the hierarchy's lock.
    package var modelWasRemoved: Bool {
        context.hierarchy.lock.withShortLock { !context.state.isLive }
    }
}

/// One sent event.
package struct EventRecord: @unchecked Sendable {
    // Safety: immutable.
    let sender: Context
    package let event: Any
    package let path: String

    package var senderID: ObjectIdentifier { ObjectIdentifier(sender) }

    /// Whether the sender was removed (or its hierarchy torn down) since: its `path` may now lead
    /// to another model. Takes the hierarchy's lock.
    package var senderWasRemoved: Bool {
        sender.hierarchy.lock.withShortLock { !sender.state.isLive }
    }
}
