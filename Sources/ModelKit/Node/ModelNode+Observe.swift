// The public ways to observe model state: `change(of:)`, `node.observe` and `node.onChange`.

extension Model {
    /// The values of `keyPath`: the current value first (unless `initial` is false), then each new
    /// value, in order.
    ///
    /// ```swift
    /// node.forEach(change(of: \.count)) { count in
    ///     print("count is now", count)
    /// }
    /// ```
    ///
    /// The stream listens from the moment it is created and ends when the model is removed.
    /// For `Equatable` values only distinct values are delivered; otherwise every write is.
    ///
    /// - Note: The stream does not keep the hierarchy alive, even when called on the value
    ///   ``Model/withAnchor()`` returned: once the last copy of that value is released, the stream ends.
    @inlinable
    public func change<Value: Sendable>(
        of keyPath: KeyPath<Self, Value> & Sendable,
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<Value> {
        guard let context = node.context(for: "change(of:)", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return .finished()
        }
        // The observer belongs to the context, so it captures the model without its anchor: `self`
        // may be the value `withAnchor` returned, which would keep the hierarchy alive through it.
        let model = unanchored
        return context.observationStream(initial: initial, isDuplicate: nil) {
            context.read(keyPath, of: model)
        }
    }

    /// The distinct values of `keyPath`. See ``change(of:initial:fileID:filePath:line:column:)``.
    @inlinable
    public func change<Value: Sendable & Equatable>(
        of keyPath: KeyPath<Self, Value> & Sendable,
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<Value> {
        guard let context = node.context(for: "change(of:)", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return .finished()
        }
        let model = unanchored
        return context.observationStream(initial: initial, isDuplicate: { $0 == $1 }) {
            context.read(keyPath, of: model)
        }
    }
}

extension ModelNode {
    /// The values of an expression over model state: re-evaluated whenever something it read changes.
    ///
    /// ```swift
    /// node.forEach(node.observe(initial: false) { standupsList.standupDetails.map(\.standup) }) { standups in
    ///     try await node.dataManager.save(standups)
    /// }
    /// ```
    ///
    /// - Note: The expression runs while the hierarchy is locked for the commit it observes. It should
    ///   only read models of this hierarchy.
    @inlinable
    public func observe<Value: Sendable>(
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> ModelStream<Value> {
        guard let context = context(for: "observe", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return .finished()
        }
        return context.observationStream(initial: initial, isDuplicate: nil, expression)
    }

    /// The distinct values of an expression over model state.
    @inlinable
    public func observe<Value: Sendable & Equatable>(
        initial: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expression: @escaping @Sendable () -> Value
    ) -> ModelStream<Value> {
        guard let context = context(for: "observe", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return .finished()
        }
        return context.observationStream(initial: initial, isDuplicate: { $0 == $1 }, expression)
    }

    /// Runs `perform` with the old and new value on each change of `keyPath`, in order, while the
    /// model is anchored.
    ///
    /// ```swift
    /// func onActivate() {
    ///     node.onChange(of: \.count) { old, new in
    ///         history.append("\(old) → \(new)")
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - initial: Also run `perform` once now, with the current value as both old and new.
    /// - Returns: A ``Cancellable`` that stops it.
    @inlinable @discardableResult
    public func onChange<Value: Sendable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        initial: Bool = false,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> Cancellable {
        startOnChange(
            of: keyPath, initial: initial, isDuplicate: nil,
            fileID: fileID, filePath: filePath, line: line, column: column, perform: perform
        )
    }

    /// Runs `perform` on each distinct change of an `Equatable` value.
    @inlinable @discardableResult
    public func onChange<Value: Sendable & Equatable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        initial: Bool = false,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> Cancellable {
        startOnChange(
            of: keyPath, initial: initial, isDuplicate: { $0 == $1 },
            fileID: fileID, filePath: filePath, line: line, column: column, perform: perform
        )
    }

    /// Runs `perform` on each distinct change of the value of an expression over model state, such
    /// as a value derived from several properties.
    ///
    /// The expression is re-evaluated when something it read changes; `perform` runs (in order,
    /// after the commit, like any `onChange`) only when its value differs from the last one.
    ///
    /// ```swift
    /// func onActivate() {
    ///     node.onChange(of: title.isEmpty, initial: true) { _, isEmpty in
    ///         canSave = !isEmpty
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - expression: Reads model state. It runs while the hierarchy is locked for the commit it
    ///     observes, so it should only read models of this hierarchy.
    ///   - initial: Also run `perform` once now, with the current value as both old and new.
    /// - Returns: A ``Cancellable`` that stops it.
    @inlinable @discardableResult
    public func onChange<Value: Sendable & Equatable>(
        of expression: @autoclosure @escaping @Sendable () -> Value,
        initial: Bool = false,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> Cancellable {
        guard let context = context(for: "onChange(of:)", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return Cancellable() }
        let value = ObservedValue<Value>(isDuplicate: { $0 == $1 })
        let observer = ExpressionObserver(
            hierarchy: context.hierarchy,
            evaluate: { value.update(expression(), forced: $0) },
            deliver: ObservedChange<Value>.onChangeDelivery(initial: initial, perform),
            onFinish: {}
        )
        return context.startOnChange(
            observer, initial: initial, fileID: fileID, filePath: filePath, line: line, column: column
        )
    }

    @inlinable
    func startOnChange<Value: Sendable>(
        of keyPath: KeyPath<M, Value> & Sendable,
        initial: Bool,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt,
        perform: @escaping @Sendable (Value, Value) -> Void
    ) -> Cancellable {
        guard let context = context(for: "onChange(of:)", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return Cancellable() }
        // A removed model no longer holds its value: it reports, as a failed start does.
        guard let model = context.liveModel(M.self) else {
            context.reportWorkNotStarted(fileID: fileID, filePath: filePath, line: line, column: column)
            return Cancellable()
        }
        let value = ObservedValue<Value>(isDuplicate: isDuplicate)
        let observer = ExpressionObserver(
            hierarchy: context.hierarchy,
            evaluate: { value.update(context.read(keyPath, of: model), forced: $0) },
            deliver: ObservedChange<Value>.onChangeDelivery(initial: initial, perform),
            onFinish: {}
        )
        return context.startOnChange(
            observer, initial: initial, fileID: fileID, filePath: filePath, line: line, column: column
        )
    }
}

extension ObservedChange {
    /// How an `onChange` observer delivers: `perform(old, new)` for each change, and for the first
    /// value (delivered only with `initial`) `perform(value, value)`.
    @inlinable
    static func onChangeDelivery(
        initial: Bool, _ perform: @escaping @Sendable (Value, Value) -> Void
    ) -> (ObservedPayload) -> Void {
        { change in
            let new = change.new(as: Value.self)
            if let old = change.old(as: Value.self) {
                perform(old, new)
            } else if initial {
                perform(new, new)
            }
        }
    }
}

extension Context {
    /// The model, if it is an `M` (read under the lock).
    @usableFromInline
    final func liveModel<M: Model>(_: M.Type) -> M? {
        lock.withShortLock { model(as: M.self) }
    }

    /// Starts an `onChange` observer as work of this model.
    @usableFromInline
    final func startOnChange(
        _ observer: ExpressionObserver, initial: Bool,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) -> Cancellable {
        guard startObserver(observer, deliverInitial: initial) else {
            observer.cancel()
            reportWorkNotStarted(fileID: fileID, filePath: filePath, line: line, column: column)
            return Cancellable()
        }
        guard let workID = registerWork(
            isTask: false,
            onCancel: { observer.cancel() },
            location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        ) else {
            observer.cancel()
            return Cancellable()
        }
        return Cancellable(context: self, workID: workID)
    }
}
