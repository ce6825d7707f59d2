extension ModelNode {
    /// Runs `body` as one atomic change: other threads see all of its writes or none, and observers
    /// and streams are notified once, after it ends.
    ///
    /// ```swift
    /// func swapTapped() {
    ///     node.transaction {
    ///         (left, right) = (right, left)
    ///     }
    /// }
    /// ```
    ///
    /// Transactions nest; the outermost one notifies. A model removed and added elsewhere within one
    /// transaction moves: it is not torn down.
    ///
    /// - Returns: What `body` returns.
    /// - Note: The hierarchy stays locked while `body` runs. Keep it short and synchronous, and do not
    ///   wait in it for another thread that uses the hierarchy.
    public func transaction<R>(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ body: () throws -> R
    ) rethrows -> R {
        if let context = box.context {
            return try context.hierarchy.withSection(body)
        }
        _ = context(
            for: "transaction", fileID: fileID, filePath: filePath, line: line, column: column,
            consequence: "the closure ran without a transaction"
        )
        return try body()
    }
}
