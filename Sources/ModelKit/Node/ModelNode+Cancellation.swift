extension ModelNode {
    /// Cancels the model's own work tagged with `id` (its children's work is left alone).
    ///
    /// ```swift
    /// enum TimerID {}
    /// node.forEach(node.continuousClock.timer(interval: .seconds(1))) { _ in tick() }
    ///     .cancel(for: TimerID.self)
    /// // later
    /// node.cancelAll(for: TimerID.self)
    /// ```
    public func cancelAll(
        for id: some Hashable & Sendable,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        context(for: "cancelAll(for:)", fileID: fileID, filePath: filePath, line: line, column: column)?
            .cancelWork(taggedWith: SendableHashable(id))
    }

    /// Cancels the model's own work tagged with the type `id`.
    public func cancelAll(
        for id: Any.Type,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        cancelAll(for: ObjectIdentifier(id), fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Tags all work started inside `body` with the type `id`.
    @discardableResult
    public func cancellationContext<R>(for id: Any.Type, _ body: () throws -> R) rethrows -> R {
        try cancellationContext(for: ObjectIdentifier(id), body)
    }

    /// Tags all work started inside `body` (tasks, loops, observers, `onCancel` handlers) with `id`.
    ///
    /// ```swift
    /// node.cancellationContext(for: RecordingID.self) {
    ///     node.task { try await record() }
    ///     node.onCancel { stopRecording() }
    /// }
    /// node.cancelAll(for: RecordingID.self)   // cancels both
    /// ```
    @discardableResult
    public func cancellationContext<R>(for id: some Hashable & Sendable, _ body: () throws -> R) rethrows -> R {
        try CancellationScope.$ids.withValue(CancellationScope.ids + [SendableHashable(id)]) {
            try body()
        }
    }

    /// The async form of ``cancellationContext(for:_:)``.
    @discardableResult
    public func cancellationContext<R>(
        for id: some Hashable & Sendable,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async rethrows -> R {
        try await CancellationScope.$ids.withValue(CancellationScope.ids + [SendableHashable(id)]) {
            try await body()
        }
    }

    /// Runs `handler` when the model's work is cancelled: when the model is removed, or when a
    /// cancellation id the handler was tagged with is cancelled.
    ///
    /// ```swift
    /// func onActivate() {
    ///     let connection = node.socket.connect()
    ///     node.onCancel { connection.close() }
    /// }
    /// ```
    @discardableResult
    public func onCancel(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ handler: @escaping @Sendable () -> Void
    ) -> Cancellable {
        guard let context = context(for: "onCancel", fileID: fileID, filePath: filePath, line: line, column: column),
              let workID = context.registerWork(
                isTask: false, onCancel: handler,
                location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
              )
        else { return Cancellable() }
        return Cancellable(context: context, workID: workID)
    }
}
