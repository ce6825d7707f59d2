import Foundation
import ModelKit
import ModelKitTesting
import Synchronization
import Testing

// The multi-window app of MultiWindowModels.swift: several windows (each its own hierarchy) open
// and closed in any order, one catalog service shared by all, one bookshelf model per window.

@Suite struct MultiWindowScenarioTests {
    @Test func twoWindowsUnderTwoTestersEachAssertOnlyTheirOwnChanges() async {
        let service = CatalogService()
        let (left, leftTester) = AppWindow(name: "left").andTester { $0.catalog = Catalog(service: service) }
        let (right, rightTester) = AppWindow(name: "right").andTester { $0.catalog = Catalog(service: service) }

        left.refreshTapped()
        await leftTester.assert {
            left.isLoading == false
            left.node.bookshelf.books == ["Dune", "Emma"]
        }
        #expect(right.node.bookshelf.books == [])
        right.document = WindowDocument(id: "notes", text: "hi")
        await rightTester.assert(right.document?.text == "hi")
        #expect(left.document == nil)
        #expect(service.loads == ["left"])
        await leftTester.finish()
        await rightTester.finish()
    }

    @Test func eachTesterChecksItsOwnProbes() async {
        let leftProbe = TestProbe("left"), rightProbe = TestProbe("right")
        let (left, leftTester) = AppWindow(name: "left").andTester()
        let (right, rightTester) = AppWindow(name: "right").andTester()
        leftTester.install(leftProbe)
        rightTester.install(rightProbe)
        left.node.onChange(of: \.savedTexts) { _, new in leftProbe.call(new.count) }
        right.node.onChange(of: \.savedTexts) { _, new in rightProbe.call(new.count) }

        left.document = WindowDocument(id: "a", text: "one")
        left.document?.saveTapped()
        await leftTester.assert {
            left.document?.text == "one"
            left.savedTexts == ["one"]
            left.document?.didSend(.saved("one")) == true
            leftProbe.wasCalled(with: 1)
        }
        #expect(rightProbe.callCount == 0)
        #expect(right.savedTexts == [])
        await leftTester.finish()
        await rightTester.finish()
    }

    @Test func eventsOfOneWindowNeverReachAnother() async {
        let (left, leftTester) = AppWindow(name: "left").andTester()
        let (right, rightTester) = AppWindow(name: "right").andTester()
        left.document = WindowDocument(id: "shared-id", text: "L")
        right.document = WindowDocument(id: "shared-id", text: "R")
        left.document?.node.send(.saved("L"), to: [.self, .ancestors, .descendants, .dependencies])
        await leftTester.assert {
            left.document?.text == "L"
            left.savedTexts == ["L"]
            left.document?.didSend(.saved("L")) == true
        }
        await rightTester.assert {
            right.document?.text == "R"
            right.savedTexts == []
        }
        let seen = left.node.mapHierarchy(for: [.self, .descendants, .dependencies]) { ($0 as? WindowDocument)?.text }
        #expect(seen == ["L"])
        await leftTester.finish()
        await rightTester.finish()
    }

    @Test func closingAWindowWhileItsTaskAwaitsTheSharedServiceFreesItAndLeavesTheOther() async {
        let service = CatalogService(), gate = Gate(), tracker = LifetimeTracker()
        let leftCounters = WindowCounters(), rightCounters = WindowCounters()
        service.hold(on: gate)
        // The documented pattern (Hierarchy.md): keep the anchor as a lifetime token and talk to
        // the window through the original, so that its tasks do not capture the anchor.
        let left = AppWindow(name: "left", counters: leftCounters, token: tracker.token())
        var leftAnchor: AppWindow? = left.withAnchor { $0.catalog = Catalog(service: service) }
        let right = AppWindow(name: "right", counters: rightCounters)
            .withAnchor { $0.catalog = Catalog(service: service) }
        left.document = WindowDocument(id: "d", text: "x", token: tracker.token())
        let leftShelf = left.node.bookshelf
        left.refreshTapped()
        right.refreshTapped()
        #expect(await eventually { service.loads.count == 2 })

        #expect(leftAnchor?.lifetime == .anchored)
        leftAnchor = nil
        // Closing cancels the window's work at once; its task, parked inside the shared service
        // (which does not watch for cancellation), ends when the service returns, writing nothing.
        #expect(leftCounters["onCancel"] == 1)
        #expect(leftShelf.lifetime == .destructed)
        #expect(leftCounters["taskEnded"] == 0)

        gate.open()
        #expect(await eventually { right.node.bookshelf.books == ["Dune", "Emma"] })
        #expect(await eventually { leftCounters["taskEnded"] == 1 })
        // Only the token of the original value `left`, which the test still holds, is alive.
        #expect(await eventually { tracker.liveCount == 1 })
        #expect(leftShelf.books == [])
        #expect(right.isLoading == false)
        #expect(rightCounters["onCancel"] == 0)
        #expect(leftCounters["onCancel"] == 1)
        #expect(leftCounters["taskEnded"] == 1)
    }

