import ModelKit
import Testing

/// Same-id continuity (API.md section 8): a new instance whose `id` equals a live child's id, in the
/// same slot, continues that child. Every handle to it keeps working, and its work keeps running.
extension ReportedIssueTests {
    @Suite struct ContinuityTests {
        /// Runs the refresh scenario for one slot shape: `first` is added and starts ticking, `again`
        /// (same id) is assigned, and then the ticking task, `first`, `again` and the parent's copy
        /// all read and write the one live child, with nothing reported.
        private func expectContinuity(
            _ shape: String,
            assign: @escaping (TickerList, Ticker) -> Void,
            live: @escaping (TickerList) -> Ticker?,
            remove: (TickerList) -> Void
        ) async {
            await IssueCapture.run(matching: "Ticker") { capture in
                let log = Log()
                let list = TickerList().withAnchor()
                let ticks = AsyncStream<Void>.makeStream()
                let first = Ticker(id: 1, title: "draft", log: log, ticks: ticks.stream)
                assign(list, first)
                ticks.continuation.yield()
                #expect(await eventually { first.ticks == 1 }, "\(shape): the task ticks")

                let again = Ticker(id: 1, title: "final", log: log)
                assign(list, again)
                #expect(live(list)?.title == "final", "\(shape)")
                #expect(first.title == "final" && again.title == "final", "\(shape)")
                #expect(first.ticks == 0 && again.ticks == 0, "\(shape): the new instance's values apply")
                #expect(first.lifetime == .anchored && again.lifetime == .anchored, "\(shape)")

                // The child's own task writes through `self`, the first instance.
                ticks.continuation.yield()
                #expect(await eventually { live(list)?.ticks == 1 }, "\(shape): the task still ticks")
                #expect(again.ticks == 1, "\(shape)")

                first.title = "from the first handle"
                #expect(live(list)?.title == "from the first handle" && again.title == "from the first handle")
                again.title = "from the new instance"
                #expect(first.title == "from the new instance", "\(shape)")
                first.ticks += 10
                #expect(again.ticks == 11, "\(shape): compound updates reach the live child")

                #expect(log.count(of: "activate 1") == 1, "\(shape): activated once")
                #expect(log.count(of: "cancel 1") == 0, "\(shape): not torn down")
                #expect(capture.messages.isEmpty, "\(shape): \(capture.messages)")

                remove(list)
                #expect(first.lifetime == .destructed && again.lifetime == .destructed, "\(shape)")
                #expect(await log.waitFor("ticking ended 1"), "\(shape)")
                #expect(log.count(of: "cancel 1") == 1, "\(shape)")
                ticks.continuation.finish()
            }
        }

        @Test func sameIDContinuesADirectChild() async {
            await expectContinuity("direct", assign: { $0.one = $1 }, live: { $0.one }, remove: {
                $0.one = Ticker(id: 99, log: Log())
            })
        }

        @Test func sameIDContinuesAnOptionalChild() async {
            await expectContinuity("optional", assign: { $0.maybe = $1 }, live: { $0.maybe }, remove: { $0.maybe = nil })
        }

        @Test func sameIDContinuesAnArrayChild() async {
            await expectContinuity(
                "array",
                assign: { list, ticker in list.items = [Ticker(id: 7, log: Log()), ticker] },
                live: { $0.items.first { $0.id == 1 } },
                remove: { $0.items = [] }
            )
        }

        @Test func sameIDContinuesADictionaryChild() async {
            await expectContinuity(
                "dictionary", assign: { $0.byKey["k"] = $1 }, live: { $0.byKey["k"] }, remove: { $0.byKey = [:] }
            )
        }

        @Test func sameIDContinuesAChildInACustomEnum() async {
            await expectContinuity(
                "enum",
                assign: { $0.route = .detail($1) },
                live: { if case .detail(let ticker) = $0.route { ticker } else { nil } },
                remove: { $0.route = .home }
            )
        }

