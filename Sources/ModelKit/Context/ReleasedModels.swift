/// The destructed contexts of a teardown whose model values are destroyed once it is performed,
/// after the lock (a model value's release may free its context, and values that run code in
/// their deinit).
///
/// A destructed context gives its value up under the lock (``Context/giveUpModel()``: nobody reads
/// it from then on) but keeps it in its storage, and this list releases it from there when the
/// teardown batch holding the list goes. The contexts are not retained: each is kept alive by the
/// value it still holds (the value's `NodeBox` is bound to it), until that value is released. Moving the value out instead took an `any Model` per model, 40
/// bytes, plus a heap box for a model of four or five words (a million children with their own id
/// peaked ~100 MB higher).
///
/// The contexts are kept in chunks that are never copied (a million children would otherwise copy
/// a growing array of them), each created with room for twice the contexts of the one before, up to
/// 4,096.
struct ReleasedModels {
    /// The chunk being filled; nil until a context is added.
    private var current: Chunk?
    /// The chunks filled before it.
    private var full: [Chunk] = []

    var isEmpty: Bool { current == nil }

    mutating func append(_ context: Context) {
        let context = Unmanaged.passUnretained(context)
        if let current, current.append(context) { return }
        let capacity = current.map { min($0.header.capacity * 2, Self.largestChunk) } ?? Self.firstChunk
        if let filled = current.take() { full.append(filled) }
        let chunk = Chunk.make(capacity: capacity)
        _ = chunk.append(context)
        current = chunk
    }

    private static let firstChunk = 4
    private static let largestChunk = 4_096

    /// Up to `capacity` contexts; releases their given-up model values when it is freed.
    final class Chunk: ManagedBuffer<ChunkHeader, Unmanaged<Context>> {
        static func make(capacity: Int) -> Chunk {
            unsafeDowncast(create(minimumCapacity: capacity) { _ in ChunkHeader(capacity: capacity) }, to: Chunk.self)
        }

        /// Adds `context`; false when the chunk is full.
        func append(_ context: Unmanaged<Context>) -> Bool {
            withUnsafeMutablePointers { header, contexts in
                guard header.pointee.count < header.pointee.capacity else { return false }
                (contexts + header.pointee.count).initialize(to: context)
                header.pointee.count += 1
                return true
            }
        }

        deinit {
            withUnsafeMutablePointers { header, contexts in
                for index in 0..<header.pointee.count {
                    Context.releaseGivenUpModel(of: contexts[index])
                }
            }
        }
    }

    struct ChunkHeader {
        /// The room asked for (the allocation may have more).
        let capacity: Int
        var count = 0
    }
}
