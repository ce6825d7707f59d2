extension ModelNode {
    /// Runs `body` with the current value of `id`, and again, restarted, each time that value
    /// changes: the work of "search as you type".
    ///
    /// ```swift
    /// func onActivate() {
    ///     node.task(id: query) { query in
    ///         try await node.continuousClock.sleep(for: .milliseconds(300))
    ///         results = try await node.searchClient.search(query)
    ///     } catch: { _ in
    ///         results = []
    ///     }
    /// }
    /// ```
    ///
    /// Before a new run starts, the previous one is cancelled and has fully unwound (its `defer`s
    /// ran): runs never overlap. Only distinct values restart it; writing an equal value does not.
    ///
    /// - Parameters:
    ///   - id: An expression over model state, re-evaluated when something it read changes.
    ///   - name: A name for the work's tasks, as for ``task(name:fileID:filePath:line:column:_:catch:)``.
    ///   - body: The work for one value. A thrown `CancellationError` is ignored.
    ///   - handler: Receives any other error, as for ``task(name:fileID:filePath:line:column:_:catch:)``.
    /// - Returns: A ``Cancellable`` that stops watching and cancels the running body.
    @inlinable @discardableResult
    public func task<ID: Equatable & Sendable>(
        id: @autoclosure @escaping @Sendable () -> ID,
        name: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ body: @escaping @Sendable (ID) async throws -> Void,
        catch handler: (@Sendable (any Error) -> Void)? = nil
    ) -> Cancellable {
        guard let context = context(for: "task(id:)", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return Cancellable()
        }
        let values = context.observationStream(initial: true, isDuplicate: { $0 == $1 }, id)
        return forEach(
            values, name: name, cancelPrevious: true, fileID: fileID, filePath: filePath, line: line, column: column,
            perform: body, catch: handler
        )
    }
}
