/// A handle to work a model started: a task, a `forEach` loop, an observer or an `onCancel` handler.
///
/// The work is cancelled when the model is removed; a `Cancellable` lets you cancel it sooner, or tag
/// it with an id so that ``ModelNode/cancelAll(for:)`` (or a later `cancelInFlight`) can.
///
/// ```swift
/// func searchTextChanged(_ text: String) {
///     node.task {
///         results = try await node.searchClient.search(text)
///     }
///     .cancelInFlight()     // a new search cancels the previous one
/// }
/// ```
///
/// - Note: Discarding a `Cancellable` does not cancel anything.
public struct Cancellable: Sendable {
    /// The context that runs the work. Retained: once destructed, a context is a small husk (its
    /// model, work and children released), and a weak reference would slow every access to it.
    let context: Context?
    let workID: Int

    init(context: Context, workID: Int) {
        self.context = context
        self.workID = workID
    }

    /// A handle to nothing (returned when no work could be started).
    @usableFromInline
    init() {
        self.context = nil
        self.workID = -1
    }

    /// Cancels the work now. Cancelling twice, or after the work ended, does nothing.
    public func cancel() {
        context?.cancelWork(ids: [workID])
    }

    /// Tags the work with `id`, so that `node.cancelAll(for: id)` cancels it.
    ///
    /// - Parameters:
    ///   - id: Any hashable value; types (`SearchID.self`) make good ids.
    ///   - cancelInFlight: When true, first cancels the model's other work tagged with `id`.
    @discardableResult
    public func cancel(for id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Cancellable {
        guard let context else { return self }
        context.tagWork(workID, with: SendableHashable(id), cancelOthers: cancelInFlight)
        return self
    }

    /// Tags the work with a type used as an id (`enum SearchID {}` … `.cancel(for: SearchID.self)`).
    @discardableResult
    public func cancel(for id: Any.Type, cancelInFlight: Bool = false) -> Cancellable {
        cancel(for: ObjectIdentifier(id), cancelInFlight: cancelInFlight)
    }

    /// Cancels the model's previous work started from the same line, and tags this work so that the
    /// next call does the same.
    @discardableResult
    public func cancelInFlight(fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column) -> Cancellable {
        cancel(for: CallSiteID(fileID: "\(fileID)", line: line, column: column), cancelInFlight: true)
    }
}

/// The id `cancelInFlight()` uses: its call site.
struct CallSiteID: Hashable, Sendable {
    let fileID: String
    let line: UInt
    let column: UInt
}
