extension ModelNode {
    /// Starts a task tied to the model's life: it is cancelled when the model is removed.
    ///
    /// ```swift
    /// func factButtonTapped() {
    ///     node.task {
    ///         onFact(count, try await node.factClient.fetch(count))
    ///     } catch: { _ in
    ///         alert = Alert(message: "Couldn't load fact.", title: "Error")
    ///     }
    /// }
    /// ```
    ///
    /// Give a task a name to find it among the others: it is the name of its Swift `Task`
    /// (`Task.name`, shown by debuggers), and the messages about the task (an error nothing
    /// handled, a task still running at the end of a test) quote it:
    ///
    /// ```swift
    /// node.task(name: "Autosave") {
    ///     try await node.standupsStore.save(standups)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for the task, or nil.
    ///   - body: The work. A thrown `CancellationError` is ignored.
    ///   - handler: Receives any other error. Without it, an error is reported as a runtime warning
    ///     (a test failure under a Tester) naming where the task was started.
    /// - Returns: A ``Cancellable`` for cancelling the task sooner or tagging it with an id.
    /// - Note: The body runs on the global concurrent executor and sees the model's dependencies.
    @discardableResult
    public func task(
        name: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ body: @escaping @Sendable () async throws -> Void,
        catch handler: (@Sendable (any Error) -> Void)? = nil
    ) -> Cancellable {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        guard let context = context(for: "task", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return Cancellable()
        }
        return context.startTask(location: location, name: name) {
            do {
                try await body()
            } catch is CancellationError {
            } catch {
                context.handle(error, handler: handler, location: location, name: name)
            }
        }
    }

    /// Runs `body` for each element of `sequence`, one at a time, while the model is anchored.
    ///
    /// ```swift
    /// func onActivate() {
    ///     node.forEach(node.event(fromType: StandupDetail.self)) { event, detail in
    ///         if event == .deleteStandup { remove(detail) }
    ///     }
    /// }
    /// ```
    ///
    /// An error thrown by one `body` is handled like a task's error and the loop goes on; an error
    /// thrown by the sequence ends the loop.
    ///
    /// - Parameters:
    ///   - name: A name for the loop's task (and its bodies' tasks with `cancelPrevious`), as for
    ///     ``task(name:fileID:filePath:line:column:_:catch:)``.
    ///   - cancelPrevious: When true, a new element cancels the running `body` and waits until it has
    ///     fully unwound before starting the next one.
    /// - Returns: A ``Cancellable``; cancelling it also cancels the running body. Once the model is
    ///   removed or the loop cancelled, no body starts again, even for elements already buffered.
    // Inlinable, so that the loop over the sequence is specialized for its type in the caller:
    // unspecialized, every element would look up generic metadata.
    @inlinable @discardableResult
    public func forEach<S: AsyncSequence & Sendable>(
        _ sequence: S,
        name: String? = nil,
        cancelPrevious: Bool = false,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        perform body: @escaping @Sendable (S.Element) async throws -> Void,
        catch handler: (@Sendable (any Error) -> Void)? = nil
    ) -> Cancellable where S.Element: Sendable {
        guard let context = context(for: "forEach", fileID: fileID, filePath: filePath, line: line, column: column) else {
            return Cancellable()
        }
        let handle: @Sendable (any Error) -> Void = { error in
            context.handle(error, handler: handler, name: name, fileID: fileID, filePath: filePath, line: line, column: column)
        }
        let runBody: @Sendable (S.Element) async -> Void = { element in
            do {
                try await body(element)
            } catch is CancellationError {
            } catch {
                handle(error)
            }
        }
        // Set when the model's work is cancelled (the model removed, the `Cancellable` cancelled):
        // elements still buffered then run no body. One load per element, where `Task.isCancelled`
        // (two calls into the runtime) or a cancellation handler around the loop measured 8-15%
        // on a send handled by a parent's `forEach`.
        let cancelled = CancellationFlag()
        return context.startTask(
            name: name, fileID: fileID, filePath: filePath, line: line, column: column, onCancel: { cancelled.set() }
        ) {
            do {
                if cancelPrevious {
                    try await forEachCancellingPrevious(sequence, name: name, cancelled: cancelled, runBody)
                } else {
                    for try await element in sequence {
                        if cancelled.isSet { break }
                        await runBody(element)
                    }
                }
            } catch is CancellationError {
            } catch {
                handle(error)
            }
        }
    }
}