        @Test func sameIDContinuesAChildInACustomStruct() async {
            await expectContinuity(
                "struct",
                assign: { $0.box = TickerBox(ticker: $1) },
                live: { $0.box?.ticker },
                remove: { $0.box = nil }
            )
        }

        @Test func sameIDContinuesANestedChildRecursively() async {
            await IssueCapture.run(matching: "Ticker") { capture in
                let log = Log()
                let list = TickerList().withAnchor()
                let ticks = AsyncStream<Void>.makeStream()
                let inner = Ticker(id: 2, title: "inner", log: log, ticks: ticks.stream)
                let outer = Ticker(id: 1, title: "outer", log: log, children: [inner, Ticker(id: 3, log: log)])
                list.maybe = outer

                let newInner = Ticker(id: 2, title: "inner 2", log: log)
                list.maybe = Ticker(id: 1, title: "outer 2", log: log, children: [Ticker(id: 4, log: log), newInner])
                #expect(list.maybe?.children.map(\.id) == [4, 2])
                #expect(inner.title == "inner 2" && newInner.title == "inner 2" && outer.title == "outer 2")
                #expect(inner.lifetime == .anchored)
                #expect(log.count(of: "activate 2") == 1 && log.count(of: "cancel 2") == 0)
                #expect(log.count(of: "cancel 3") == 1, "a child the new instance does not hold is removed")
                #expect(log.count(of: "activate 4") == 1)
                // Handles of the first outer instance reach the live children too.
                #expect(outer.children.map(\.id) == [4, 2])

                ticks.continuation.yield()
                #expect(await eventually { newInner.ticks == 1 }, "the inner child's task still ticks")
                #expect(capture.messages.isEmpty, "\(capture.messages)")
                ticks.continuation.finish()
            }
        }

        @Test func sameIDContinuesAnOptionalChildEmptiedAndRefilledInOneTransaction() async {
            await expectContinuity(
                "optional, emptied then refilled",
                assign: { list, ticker in list.node.transaction { list.maybe = nil; list.maybe = ticker } },
                live: { $0.maybe },
                remove: { $0.maybe = nil }
            )
        }

        @Test func sameIDContinuesArrayChildrenRemovedThenAppendedInOneTransaction() async {
            // The refresh written as a loop: `removeAll()`, then an `append` per decoded item.
            await expectContinuity(
                "array, removed then appended",
                assign: { list, ticker in
                    list.node.transaction {
                        list.items.removeAll()
                        list.items.append(Ticker(id: 7, log: Log()))
                        list.items.append(ticker)
                    }
                },
                live: { $0.items.first { $0.id == 1 } },
                remove: { $0.items = [] }
            )
        }

        @Test func aChildRemovedFromAnotherSlotInATransactionIsNotContinuedByItsIDElsewhere() {
            let log = Log()
            let list = TickerList().withAnchor()
            let a = Ticker(id: 1, log: log)
            list.maybe = a
            log.clear()
            list.node.transaction {
                list.maybe = nil
                list.items = [Ticker(id: 1, log: log)]
            }
            #expect(a.lifetime == .destructed, "continuity is for the slot the child was in")
            #expect(list.items.first?.lifetime == .anchored)
            #expect(log.all == ["cancel 1", "activate 1"])
        }

        @Test func twoInstancesRefillingOneRemovedChildsIDAreReported() async {
            await IssueCapture.run(matching: "two different Ticker models") { capture in
                let log = Log()
                let list = TickerList().withAnchor()
                let a = Ticker(id: 1, title: "a", log: log)
                list.items = [a]
                list.node.transaction {
                    list.items = []
                    list.items = [Ticker(id: 1, title: "b", log: log), Ticker(id: 1, title: "c", log: log)]
                }
                #expect(a.lifetime == .anchored && a.title == "b", "the first continues the removed child")
                #expect(list.items.count == 2 && list.items[1].lifetime == .initial, "the second is not anchored")
                #expect(capture.messages.count == 1, "\(capture.messages)")
            }
        }

