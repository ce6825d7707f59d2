import Synchronization

/// A reference created on first use and published once, for reads without a lock: an atomic word
/// holding a retained `Unmanaged` reference, 0 until published.
///
/// Readers use the object without retaining it. That is safe because it is released only by this
/// value's deinit, that is when the class holding it as a stored property is freed, and a reader
/// reaches it through that holder, which it keeps alive.
///
/// ```swift
/// private let registrar = PublishedReference<RegistrarBox>()
/// registrar.readOrCreate(RegistrarBox.init) { $0.registrar.access(…) }
/// ```
struct PublishedReference<Object: AnyObject>: ~Copyable, Sendable {
    private let bits = Atomic<UInt>(0)

    init() {}

    deinit {
        let bits = bits.load(ordering: .acquiring)
        if bits != 0 { Self.unmanaged(bits).release() }
    }

    @inline(__always)
    private static func unmanaged(_ bits: UInt) -> Unmanaged<Object> {
        Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
    }

    /// The object, if published.
    @inline(__always)
    var object: Object? {
        let bits = bits.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Self.unmanaged(bits).takeUnretainedValue()
    }

    /// `body` applied to the object, unretained, or `absent` if none was published.
    @inline(__always)
    func read<R>(or absent: R, _ body: (Object) -> R) -> R {
        let bits = bits.load(ordering: .acquiring)
        guard bits != 0 else { return absent }
        return Self.unmanaged(bits)._withUnsafeGuaranteedRef(body)
    }

    /// `body` applied to the object, unretained, created with `make` and published first if there
    /// was none (when two threads race, one object wins and the other is released).
    @inline(__always)
    func readOrCreate<R>(_ make: () -> Object, _ body: (Object) -> R) -> R {
        var bits = bits.load(ordering: .acquiring)
        if bits == 0 { bits = publish(make()) }
        return Self.unmanaged(bits)._withUnsafeGuaranteedRef(body)
    }

    /// Publishes `object` unless one was published already; returns the published one's bits.
    @inline(never)
    @discardableResult
    func publish(_ object: Object) -> UInt {
        let created = Unmanaged.passRetained(object)
        let createdBits = UInt(bitPattern: created.toOpaque())
        let (exchanged, existing) = bits.compareExchange(
            expected: 0, desired: createdBits, successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring
        )
        if exchanged { return createdBits }
        created.release()
        return existing
    }
}