    @Test func windowsClosedInAnyOrderEachRunTheirOnCancelOnce() async {
        let tracker = LifetimeTracker()
        let counters = (0..<3).map { _ in WindowCounters() }
        var windows: [AppWindow?] = (0..<3).map { index in
            AppWindow(name: "w\(index)", counters: counters[index], token: tracker.token()).withAnchor()
        }
        for index in [1, 0, 2] {
            windows[index]?.document = WindowDocument(id: "d", token: tracker.token())
        }
        windows[1] = nil
        #expect(counters.map { $0["onCancel"] } == [0, 1, 0])
        windows[2] = nil
        windows[0] = nil
        #expect(counters.map { $0["onCancel"] } == [1, 1, 1])
        #expect(await tracker.allFreed())
    }

    @Test func streamsOfAClosedWindowFinish() async {
        var window: AppWindow? = AppWindow(name: "w").withAnchor()
        let changes = window!.change(of: \.savedTexts)
        let task = Task {
            var values: [[String]] = []
            for await value in changes { values.append(value) }
            return values
        }
        window?.savedTexts = ["a"]
        window = nil
        let values = await task.value
        #expect(values.last == ["a"])
    }

    @Test func printedChangesOfAWindowShowItsOwnBookshelfOnly() async {
        let left = AppWindow(name: "left").withAnchor(), right = AppWindow(name: "right").withAnchor()
        let lines = Locked<[String]>([])
        let printing = left._printChanges { line in lines.withLock { $0.append(line) } }
        left.node.bookshelf.books = ["L"]
        right.node.bookshelf.books = ["R"]
        left.document = WindowDocument(id: "x", text: "t")
        right.document = WindowDocument(id: "x", text: "r")
        left.document?.text = "u"
        printing.cancel()
        #expect(lines.value == [
            "Bookshelf.books: [] → [[0]: \"L\"]",
            "AppWindow.document: nil → WindowDocument(id: \"x\", text: \"t\", token: nil)",
            "AppWindow.document.text: \"t\" → \"u\"",
        ])
    }

    @Test func printedChangesOfTwoWindowsWrittenFromTwoThreadsGoEachToItsOwnPrinter() async {
        let left = AppWindow(name: "left").withAnchor(), right = AppWindow(name: "right").withAnchor()
        let leftLines = Locked<[String]>([]), rightLines = Locked<[String]>([])
        let leftPrinting = left._printChanges { line in leftLines.withLock { $0.append(line) } }
        let rightPrinting = right._printChanges { line in rightLines.withLock { $0.append(line) } }
        let writes = 100
        #expect(await allFinishWithoutDeadlock([
            { for n in 0..<writes { left.savedTexts = ["L\(n)"] } },
            { for n in 0..<writes { right.savedTexts = ["R\(n)"] } },
        ]))
        leftPrinting.cancel()
        rightPrinting.cancel()
        #expect(leftLines.value.count == writes)
        #expect(rightLines.value.count == writes)
        #expect(leftLines.value.allSatisfy { $0.hasPrefix("AppWindow.savedTexts") && !$0.contains("\"R") })
        #expect(rightLines.value.allSatisfy { $0.hasPrefix("AppWindow.savedTexts") && !$0.contains("\"L") })
    }
}

extension ReportedIssueTests {
    @Suite struct MultiWindowReportTests {
        @Test func aDocumentOfOneWindowAssignedToAnotherIsReportedAndStaysInItsWindow() async {
            await IssueCapture.run(matching: "WindowDocument") { capture in
                let left = AppWindow(name: "left").withAnchor(), right = AppWindow(name: "right").withAnchor()
                left.document = WindowDocument(id: "d", text: "left text")
                let document = left.document!
                right.document = document
                #expect(capture.messages.count == 1)
                document.text = "edited"
                #expect(left.document?.text == "edited")
                #expect(document.lifetime == .anchored)
                left.document = nil
                #expect(document.lifetime == .destructed)
            }
        }