/// Consumes `sequence`, cancelling the running body when a new element arrives and waiting for it
/// to unwind before starting the next. `cancelled` is the work entry's flag (see `forEach`); each
/// body runs in a task of the given name.
@usableFromInline
func forEachCancellingPrevious<S: AsyncSequence & Sendable>(
    _ sequence: S, name: String?, cancelled: CancellationFlag, _ body: @escaping @Sendable (S.Element) async -> Void
) async throws where S.Element: Sendable {
    let running = Protected<Task<Void, Never>?>(nil)
    try await withTaskCancellationHandler {
        do {
            for try await element in sequence {
                if let previous = running.value {
                    previous.cancel()
                    await previous.value
                }
                // Removed or cancelled (before or while the previous body unwound): no body starts.
                if Task.isCancelled || cancelled.isSet { break }
                let next = Task(name: name, executorPreference: TestingSupport.currentTaskExecutor) {
                    // Nor when the removal came while this task was being started.
                    guard !cancelled.isSet else { return }
                    await body(element)
                }
                running.withLock { $0 = next }
                if Task.isCancelled || cancelled.isSet { next.cancel() }
            }
        } catch {
            // The running body stays the loop's work, which removal and `cancel()` reach, until it
            // ends: the loop ends with the sequence's error then, as it ends after the last body.
            await running.value?.value
            throw error
        }
        await running.value?.value
    } onCancel: {
        running.value?.cancel()
    }
}

extension Context {
    /// Registers and starts a task of the given name. The task removes its entry when it ends.
    /// `onCancel` runs when the work is cancelled (with the task), as an `onCancel` handler would.
    final func startTask(
        location: SourceLocation, name: String? = nil, onCancel: (@Sendable () -> Void)? = nil,
        _ operation: @escaping @Sendable () async -> Void
    ) -> Cancellable {
        guard let workID = registerWork(isTask: true, onCancel: onCancel, location: location, name: name) else {
            return Cancellable()
        }
        // Under a tester the task runs on the tester's executor (see "Settling" in Internals.md).
        let task = Task(name: name, executorPreference: hierarchy.testing?.taskExecutor) {
            await CurrentWork.$owner.withValue(self) {
                await operation()
            }
            self.workFinished(workID)
        }
        attach(task, to: workID)
        return Cancellable(context: self, workID: workID)
    }

    /// Registers and starts a task started at the given call site.
    @usableFromInline
    final func startTask(
        name: String?, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt,
        onCancel: (@Sendable () -> Void)? = nil, _ operation: @escaping @Sendable () async -> Void
    ) -> Cancellable {
        startTask(
            location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            name: name, onCancel: onCancel, operation
        )
    }

    /// Routes an error thrown by the work started at the given call site to its handler, or reports it.
    @usableFromInline
    final func handle(
        _ error: any Error, handler: (@Sendable (any Error) -> Void)?, name: String?,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) {
        handle(
            error, handler: handler,
            location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column), name: name
        )
    }

    /// Routes an error thrown by a model's work (of the given name) to its handler, or reports it.
    final func handle(
        _ error: any Error, handler: (@Sendable (any Error) -> Void)?, location: SourceLocation, name: String? = nil
    ) {
        if let handler {
            handler(error)
            return
        }
        hierarchy.report(ModelIssue(
            "\(taskDescription(name: name, modelType: typeName)) threw an error that nothing handled: \(error)",
            fixes: [
                "Pass a `catch:` closure to `node.task` or `node.forEach` to handle the error.",
                "Or catch it inside the task body.",
            ],
            location: location
        ))
    }
}

/// The model whose task is running: a task of a removed model may still write as it unwinds (a
/// `defer { isLoading = false }`); such writes are ignored without a report. (A strong reference:
/// the task's body holds its context anyway, and a weak one would slow every access to it, see
/// "No weak references to contexts" in Internals.md.)
enum CurrentWork {
    @TaskLocal static var owner: Context?
}