        @Test func differentIDReplacesTheChild() {
            let log = Log()
            let list = TickerList().withAnchor()
            let a = Ticker(id: 1, log: log)
            list.maybe = a
            log.clear()
            list.maybe = Ticker(id: 2, log: log)
            #expect(a.lifetime == .destructed)
            #expect(list.maybe?.lifetime == .anchored)
            #expect(log.all == ["cancel 1", "activate 2"], "torn down before the new one activates")
        }

        @Test func defaultModelIDsNeverMatchAnotherInstance() {
            let list = TickerList().withAnchor()
            let first = CounterModel()
            list.anonymous = first
            list.anonymous = CounterModel()
            #expect(first.lifetime == .destructed)
            #expect(list.anonymous?.lifetime == .anchored)
        }

        @Test func twoInstancesWithOneIDInOneSlotAreReported() async {
            await IssueCapture.run(matching: "TickerList.items") { capture in
                let list = TickerList().withAnchor()
                list.items = [Ticker(id: 1, log: Log()), Ticker(id: 1, log: Log())]
                #expect(list.items.count == 2)
                #expect(list.items[0].lifetime == .anchored)
                #expect(list.items[1].lifetime == .initial, "the second is not anchored")
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.contains("two different Ticker models with the id 1") == true)
            }
        }

        @Test func continuingAChainOfInstancesKeepsEveryHandleLive() async {
            await IssueCapture.run(matching: "Ticker") { capture in
                let list = TickerList().withAnchor()
                let instances = (0..<5).map { Ticker(id: 1, title: "v\($0)", log: Log()) }
                for instance in instances { list.maybe = instance }
                #expect(instances.allSatisfy { $0.title == "v4" && $0.lifetime == .anchored })
                instances[0].title = "through the oldest"
                #expect(instances.allSatisfy { $0.title == "through the oldest" })
                #expect(capture.messages.isEmpty, "\(capture.messages)")
            }
        }

        @Test func writesFromManyThreadsThroughEveryHandleAreAllKept() async {
            await IssueCapture.run(matching: "Ticker") { capture in
                let list = TickerList().withAnchor()
                let first = Ticker(id: 1, log: Log())
                list.maybe = first
                let again = Ticker(id: 1, log: Log())
                list.maybe = again
                await withTaskGroup(of: Void.self) { group in
                    for handle in [first, again, first, again] {
                        group.addTask {
                            for _ in 0..<500 { handle.ticks += 1 }
                        }
                    }
                }
                #expect(list.maybe?.ticks == 2_000)
                #expect(capture.messages.isEmpty, "\(capture.messages)")
            }
        }

        @Test func reassigningWhileOtherThreadsWriteReportsNothing() async {
            await IssueCapture.run(matching: "Ticker") { capture in
                let list = TickerList().withAnchor()
                let first = Ticker(id: 1, log: Log())
                list.items = [first]
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for round in 0..<300 { list.items = [Ticker(id: 1, title: "\(round)", log: Log())] }
                    }
                    group.addTask {
                        for _ in 0..<300 { first.ticks += 1 }
                    }
                    group.addTask {
                        for round in 0..<300 { list.items.first?.title = "write \(round)" }
                    }
                }
                #expect(first.lifetime == .anchored)
                #expect(list.items.count == 1 && list.items[0].title == first.title)
                #expect(capture.messages.isEmpty, "\(capture.messages)")
            }
        }

        @Test func frozenCopyOfAnEarlierInstanceShowsTheLiveValues() {
            let list = TickerList().withAnchor()
            let first = Ticker(id: 1, title: "draft", log: Log())
            list.maybe = first
            list.maybe = Ticker(id: 1, title: "final", log: Log())
            #expect(first.frozenCopy.title == "final")
        }
    }
}
