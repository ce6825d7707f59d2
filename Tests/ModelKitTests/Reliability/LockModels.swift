import ModelKit

/// The start of every report of the debug lock-order check (`LockOrder` in Internal/Protected.swift).
let lockOrderMarker = "A model of another hierarchy was used"

/// Runs a closure when it is freed: a tracked value whose `deinit` uses models.
final class DeinitCallback: Sendable {
    private let onDeinit: @Sendable () -> Void

    init(_ onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

/// A value whose `==` runs user code: it is called while the hierarchy is locked for the write.
struct CallbackEquatable: Sendable, Equatable {
    var number: Int
    let onCompare: @Sendable () -> Void

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.onCompare()
        rhs.onCompare()
        return lhs.number == rhs.number
    }
}

/// A custom container whose `visit` runs user code: it is called while the hierarchy is locked to
/// reconcile the slot.
struct CallbackSlot: ModelContainer, Sendable {
    var item: LockItem?
    let onVisit: @Sendable () -> Void

    func visit(_ visitor: inout ContainerVisitor) {
        onVisit()
        visitor.visit(item)
    }
}

/// The model of the deadlock and lock-order tests: plain values, a list, children of every kind
/// used here, and values whose `==`, `visit`, `id` and `deinit` run user code.
struct LockItem: Model {
    enum Event: Sendable {
        case poke(Int)
    }

    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var mirror = 0
    @Tracked var limit = 0
    @Tracked var numbers: [Int] = []
    @Tracked var callbacks: [DeinitCallback] = []
    @Tracked var compared: CallbackEquatable? = nil
    @Tracked var kids: [LockItem] = []
    @Tracked var slot: CallbackSlot? = nil
    @Tracked var keyed: [KeyedLockItem] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("mirror", \.$mirror)
        r.track("limit", \.$limit)
        r.track("numbers", \.$numbers)
        r.track("callbacks", \.$callbacks)
        r.track("compared", \.$compared)
        r.track("kids", \.$kids)
        r.track("slot", \.$slot)
        r.track("keyed", \.$keyed)
    }
}

/// A model whose custom `id` runs user code: it is read while the hierarchy is locked, to match a
/// new instance with a live child.
struct KeyedLockItem: Model {
    var node = ModelNode<Self>()
    let key: Int
    let onID: @Sendable () -> Void
    @Tracked var count = 0

    var id: Int {
        onID()
        return key
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}

/// A model used as a dependency: one per hierarchy, anchored into it on first use.
struct LockSettings: Model, DependencyKey {
    static let activations = AtomicCounter()
    static var liveValue: LockSettings { LockSettings() }

    var node = ModelNode<Self>()
    @Tracked var count = 0

    func onActivate() {
        Self.activations.increment()
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}
