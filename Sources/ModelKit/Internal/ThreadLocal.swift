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
            // The slot owns one retain of its value.
            if let old = pthread_getspecific(key) {
                Unmanaged<AnyObject>.fromOpaque(old).release()
            }
            if let newValue {
                pthread_setspecific(key, Unmanaged.passRetained(newValue).toOpaque())
            } else {
                pthread_setspecific(key, nil)
            }
        }
    }

    /// Runs `body` with `value` set, restoring the previous value afterwards.
    package func withValue<R>(_ value: Value?, _ body: () throws -> R) rethrows -> R {
        // The previous value keeps its retain while it is out of the slot, and gets the slot back.
        let previous = pthread_getspecific(key)
        if let value {
            pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        } else {
            pthread_setspecific(key, nil)
        }
        defer {
            if let current = pthread_getspecific(key) {
                Unmanaged<AnyObject>.fromOpaque(current).release()
            }
            pthread_setspecific(key, previous)
        }
        return try body()
    }
}
