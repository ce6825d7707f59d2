import Synchronization

/// The one lock wrapper of ModelKit, built on `Synchronization.Mutex`.
///
/// It comes in two shapes:
/// - ``Protected`` owns the state it guards and hands it out only inside ``withLock(_:)``.
///   Use it for self-contained state (registries, stream buffers, a tester's logs).
/// - ``RankedLock`` guards state that lives *outside* it: the tracked values in the cells and the
///   mutable fields of the contexts of one anchored hierarchy. Every field it guards says so with a
///   `// Safety: guarded by …` comment.
///
/// Contract (both shapes):
/// - Not recursive. A thread that needs to re-enter a hierarchy it already holds (a transaction
///   body, the mutation inside a compound update) does not lock again: it checks
///   ``RankedLock/isHeldByCurrentThread`` and works under the hold it already has.
/// - Never call user code, resume a continuation or finish a stream while holding a ``Protected``
///   lock. The few places that run user code under a ``RankedLock`` are listed at the top of
///   `Context.swift`.
/// - Internal to ModelKit (`package` so that ModelKitTesting can guard its own state with it).
package final class Protected<State>: Sendable {
    private let mutex: Mutex<State>
    private let handoff = HandOff()

    package init(_ initialState: sending State) {
        mutex = Mutex(initialState)
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result, E: Error>(
        _ body: (inout sending State) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { state throws(E) -> sending Result in
            handoff.acquire()
            defer { handoff.release() }
            return try body(&state)
        }
    }
}

/// Makes a lock's hand-over visible to Thread Sanitizer.
///
/// `Mutex` waits for a contended lock in the standard library, which is not instrumented, so TSan
/// would not see that the next holder comes after the previous one and would report races on the
/// state the lock guards. Each holder releases this atomic before unlocking and acquires it after
/// locking: an instrumented release/acquire pair along every hand-over. On x86 both are plain moves.
/// (`RankedLock` does the same with its `holder` word.)
struct HandOff: ~Copyable, Sendable {
    let word = Atomic<UInt>(0)

    init() {}

    @inline(__always)
    func acquire() {
        _ = word.load(ordering: .acquiring)
    }

    @inline(__always)
    func release() {
        word.store(0, ordering: .releasing)
    }
}

extension Protected where State: Sendable {
    /// A copy of the current state.
    package var value: State {
        withLock { $0 }
    }
}

/// A lock for state stored outside it, with a record of which thread holds it for a *section*.
///
/// Short critical sections (a tracked read) use ``lock()``/``unlock()``. Sections that may run user
/// code, and so may come back to the same hierarchy on the same thread, use
/// ``lockForSection()``/``unlockSection()``, which also record the holding thread so that the
/// re-entrant access can proceed under the existing hold instead of deadlocking.
///
/// Lock order: every lock has a ``Rank``; a thread may only take a lock of a higher rank than every
/// lock it holds (a hierarchy, then the unbound lock, then the frozen copies' lock). Debug builds
/// check this on every acquisition and report a violation as a ModelKit issue.
///
/// A `Hierarchy` is its own lock (a subclass), so that a context reaches the lock in the same load
/// as its hierarchy; every member is final.
@usableFromInline
package class RankedLock: @unchecked Sendable {
    // Safety: every stored property is immutable, a `Mutex` or atomic (what `Sendable` checked
    // while the class was final); subclasses guard their own state with this lock.
    /// The place of a lock in the lock order.
    package enum Rank: Int, Sendable, CustomStringConvertible {
        case hierarchy = 0
        case unbound = 1
        case frozen = 2

        package var description: String {
            switch self {
            case .hierarchy: "a hierarchy lock"
            case .unbound: "the lock of unanchored models"
            case .frozen: "the lock of frozen copies"
            }
        }
    }

    // The mutex (4 bytes) and the rank (1) share a word, and `holder` is also the hand-over word
    // (see ``HandOff``), so that the lock takes two words after the object's header and a
    // `Hierarchy`, which is one, stays in a smaller malloc class.
    @usableFromInline let mutex = Mutex<Void>(())
    let rank: Rank
    /// The thread holding a section, or 0. Only the holding thread ever stores its own id here,
    /// so a thread that reads its own id knows it holds the lock.
    ///
    /// It is also the lock's hand-over word, as ``HandOff`` is for ``Protected``: every holder
    /// loads it with acquire ordering after locking and stores 0 with release ordering before
    /// unlocking. Storing 0 there is right for every holder: a section's holder ends its section
    /// as it unlocks, and any other holder found 0 and left it.
    @usableFromInline let holder = Atomic<UInt>(0)

    package init(rank: Rank = .hierarchy) {
        self.rank = rank
    }

    @inline(__always)
    package final func lock() {
        #if DEBUG
        LockOrder.willAcquire(self)
        #endif
        mutex._unsafeLock()
        _ = holder.load(ordering: .acquiring)
        #if DEBUG
        LockOrder.didAcquire(self)
        #endif
    }

    @inline(__always)
    package final func unlock() {
        #if DEBUG
        LockOrder.didRelease(self)
        #endif
        holder.store(0, ordering: .releasing)
        mutex._unsafeUnlock()
    }

    /// Whether the calling thread holds this lock for a section.
    @inline(__always)
    package final var isHeldByCurrentThread: Bool {
        holder.load(ordering: .relaxed) == currentThreadID()
    }

    @inline(__always)
    package final func lockForSection() {
        lock()
        holder.store(currentThreadID(), ordering: .relaxed)
    }

    @inline(__always)
    package final func unlockSection() {
        // `unlock` stores 0 in `holder`: the section ends with the hold.
        unlock()
    }

    /// Takes the lock for a tracked read if it is free (the read path's fast case). Reads take no
    /// other lock while holding it, so the lock order needs no bookkeeping here.
    ///
    /// A lock held for a section is left to ``lockForReadSlow()`` without trying it: on Linux a
    /// failed `Mutex` try-lock is a system call, and the usual holder is this very thread, reading
    /// inside its own section (an observer's key path evaluated for the commit it observes).
    @inlinable @inline(__always)
    package final func tryLockForRead() -> Bool {
        #if DEBUG
        checkOrderForRead()
        #endif
        guard holder.load(ordering: .relaxed) == 0, mutex._unsafeTryLock() else { return false }
        _ = holder.load(ordering: .acquiring)
        return true
    }

    #if DEBUG
    /// Debug builds: a read takes the lock briefly without bookkeeping, but must still respect the
    /// lock order.
    @usableFromInline
    final func checkOrderForRead() {
        LockOrder.willAcquire(self)
    }
    #endif

    @inlinable @inline(__always)
    package final func unlockAfterRead() {
        holder.store(0, ordering: .releasing)
        mutex._unsafeUnlock()
    }

    /// A lock used only for leaf sections (see ``lockLeaf()``).
    @usableFromInline
    package static func forLeafSections() -> RankedLock {
        RankedLock()
    }

    /// Takes the lock for a short *leaf* section: one that takes no other lock and runs no code
    /// but the caller's own bookkeeping (a stream's buffer). Leaf sections are not part of the
    /// lock order, so they need no bookkeeping either.
    @inlinable @inline(__always)
    package final func lockLeaf() {
        mutex._unsafeLock()
        _ = holder.load(ordering: .acquiring)
    }

    @inlinable @inline(__always)
    package final func unlockLeaf() {
        holder.store(0, ordering: .releasing)
        mutex._unsafeUnlock()
    }

    /// The read path's slow case: returns false when this thread already holds the lock for a
    /// section (read under that hold), else waits for the lock and returns true.
    @usableFromInline
    package final func lockForReadSlow() -> Bool {
        if isHeldByCurrentThread { return false }
        mutex._unsafeLock()
        _ = holder.load(ordering: .acquiring)
        return true
    }

    /// Runs `body` holding the lock for a short section (no user code inside).
    @inline(__always)
    package final func withShortLock<R>(_ body: () throws -> R) rethrows -> R {
        if isHeldByCurrentThread { return try body() }
        lock()
        defer { unlock() }
        return try body()
    }
}

#if DEBUG
/// The debug-build check of the lock order: the locks each thread holds, in acquisition order.
enum LockOrder {
    final class Held {
        var locks: [(id: ObjectIdentifier, rank: RankedLock.Rank)] = []
    }

    private static let held = ThreadLocal<Held>()

    static func willAcquire(_ lock: RankedLock) {
        guard let top = held.value?.locks.last, top.rank.rawValue >= lock.rank.rawValue,
              top.id != ObjectIdentifier(lock)
        else { return }
        reportIssue(ModelIssue(
            "A model of another hierarchy was used while this thread held a hierarchy for a transaction, an observe expression or an Equatable/visit/id implementation (it holds \(top.rank) and is taking \(lock.rank)); this can deadlock if another thread does the reverse.",
            fixes: [
                "Keep transactions, observe expressions and Equatable/visit/id code to models of one hierarchy.",
                "Move work that spans two hierarchies outside the transaction, or into a task.",
            ]
        ))
    }

    static func didAcquire(_ lock: RankedLock) {
        let current: Held
        if let existing = held.value {
            current = existing
        } else {
            current = Held()
            held.value = current
        }
        current.locks.append((ObjectIdentifier(lock), lock.rank))
    }

    static func didRelease(_ lock: RankedLock) {
        guard let current = held.value else { return }
        if let index = current.locks.lastIndex(where: { $0.id == ObjectIdentifier(lock) }) {
            current.locks.remove(at: index)
        }
    }
}
#endif
