import ModelKit
import Testing

/// A model whose task writes as it unwinds, like `defer { isLoading = false }` around a request.
private struct UnwindingLoader: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var isLoading = false
    let unwound = Locked(false)

    func load(startedLoading: Gate) {
        node.task {
            isLoading = true
            defer {
                isLoading = false
                unwound.value = true
            }
            startedLoading.open()
            await waitForCancellation()
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("isLoading", \.$isLoading)
    }
}

private struct UnwindingParent: Model {
    var node = ModelNode<Self>()
    @Tracked var loader: UnwindingLoader? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("loader", \.$loader)
    }
}

/// Holds a parent, so that removing the parent removes its loader with it.
private struct UnwindingHolder: Model {
    var node = ModelNode<Self>()
    @Tracked var parent: UnwindingParent? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$parent)
    }
}

extension ReportedIssueTests {
    @Suite struct UnwindingTaskTests {
        @Test func removedModelsOwnTaskMayWriteAsItUnwindsWithoutAReport() async {
            await IssueCapture.run(matching: "UnwindingLoader") { capture in
                let parent = UnwindingParent().withAnchor()
                let loader = UnwindingLoader(id: 1)
                parent.loader = loader
                let started = Gate()
                loader.load(startedLoading: started)
                await started.enter()
                #expect(loader.isLoading)

                parent.loader = nil

                #expect(await eventually { loader.unwound.value })
                #expect(loader.lifetime == .destructed)
                // The write was ignored (the model keeps its last live value) and not reported.
                #expect(loader.isLoading)
                #expect(capture.messages.isEmpty)
            }
        }

        @Test func removedModelsEndingTaskMayWriteToTheChildRemovedWithItWithoutAReport() async {
            // A conversation's send task, cancelled as the conversation is deleted, clears its
            // draft child: the child went with it, and the write is ignored as quietly.
            await IssueCapture.run(matching: "UnwindingLoader") { capture in
                let holder = UnwindingHolder().withAnchor()
                let loader = UnwindingLoader(id: 1)
                let parent = UnwindingParent()
                parent.loader = loader
                holder.parent = parent
                let started = Gate(), wrote = Locked(false)
                parent.node.task {
                    started.open()
                    defer {
                        loader.isLoading = true
                        wrote.value = true
                    }
                    await waitForCancellation()
                }
                await started.enter()

                holder.parent = nil

                #expect(await eventually { wrote.value })
                #expect(loader.lifetime == .destructed)
                #expect(!loader.isLoading)
                #expect(capture.messages.isEmpty)
            }
        }

        @Test func writeToARemovedModelFromAnotherModelsTaskIsStillReported() async {
            await IssueCapture.run(matching: "UnwindingLoader") { capture in
                let parent = UnwindingParent().withAnchor()
                let loader = UnwindingLoader(id: 1)
                parent.loader = loader
                parent.loader = nil
                let wrote = Locked(false)
                parent.node.task {
                    loader.isLoading = true
                    wrote.value = true
                }

                #expect(await eventually { wrote.value })
                #expect(!loader.isLoading)
                #expect(capture.messages == ["""
                    Wrote to UnwindingLoader.isLoading of a destructed UnwindingLoader; the write was ignored.

                    To fix, either:
                      • Keep a reference to the model's current place instead of a removed copy.
                      • Check `model.lifetime == .anchored` before writing from long-lived callbacks.
                    """])
            }
        }
    }
}