        @Test func aDocumentOfAClosedWindowReportsWritesAndKeepsItsValue() async {
            await IssueCapture.run(matching: "WindowDocument") { capture in
                var window: AppWindow? = AppWindow(name: "w").withAnchor()
                window?.document = WindowDocument(id: "d", text: "kept")
                let document = window!.document!
                window = nil
                #expect(document.lifetime == .destructed)
                document.text = "late"
                #expect(document.text == "kept")
                #expect(capture.messages.count == 1)
            }
        }

        @Test func closingAWindowFromAnotherThreadWhileATransactionWritesEndsCleanly() async {
            await IssueCapture.run(matching: "WindowDocument") { _ in
                let tracker = LifetimeTracker(), counters = WindowCounters()
                let window = AppWindow(name: "w", counters: counters, token: tracker.token())
                let anchor = Locked<AppWindow?>(window.withAnchor())
                window.document = WindowDocument(id: "d", text: "")
                let document = window.document!
                let inTransaction = DispatchSemaphore(value: 0)
                #expect(await allFinishWithoutDeadlock([
                    {
                        document.node.transaction {
                            document.text = "typing"
                            inTransaction.signal()
                            for n in 0..<50 { document.text = "typed \(n)" }
                        }
                    },
                    {
                        inTransaction.wait()
                        anchor.withLock { $0 = nil }
                    },
                ]))
                #expect(counters["onCancel"] == 1)
                #expect(document.lifetime == .destructed)
                // Only the token of the original value `window`, which the test still holds, is alive.
                #expect(await eventually { tracker.liveCount == 1 })
            }
        }

        @Test func oneBookshelfGivenToTwoWindowsIsReportedAndShared() async {
            await IssueCapture.run(matching: "Bookshelf") { capture in
                let shelf = Bookshelf()
                let left = AppWindow(name: "left").withAnchor { $0.bookshelf = shelf }
                let right = AppWindow(name: "right").withAnchor { $0.bookshelf = shelf }
                left.node.bookshelf.books = ["Dune"]
                #expect(right.node.bookshelf.books == ["Dune"])
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix(
                    "AppWindow uses the dependency Bookshelf, a Bookshelf that belongs to another hierarchy"
                ) == true)
            }
        }

        @Test func aWindowUsedAfterItsTesterFinishedReportsEachUseThroughThatTester() async {
            let (left, leftTester) = AppWindow(name: "left").andTester()
            let (right, rightTester) = AppWindow(name: "right").andTester()
            await leftTester.finish()
            #expect(left.lifetime == .destructed)
            #expect(right.lifetime == .anchored)
            withKnownIssue {
                left.savedTexts = ["late"]
            } matching: { issue in
                issue.description.contains("Wrote to AppWindow.savedTexts of a destructed AppWindow")
            }
            #expect(left.savedTexts == [])
            right.savedTexts = ["on time"]
            await rightTester.assert(right.savedTexts == ["on time"])
            await rightTester.finish()
        }

        @Test func anAssertionReadingOnlyAnotherWindowFailsAndAssertsNothing() async {
            let (left, leftTester) = AppWindow(name: "left").andTester()
            let (_, rightTester) = AppWindow(name: "right").andTester()
            left.savedTexts = ["x"]
            await withKnownIssue {
                await rightTester.assert(left.savedTexts == ["x"])
            } matching: { issue in
                issue.description.contains("The assertion read only models of another hierarchy (AppWindow.savedTexts)")
            }
            await leftTester.assert(left.savedTexts == ["x"])
            await leftTester.finish()
            await rightTester.finish()
        }

        @Test func aDocumentOfAClosedWindowAddedToAnotherIsReportedAsDestructed() async {
            await IssueCapture.run(matching: "WindowDocument") { capture in
                var closing: AppWindow? = AppWindow(name: "closing").withAnchor()
                let open = AppWindow(name: "open").withAnchor()
                closing?.document = WindowDocument(id: "d", text: "draft")
                let document = closing!.document!
                closing = nil
                open.document = document
                #expect(open.document?.lifetime == .destructed)
                #expect(capture.messages.first?.hasPrefix(
                    "A destructed WindowDocument (removed from another hierarchy) was added to AppWindow.document"
                ) == true)
                #expect(capture.messages.count == 1)
            }
        }
    }
}
