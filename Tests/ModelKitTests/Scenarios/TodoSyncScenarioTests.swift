import Foundation
import ModelKit
import ModelKitTesting
import Testing

// The todo app of TodoSyncModels.swift driven as its team's tests would drive it, under a
// full-exhaustivity Tester and a TestClock: every change, event and save is asserted.

private let homeID = UUID(101), workID = UUID(102)
private let milkID = UUID(111), breadID = UUID(112), plantsID = UUID(113), reportID = UUID(121)

private func makeApp() -> TodoApp {
    TodoApp(lists: [
        TodoList(id: homeID, name: "Home", items: [
            TodoItem(id: milkID, title: "Buy milk"), TodoItem(id: breadID, title: "Bake bread"),
        ]),
        TodoList(id: workID, name: "Work", items: [TodoItem(id: reportID, title: "Write report")]),
    ])
}

/// The server's answer after someone edited the lists elsewhere: milk renamed, bread done, plants new.
private let serverLists = [
    ServerList(id: homeID, name: "Home", items: [
        (milkID, "Buy oat milk", false), (breadID, "Bake bread", true), (plantsID, "Water plants", false),
    ]),
    ServerList(id: workID, name: "Work", items: [(reportID, "Write report", false)]),
]

private func issueText(_ issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

private struct Harness {
    let clock = TestClock()
    let saves = TestProbe("save")

    func start(_ app: TodoApp = makeApp()) -> (TodoApp, Tester) {
        let saves = saves
        let (app, tester) = app.andTester {
            $0.continuousClock = clock
            $0.todoServer.save = { saves.call($0) }
        }
        tester.install(saves)
        return (app, tester)
    }
}

@Suite struct TodoSyncScenarioTests {
    @Test func searchIsDebouncedOnTheClockAndFiltersEveryList() async {
        let h = Harness()
        let (app, tester) = h.start()
        let home = app.lists[0], work = app.lists[1]

        app.searchText = "b"
        await h.clock.advance(by: .milliseconds(100))
        app.searchText = "br"
        await h.clock.advance(by: .milliseconds(299))
        await tester.assert {
            app.searchText == "br"
            home.visibleTitles == ["Buy milk", "Bake bread"]
        }

        await h.clock.advance(by: .milliseconds(1))
        await tester.assert {
            home.visibleTitles == ["Bake bread"]
            work.visibleTitles == []
        }

        home.filter = .done
        await tester.assert {
            home.filter == .done
            home.visibleTitles == []
        }
        home.items[1].toggleTapped()
        await tester.assert {
            home.items[1].isDone
            home.visibleTitles == ["Bake bread"]
            home.completedCount == 1
            home.items[1].didSend(TodoItem.Event.completed)
            app.activity == ["done: Bake bread"]
        }
        await tester.finish()
    }

    @Test func aServerRefreshContinuesItemsAndTheirRunningTimers() async {
        let h = Harness()
        let (app, tester) = h.start()
        let milk = app.lists[0].items[0], bread = app.lists[0].items[1]

        await h.clock.advance(by: .seconds(60))
        await tester.assert(app.lists.flatMap(\.items).map(\.reminders) == [1, 1, 1])

        // Fresh instances with the same ids: the differences are applied, and only they are recorded
        // (the server's items start with no reminders: every tracked value is applied, API.md 8).
        app.refresh(from: serverLists)
        await tester.settle()
        await withKnownIssue {
            await tester.assert(app.lists.count == 2)
        } matching: { issue in
            let text = issueText(issue)
            if text.hasPrefix("Events were not asserted:") {
                return text.contains("\n  TodoApp.lists[0].items[1] sent .completed\n\n")
            }
            let changed = Set(text.split(separator: "\n").filter { $0.hasPrefix("  TodoApp.") })
            return changed == [
                "  TodoApp.lists[0].items[0].title: \"Buy milk\" → \"Buy oat milk\"",
                "  TodoApp.lists[0].items[0].savedTitle: \"Buy milk\" → \"Buy oat milk\"",
                "  TodoApp.lists[0].items[0].reminders: 1 → 0",
                "  TodoApp.lists[0].items[1].isDone: false → true",
                "  TodoApp.lists[0].items[1].reminders: 1 → 0",
                "  TodoApp.lists[0].items:",
                "  TodoApp.lists[1].items[0].reminders: 1 → 0",
                "  TodoApp.lists[0].completedCount: 0 → 1",
                "  TodoApp.activity: [] → [[0]: \"done: Bake bread\"]",
            ] && text.contains("  +   [2]: TodoItem(\n  +     id: UUID(00000000-0000-0000-0000-000000000071),")
        }

        // The handles taken before the refresh are the live items.
        #expect(milk.lifetime == .anchored && bread.lifetime == .anchored)
        #expect(milk.title == "Buy oat milk" && bread.isDone)

        // The refresh is a modification: autosave sends the new document, once.
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Buy oat milk", "Home/Bake bread/done", "Home/Water plants", "Work/Write report"])
            app.lastSaved == app.document
            app.autosaveRounds == 1
        }

        // The continued items' timers tick on (bread is done), the new item's started with it.
        await h.clock.advance(by: .seconds(58))
        await tester.assert {
            app.lists[0].items.map(\.reminders) == [1, 0, 1]
            app.lists[1].items[0].reminders == 1
        }

        // A handle from before the refresh writes to the live item.
        milk.rename("Buy soy milk")
        await tester.assert {
            app.lists[0].items[0].title == "Buy soy milk"
            app.unsavedCount == 1
        }
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Buy soy milk", "Home/Bake bread/done", "Home/Water plants", "Work/Write report"])
            app.lastSaved == app.document
            milk.savedTitle == "Buy soy milk"
            app.unsavedCount == 0
            app.autosaveRounds == 2
        }
        await tester.finish()
    }

    @Test func autosaveWaitsForAQuietMomentAndIgnoresTransientState() async {
        let h = Harness()
        let (app, tester) = h.start()
        let home = app.lists[0]
        let milk = home.items[0]

        // UI state only: no modification, so no autosave round.
        milk.isEditing = true
        home.filter = .active
        await h.clock.advance(by: .seconds(5))
        await tester.assert {
            milk.isEditing
            home.filter == .active
            app.autosaveRounds == 0
        }

        // A burst of edits: one save, two seconds after the last.
        milk.rename("Buy m")
        await h.clock.advance(by: .seconds(1))
        milk.rename("Buy mi")
        await h.clock.advance(by: .seconds(1))
        milk.rename("Buy mil")
        await h.clock.advance(by: .milliseconds(1999))
        await tester.assert {
            milk.title == "Buy mil"
            app.unsavedCount == 1
            h.saves.callCount == 0
        }
        await h.clock.advance(by: .milliseconds(1))
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Buy mil", "Home/Bake bread", "Work/Write report"])
            app.lastSaved == app.document
            milk.savedTitle == "Buy mil"
            app.unsavedCount == 0
            app.autosaveRounds == 1
        }
        // Marking the items saved removed their contribution (an element of `modifications`): one
        // more round, which finds nothing new to save.
        await h.clock.advance(by: .seconds(2))
        await tester.assert(app.autosaveRounds == 2)
        #expect(h.saves.callCount == 1)
        await tester.finish()
    }

    @Test func theUnsavedCountFlowsUpFromEveryEditedItem() async {
        let h = Harness()
        let (app, tester) = h.start()
        let home = app.lists[0], work = app.lists[1]

        home.items[0].rename("Buy oat milk")
        work.items[0].rename("Write the report")
        await tester.assert {
            home.items[0].title == "Buy oat milk"
            work.items[0].title == "Write the report"
            app.unsavedCount == 2
            home.node.preference.todoUnsaved == 1
        }
        // Renamed back: no longer unsaved.
        work.items[0].rename("Write report")
        await tester.assert {
            work.items[0].title == "Write report"
            app.unsavedCount == 1
        }
        // Removing the edited item removes its contribution.
        home.remove(home.items[0])
        await tester.assert {
            home.items.map(\.title) == ["Bake bread"]
            app.unsavedCount == 0
        }
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Bake bread", "Work/Write report"])
            app.lastSaved == app.document
            app.autosaveRounds == 1
        }
        await tester.finish()
    }

    @Test func theThemeIsChangedOnTheWayDown() async {
        let h = Harness()
        let (app, tester) = h.start()
        let home = app.lists[0], work = app.lists[1]

        app.darkModeToggled()
        work.highContrastToggled()
        await tester.assert {
            app.theme == "dark"
            home.items.map(\.theme) == ["dark", "dark"]
            work.items[0].theme == "contrast"
        }
        // A list added later reads the app's theme where it is placed.
        app.lists.append(TodoList(id: UUID(103), name: "Garden", items: [TodoItem(id: UUID(131), title: "Mow")]))
        await tester.assert {
            app.lists.map(\.name) == ["Home", "Work", "Garden"]
            app.lists[2].items[0].theme == "dark"
        }
        work.followAppThemeTapped()
        app.darkModeToggled()
        await tester.assert {
            work.items[0].theme == "light"
            app.theme == "light"
        }
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Buy milk", "Home/Bake bread", "Work/Write report", "Garden/Mow"])
            app.lastSaved == app.document
            app.autosaveRounds == 1
        }
        await tester.finish()
    }

    @Test func undoTakesBackEditsRemovalsAndARefresh() async {
        let h = Harness()
        let (app, tester) = h.start()
        let home = app.lists[0]
        let milk = home.items[0], bread = home.items[1]

        milk.rename("Buy oat milk")
        await tester.assert(milk.title == "Buy oat milk" && app.unsavedCount == 1)
        app.undoTapped()
        await tester.assert(milk.title == "Buy milk" && app.unsavedCount == 0)

        // A removed item comes back live: its timer runs again, its events reach the list.
        home.remove(bread)
        await tester.assert(home.items.map(\.title) == ["Buy milk"])
        #expect(bread.lifetime == .destructed)
        app.undoTapped()
        await tester.assert(home.items.map(\.title) == ["Buy milk", "Bake bread"])
        let revived = home.items[1]
        #expect(revived.lifetime == .anchored)
        await h.clock.advance(by: .seconds(60))
        await tester.assert {
            app.lists.flatMap(\.items).map(\.reminders) == [1, 1, 1]
            app.autosaveRounds == 1
        }
        #expect(h.saves.callCount == 0, "the document is what the server has")
        revived.toggleTapped()
        await tester.assert {
            revived.isDone
            revived.didSend(TodoItem.Event.completed)
            home.completedCount == 1
            app.activity == ["done: Bake bread"]
        }

        // A refresh is one entry: undo takes all of it back, on the same live items.
        app.refresh(from: serverLists)
        await tester.assert {
            home.items.map(\.title) == ["Buy oat milk", "Bake bread", "Water plants"]
            home.items.map(\.savedTitle) == ["Buy oat milk", "Bake bread", "Water plants"]
            app.lists.flatMap(\.items).map(\.reminders) == [0, 0, 0, 0]
            home.completedCount == 0
        }
        // Undo leaves `.transient` state alone: the saved titles and the reminders stay as the
        // refresh left them, so the old title counts as unsaved.
        app.undoTapped()
        await tester.assert {
            home.items.map(\.title) == ["Buy milk", "Bake bread"]
            home.items.map(\.savedTitle) == ["Buy oat milk", "Bake bread"]
            app.lists.flatMap(\.items).map(\.reminders) == [0, 0, 0]
            app.unsavedCount == 1
            milk.lifetime == .anchored
            app.node.undoStack.canRedo
        }
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Buy milk", "Home/Bake bread/done", "Work/Write report"])
            app.lastSaved == app.document
            home.items.map(\.savedTitle) == ["Buy milk", "Bake bread"]
            app.unsavedCount == 0
            app.autosaveRounds == 2
        }
        await tester.finish()
    }

    @Test func savingNowCancelsTheSaveInFlightAndCancellingByIDStopsIt() async {
        let h = Harness()
        let (app, tester) = h.start()
        let milk = app.lists[0].items[0]

        milk.rename("Buy oat milk")
        app.saveNowTapped()
        await h.clock.advance(by: .milliseconds(500))
        app.saveNowTapped()                     // cancels the first, in flight
        await h.clock.advance(by: .milliseconds(500))
        app.cancelSavingTapped()                // cancels the second: the app's own work only
        await h.clock.advance(by: .milliseconds(900))
        await tester.assert {
            milk.title == "Buy oat milk"
            app.unsavedCount == 1
            h.saves.callCount == 0
        }

        // The items' timers were not the app's work: they tick on.
        app.saveNowTapped()
        await h.clock.advance(by: .milliseconds(100))   // t = 2 s: autosave's round comes first
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Buy oat milk", "Home/Bake bread", "Work/Write report"])
            app.lastSaved == app.document
            milk.savedTitle == "Buy oat milk"
            app.unsavedCount == 0
            app.autosaveRounds == 1
        }
        await h.clock.advance(by: .seconds(58))
        await tester.assert {
            app.lists.flatMap(\.items).map(\.reminders) == [1, 1, 1]
            app.autosaveRounds == 2
        }
        #expect(h.saves.callCount == 1, "the save asked for found the document saved")
        await tester.finish()
    }

    @Test func aTransactionIsOneModificationOneUndoEntryAndOnePrintedBatch() async throws {
        let h = Harness()
        let (app, tester) = h.start()
        let home = app.lists[0], work = app.lists[1]
        let milk = home.items[0], bread = home.items[1]
        let printed = Log()
        let printing = app._printChanges(to: { printed.add($0) })

        app.node.transaction {
            milk.rename("Buy oat milk")
            bread.toggleTapped()
            home.addItem("Water plants")
            work.name = "Office"
            app.darkModeToggled()
        }
        await tester.assert {
            home.items.map(\.title) == ["Buy oat milk", "Bake bread", "Water plants"]
            home.items[2].id == UUID(0)
            bread.isDone
            bread.didSend(TodoItem.Event.completed)
            home.completedCount == 1
            app.activity == ["done: Bake bread"]
            work.name == "Office"
            work.items[0].theme == "dark"
            app.unsavedCount == 1
        }
        // The printer runs on the writing thread before the write returns, which may be just
        // after another thread (this one) sees the value.
        #expect(await eventually { printed.all.count == 9 })
        printing.cancel()
        // The transaction's changes in write order, then what reacted to them after it (the undo
        // stack, the contribution, the list and the app handling the event).
        let lines = printed.all
        try #require(lines.count == 9, "\(lines.map { $0.prefix(60) })")
        #expect(lines[0] == "TodoApp.lists[0].items[0].title: \"Buy milk\" → \"Buy oat milk\"")
        #expect(lines[1] == "TodoApp.lists[0].items[1].isDone: false → true")
        #expect(lines[2].hasPrefix("TodoApp.lists[0].items:\n") && lines[2].contains("+   [2]: TodoItem("))
        #expect(lines[3] == "TodoApp.lists[1].name: \"Work\" → \"Office\"")
        #expect(lines[4] == "TodoApp.environment.todoTheme: \"light\" → \"dark\"")
        #expect(Set(lines[5...]) == [
            "ModelUndoStack.canUndo: false → true",
            "TodoApp.lists[0].items[0].preference.todoUnsaved: nil → 1",
            "TodoApp.lists[0].completedCount: 0 → 1",
            "TodoApp.activity: [] → [[0]: \"done: Bake bread\"]",
        ])

        // One round of autosave for the whole transaction.
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Buy oat milk", "Home/Bake bread/done", "Home/Water plants", "Office/Write report"])
            app.lastSaved == app.document
            milk.savedTitle == "Buy oat milk"
            app.unsavedCount == 0
            app.autosaveRounds == 1
        }

        // One undo entry takes back the edits (not the theme: environment values are left out).
        app.undoTapped()
        await tester.assert {
            home.items.map(\.title) == ["Buy milk", "Bake bread"]
            !bread.isDone
            bread.didSend(TodoItem.Event.reopened)
            home.completedCount == 0
            work.name == "Work"
            work.items[0].theme == "dark"
            app.unsavedCount == 1
            !app.node.undoStack.canUndo
        }
        await tester.finish()
    }

    @Test func teardownInTheMiddleOfRunningWorkStopsAllOfIt() async {
        let h = Harness()
        let (app, tester) = h.start()
        let home = app.lists[0], work = app.lists[1]
        let milk = home.items[0], report = work.items[0]
        await h.clock.advance(by: .seconds(60))
        await tester.assert(app.lists.flatMap(\.items).map(\.reminders) == [1, 1, 1])

        // Work in flight everywhere: an autosave pending, a save sleeping, a search debouncing.
        milk.rename("Buy oat milk")
        report.rename("Write the report")
        app.saveNowTapped()
        app.searchText = "milk"
        await h.clock.advance(by: .milliseconds(100))

        await tester.assert {
            milk.title == "Buy oat milk"
            report.title == "Write the report"
            app.unsavedCount == 2
            app.searchText == "milk"
        }

        // A list removed mid-way: its items stop; the rest goes on.
        app.lists.removeFirst()
        await tester.assert {
            app.lists.map(\.name) == ["Work"]
            app.unsavedCount == 1
        }
        #expect(home.lifetime == .destructed && milk.lifetime == .destructed)
        await h.clock.advance(by: .seconds(60))
        await tester.assert {
            h.saves.wasCalled(with: ["Work/Write the report"])
            app.lastSaved == ["Work/Write the report"]
            report.savedTitle == "Write the report"
            app.unsavedCount == 0
            work.visibleTitles == []
            report.reminders == 2
            app.autosaveRounds == 1
        }
        #expect(milk.reminders == 1, "a removed item's timer stopped")

        // The test ends with a save sleeping: the end of the test cancels the app's activation
        // work (the autosave pending included, which saves nothing), then reports the save.
        report.rename("Write the final report")
        app.saveNowTapped()
        await tester.assert(report.title == "Write the final report" && app.unsavedCount == 1)
        tester.timeout = .milliseconds(50)
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            let text = issueText(issue)
            return text.hasPrefix("A task of TodoApp started here was still running when the test ended.\n")
                && issue.sourceLocation?.fileName == "TodoSyncModels.swift"
        }
        #expect(h.saves.callCount == 1)
        #expect(report.lifetime == .destructed)
    }

    @Test func aDetachedWriterAndTheTestDriveTheAppAtOnce() async {
        let h = Harness()
        let (app, tester) = h.start()
        let milk = app.lists[0].items[0], bread = app.lists[0].items[1]

        let writer = Task.detached {
            for i in 1...200 { milk.rename("Buy milk \(i)") }
        }
        for i in 1...50 {
            app.refresh(from: serverLists)
            app.lists[1].name = "Work \(i)"
        }
        await writer.value
        await tester.settle()
        app.refresh(from: serverLists)
        await tester.assert {
            app.lists[0].items.map(\.title) == ["Buy oat milk", "Bake bread", "Water plants"]
            app.lists[1].name == "Work"
            milk.lifetime == .anchored
            milk.title == "Buy oat milk"
            milk.savedTitle == "Buy oat milk"
            bread.isDone
            bread.didSend(TodoItem.Event.completed)
            // Counted when bread's event arrived, then reset by the next refresh: the server's
            // lists start from zero, and every tracked value of a fresh instance is applied.
            app.lists[0].completedCount == 0
            app.activity == ["done: Bake bread"]
            app.unsavedCount == 0
        }
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            h.saves.wasCalled(with: ["Home/Buy oat milk", "Home/Bake bread/done", "Home/Water plants", "Work/Write report"])
            app.lastSaved == app.document
            app.autosaveRounds == 1
        }
        await tester.finish()
    }

    @Test func aFailedAssertionListsTheEventsSentAndWhatTheFilterRead() async {
        let h = Harness()
        let (app, tester) = h.start()
        tester.timeout = .milliseconds(20)
        let home = app.lists[0]
        home.items[1].toggleTapped()
        // The wrong item, and a filter that still shows both.
        await withKnownIssue {
            await tester.assert {
                home.items[0].didSend(TodoItem.Event.completed)
                home.visibleTitles == ["Bake bread"]
            }
        } matching: { issue in
            let text = issueText(issue)
            return text.hasPrefix("Assertion failed: predicates 1 and 2 of 2 were still false after 0.02 s.\n")
                && text.contains("""
                    events sent and not asserted:
                          TodoApp.lists[0].items[1] sent .completed

                      home.visibleTitles == ["Bake bread"]
                        expected: ["Bake bread"]
                        read: TodoApp.lists[0].visibleItems (memoized) = [
                    """)
                && text.contains("    read: TodoApp.lists[0].filter = .all\n")
                && text.contains("    read: TodoApp.lists[0].environment.todoQuery = \"\"\n")
        }
        // What the failure showed counts as reported; the rest is asserted as usual.
        await tester.assert {
            home.items[1].isDone
            home.completedCount == 1
            app.activity == ["done: Bake bread"]
        }
        await tester.finish()
    }
}
