#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A per-thread reference, for state that belongs to one synchronous stretch of work on one thread
/// (recording the reads of a predicate, noticing a defaulted `testValue`).
///
/// Unlike a `@TaskLocal`, it is not inherited by tasks started meanwhile, which is the point: a task
/// a predicate happens to start must not record into the predicate's recorder.
package final class ThreadLocal<Value: AnyObject>: Sendable {
    private let key: pthread_key_t

    package init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(status == 0, "ModelKit could not create a thread-local key (pthread_key_create: \(status)).")
        self.key = key
    }

    package var value: Value? {
        get {
            guard let pointer = pthread_getspecific(key) else { return nil }
            return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue()
        }
        set {
            if let old = pthread_getspecific(key) {
                Unmanaged<AnyObject>.fromOpaque(old).release()
            }
            let new = newValue.map { Unmanaged<Value>.passRetained($0).toOpaque() }
            pthread_setspecific(key, new)
        }
    }

    /// Runs `body` with `value` set, restoring the previous value afterwards.
    package func withValue<R>(_ value: Value?, _ body: () throws -> R) rethrows -> R {
        let previous = self.value
        self.value = value
        defer { self.value = previous }
        return try body()
    }
}
