// What ModelKitTesting asks of a hierarchy.

/// One running piece of work, for the end-of-test check.
package struct RunningWork: Sendable {
    package let modelType: String
    package let location: SourceLocation
    /// The name the work was started with (`node.task(name:)`), if any.
    package let name: String?
    package let fromActivation: Bool
    package let isTask: Bool
    /// Whether it was cancelled (by the model, its removal or the tester) and has not ended yet.
    package let isCancelled: Bool
    /// Whether its model was removed from the hierarchy (its work was cancelled then, and has not
    /// ended yet).
    package let ofRemovedModel: Bool
    let context: Context
    let workID: Int
}

extension Hierarchy {
    package var testingSupport: TestingSupport? { testing }

    /// Every live context: the root's subtree and the models used as dependencies.
    private func liveContexts() -> [Context] {
        lock.withShortLock {
            var result: [Context] = []
            var seen: Set<ObjectIdentifier> = []
            var stack: [Context] = root.map { [$0] } ?? []
            stack += extrasIfAny?.dependencyModels.values ?? [:].values
            while let context = stack.popLast() {
                guard seen.insert(ObjectIdentifier(context)).inserted, context.state.isLive else { continue }
                result.append(context)
                stack.append(contentsOf: context.children.reversed())
            }
            return result
        }
    }

    /// The running work of every live model, and the cancelled tasks of removed models that have
    /// not ended yet.
    package func runningWork() -> [RunningWork] {
        let unwinding: [Context] = lock.withShortLock {
            (extrasIfAny?.unwindingContexts.values).map(Array.init) ?? []
        }
        func work(of contexts: [Context], removed: Bool) -> [RunningWork] {
            contexts.flatMap { context in
                context.runningWork().map {
                    RunningWork(
                        modelType: context.typeName, location: $0.entry.location, name: $0.entry.name, fromActivation: $0.entry.fromActivation,
                        isTask: $0.entry.isTask, isCancelled: $0.entry.isCancelled, ofRemovedModel: removed,
                        context: context, workID: $0.id
                    )
                }
            }
        }
        return work(of: liveContexts(), removed: false) + work(of: unwinding, removed: true)
    }

    /// Cancels the given work.
    package func cancel(_ work: [RunningWork]) {
        for item in work {
            item.context.cancelWork(ids: [item.workID])
        }
    }

    /// How many `modifications(of:)` streams the hierarchy lists (for ModelKit's tests).
    package var modificationStreamCount: Int {
        lock.withShortLock { extrasIfAny?.modificationListenerCount ?? 0 }
    }

    /// Tears the hierarchy down now (idempotent; releasing the anchor later does nothing more).
    package func tearDownNow() {
        tearDown()
    }
}
