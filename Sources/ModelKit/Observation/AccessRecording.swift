import Observation
import Synchronization

/// Records which tracked properties a stretch of code reads, on one thread: used to find what an
/// `observe` expression depends on and what a Tester's predicate asserted.
enum AccessRecording {
    /// How many recordings are running on any thread; the access path checks the thread only when
    /// this is non-zero.
    private static let activeCount = Atomic<Int>(0)
    private static let current = ThreadLocal<AccessRecorder>()

    @inline(__always)
    static var isActive: Bool {
        activeCount.load(ordering: .relaxed) > 0
    }

    /// Whether this thread records reads for something other than an observer's evaluation: a
    /// Tester's assertion, which also counts the changes a derived value comes from.
    static var isRecordingForAssertion: Bool {
        guard isActive, let recorder = current.value else { return false }
        return !recorder.isObserverEvaluation && !recorder.discardsReads
    }

    static var currentReadCount: Int {
        current.value?.reads.count ?? 0
    }

    /// Records a read in this thread's recording, if any. Returns true when the read belongs to an
    /// observer's evaluation, which Observation must not see (see ``AccessRecorder/isObserverEvaluation``).
    static func record(_ context: Context, _ index: Int) -> Bool {
        guard let recorder = current.value else { return false }
        if recorder.discardsReads { return true }
        recorder.reads.append(Read(context: context, index: index))
        return recorder.isObserverEvaluation
    }

    /// Runs `body`, returning its result and the properties it read.
    static func recording<R>(_ body: () throws -> R) rethrows -> (R, [Read]) {
        let recorder = AccessRecorder()
        let result = try recording(into: recorder, body)
        return (result, recorder.reads)
    }

    /// Runs `body`, recording the properties it reads into `recorder` (after what it holds).
    static func recording<R>(into recorder: AccessRecorder, _ body: () throws -> R) rethrows -> R {
        activeCount.add(1, ordering: .relaxed)
        defer { activeCount.subtract(1, ordering: .relaxed) }
        return try current.withValue(recorder, body)
    }

    /// One read of one property of one model.
    struct Read {
        let context: Context
        let index: Int
    }
}

/// The reads of one recording.
final class AccessRecorder {
    // Safety (exclusivity): used by one thread, the one recording.
    @exclusivity(unchecked) var reads: [AccessRecording.Read] = []
    /// The recording is an observer evaluating its expression for a commit. Its reads are
    /// ModelKit's own, not the code around the commit's: they are kept from Observation, so that a
    /// write made inside `withObservationTracking` does not make that scope depend on what the
    /// observers read (and a model only observers read never needs a registrar).
    let isObserverEvaluation: Bool
    /// The recording of ``withUntrackedModelReads(_:)``: its reads register nowhere.
    let discardsReads: Bool

    init(isObserverEvaluation: Bool = false, discardsReads: Bool = false) {
        self.isObserverEvaluation = isObserverEvaluation
        self.discardsReads = discardsReads
    }
}

extension AccessRecording.Read {
    var key: ReadKey { ReadKey(context: ObjectIdentifier(context), index: index) }

    struct ReadKey: Hashable {
        let context: ObjectIdentifier
        let index: Int
    }
}

/// Package access for ModelKitTesting: records the properties a predicate reads.
package enum ModelAccessRecorder {
    /// A property read while recording.
    package struct PropertyRead: Sendable {
        let context: Context
        package let index: Int

        /// Identifies the model (its context).
        package var contextID: ObjectIdentifier { ObjectIdentifier(context) }

        /// The tester of the model's hierarchy, if a tester anchored it (its `TestingSupport.owner`).
        package var testingOwner: (any Sendable)? { context.hierarchy.testingSupport?.owner }

        /// Whether the model read is a frozen copy (which belongs to no hierarchy that changes).
        package var isOfFrozenCopy: Bool { context.hierarchy === frozenHierarchy }

        /// `Parent.counters[0].count` (path-qualified), for failure messages.
        package var propertyPath: String {
            context.lock.withShortLock { readPath }
        }

        /// The path of what was read: `Parent.counters[0].count`, or for the virtual properties a
        /// hierarchy query reads, what they stand for (`Parent.counters[0]'s parents (a hierarchy
        /// query)`), never their internal names. Caller holds the lock.
        private var readPath: String {
            switch index {
            case Context.placesIndex: "\(context.path())'s parents (a hierarchy query)"
            case Context.usedDependenciesIndex: "\(context.path())'s model dependencies (a hierarchy query)"
            default: "\(context.path()).\(context.propertyName(index))"
            }
        }

        /// `CounterModel.count = 1` (path-qualified, with the current value), for failure messages.
        package var currentDescription: String {
            let (path, value, isRemoved): (String, Any?, Bool) = context.lock.withShortLock {
                (readPath, context.propertyValue(index), context.state == .destructed)
            }
            // A removed model keeps no value the tester can show (the reader's copy holds it).
            if isRemoved { return "\(path) (of a model removed since)" }
            // Rendered after the lock: the value may hold models of another hierarchy.
            guard let value else { return path }
            return "\(path) = \(ValueDump.render(value))"
        }
    }

    /// Runs `body`, returning its result and the properties it read, in order.
    package static func recording<R>(_ body: () throws -> R) rethrows -> (R, [PropertyRead]) {
        let (result, reads) = try AccessRecording.recording(body)
        return (result, reads.map { PropertyRead(context: $0.context, index: $0.index) })
    }

    /// How many reads the recording on this thread has made so far (0 when not recording).
    package static var currentReadCount: Int {
        AccessRecording.currentReadCount
    }
}

/// Runs `body` with reads of model state that register nothing: no Observation tracking, no
/// `observe` or `onChange` dependency, nothing a Tester's assertion counts as asserted.
///
/// Use it for work that looks at many models without depending on them, such as a scan or a
/// debug dump inside a view's body or an `observe` expression:
///
/// ```swift
/// let total = withUntrackedModelReads {
///     list.items.reduce(0) { $0 + $1.count }
/// }
/// ```
///
/// Reads are still thread-safe (each takes the hierarchy's lock as usual), and writes inside
/// `body` are recorded and notified as usual.
///
/// - Returns: What `body` returns.
public func withUntrackedModelReads<R>(_ body: () throws -> R) rethrows -> R {
    try AccessRecording.recording(into: AccessRecorder(discardsReads: true), body)
}
