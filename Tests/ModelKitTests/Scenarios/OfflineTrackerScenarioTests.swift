import ModelKit
import ModelKitTesting
import Testing

// The issue tracker of OfflineTrackerModels.swift driven by a full-exhaustivity Tester and a
// TestClock: every change, push and running task is asserted, the server is an actor.

private let crashPath = "TrkApp.workspace.projects[0].issues[0].title"
private let darkPath = "TrkApp.workspace.projects[0].issues[1].title"
private let loginEstimatePath = "TrkApp.workspace.projects[1].issues[0].estimate"
private let estimatePath = "TrkApp.workspace.projects[0].issues[0].estimate"
private let statusPath = "TrkApp.workspace.projects[0].issues[0].status"
private let commentPath = "TrkApp.workspace.projects[0].issues[0].comments[0].body"

func trkWorkspace() -> TrkWorkspace {
    TrkWorkspace(projects: [
        TrkProject(id: 1, name: "App", issues: [
            TrkIssue(
                id: 11, title: "Crash on launch", estimate: 3,
                comments: [TrkComment(id: 111, body: "Seen on iOS 18")]),
            TrkIssue(id: 12, title: "Dark mode", status: .inProgress, estimate: 5),
        ]),
        TrkProject(id: 2, name: "Web", issues: [TrkIssue(id: 21, title: "Login timeout", estimate: 2)]),
    ])
}

private func issueText(_ issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

private struct Harness {
    let clock = TestClock()
    let pushes = TestProbe("push")
    let server: TrkServer

    init() {
        let pushes = pushes
        server = TrkServer(projects: trkWorkspace().document, clock: clock, onPush: { pushes.call($0) })
    }

    func start() -> (TrkApp, Tester) {
        let (clock, server) = (clock, server)
        let (app, tester) = TrkApp(workspace: trkWorkspace()).andTester {
            $0.continuousClock = clock
            $0.trkBackend = TrkBackend(server: server)
        }
        tester.install(pushes)
        return (app, tester)
    }

    /// Half a second after an edit of `issue`'s title its draft task saves the draft; half a second
    /// later the push of its path goes through, the first of the test (revision 1).
    func draftIsSavedThenPushed(_ issue: TrkIssue, path: String, in app: TrkApp, _ tester: Tester) async {
        await clock.advance(by: .milliseconds(500))
        await tester.assert {
            issue.draft == issue.title
            issue.draftsSaved == 1
        }
        await clock.advance(by: .milliseconds(500))
        await tester.assert {
            pushes.wasCalled(with: [path])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
            !issue.titleEdited
        }
    }
}

@Suite struct OfflineTrackerScenarioTests {
    @Test func anEditIsPushedOnceThePushDelayHasPassed() async {
        let h = Harness()
        let (app, tester) = h.start()
        let crash = app.workspace.projects[0].issues[0]

        crash.rename("Crash on cold launch")
        await tester.assert {
            crash.title == "Crash on cold launch"
            crash.titleEdited
            app.outbox == [crashPath]
        }
        // The issue's own draft task saves first, half a second after the edit.
        await h.draftIsSavedThenPushed(crash, path: crashPath, in: app, tester)
        #expect(await h.server.projects[0].issues[0].title == "Crash on cold launch")
        await tester.finish()
    }

    @Test func aBurstOfEditsPushesOnlyOnceWithEveryPath() async {
        let h = Harness()
        let (app, tester) = h.start()
        let crash = app.workspace.projects[0].issues[0], login = app.workspace.projects[1].issues[0]

        crash.rename("Crash")
        await h.clock.advance(by: .milliseconds(400))
        login.estimate += 1
        await h.clock.advance(by: .milliseconds(900))
        await tester.assert {
            crash.title == "Crash"
            crash.titleEdited
            login.estimate == 3
            app.outbox == [crashPath, loginEstimatePath]
            crash.draft == "Crash"
            crash.draftsSaved == 1
        }
        // The first push was cancelled by the second edit's: nothing reached the server yet.
        #expect(h.pushes.callCount == 0)
        await h.clock.advance(by: .milliseconds(100))
        await tester.assert {
            h.pushes.wasCalled(with: [crashPath, loginEstimatePath])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
            !crash.titleEdited
        }
        await tester.finish()
    }

    @Test func aFailedPushIsRetriedWithBackoffOnTheClock() async {
        let h = Harness()
        let (app, tester) = h.start()
        let login = app.workspace.projects[1].issues[0]
        await h.server.failNext(2)

        login.estimate = 8
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            login.estimate == 8
            app.outbox == [loginEstimatePath]
            app.syncStatus == .waitingToRetry(attempt: 1)
        }
        await h.clock.advance(by: .milliseconds(999))
        await tester.assert(app.syncStatus == .waitingToRetry(attempt: 1))
        await h.clock.advance(by: .milliseconds(1))
        await tester.assert(app.syncStatus == .waitingToRetry(attempt: 2))
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            h.pushes.wasCalled(with: [loginEstimatePath])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
        }
        await tester.finish()
    }

    @Test func oneAdvanceRunsTheServerActorsLatencyAndEveryRetry() async {
        let h = Harness()
        let (app, tester) = h.start()
        let login = app.workspace.projects[1].issues[0]
        await h.server.setLatency(.seconds(1))
        await h.server.failNext(2)

        // Delay 1 s, latency 1 s (fails), backoff 1 s, latency 1 s (fails), backoff 2 s, latency 1 s.
        // The server's methods run on the hierarchy's executor (the task prefers it, and Swift runs a
        // default actor's code there), so `advance` settles them as it settles the model's tasks.
        login.estimate = 8
        await h.clock.advance(by: .seconds(7))
        #expect(app.revision == 1)
        await tester.assert {
            login.estimate == 8
            h.pushes.wasCalled(with: [loginEstimatePath])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
        }
        await tester.finish()
    }

    @Test func aPushFailingEveryAttemptEndsFailedAndKeepsTheOutbox() async {
        let h = Harness()
        let (app, tester) = h.start()
        let login = app.workspace.projects[1].issues[0]
        await h.server.failNext(10)

        login.estimate = 8
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            login.estimate == 8
            app.outbox == [loginEstimatePath]
            app.syncStatus == .waitingToRetry(attempt: 1)
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert(app.syncStatus == .waitingToRetry(attempt: 2))
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            app.syncStatus == .failed("unavailable")
            app.outbox == [loginEstimatePath]
        }
        // The next edit tries again, with both paths.
        await h.server.failNext(0)
        app.workspace.projects[0].issues[1].rename("Dark theme")
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            app.workspace.projects[0].issues[1].title == "Dark theme"
            app.workspace.projects[0].issues[1].draft == "Dark theme"
            app.workspace.projects[0].issues[1].draftsSaved == 1
            h.pushes.wasCalled(with: [loginEstimatePath, darkPath])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
            !app.workspace.projects[0].issues[1].titleEdited
        }
        await tester.finish()
    }

    @Test func cancellingASyncMidFlightKeepsTheOutboxForTheNextPush() async {
        let h = Harness()
        let (app, tester) = h.start()
        let login = app.workspace.projects[1].issues[0]
        await h.server.setLatency(.seconds(3))

        login.estimate = 13
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            login.estimate == 13
            app.outbox == [loginEstimatePath]
            app.syncStatus == .syncing(attempt: 1)
        }
        // The push waits for the server; cancelling it ends the server's wait too.
        app.cancelSyncTapped()
        await tester.assert(app.syncStatus == .idle)
        await h.clock.advance(by: .seconds(5))
        #expect(h.pushes.callCount == 0)
        #expect(await h.server.revision == 0)

        app.schedulePush()
        await h.clock.advance(by: .seconds(3))
        await tester.assert {
            h.pushes.wasCalled(with: [loginEstimatePath])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
        }
        await tester.finish()
    }

    @Test func aNewEditCancelsThePushInFlightAndOnlyTheLatestCounts() async {
        let h = Harness()
        let (app, tester) = h.start()
        let login = app.workspace.projects[1].issues[0], crash = app.workspace.projects[0].issues[0]
        await h.server.setLatency(.seconds(3))

        login.estimate = 13
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            login.estimate == 13
            app.outbox == [loginEstimatePath]
            app.syncStatus == .syncing(attempt: 1)
        }
        crash.status = .done
        await h.clock.advance(by: .seconds(3))
        await tester.assert {
            crash.status == .done
            app.outbox == [loginEstimatePath, "TrkApp.workspace.projects[0].issues[0].status"]
        }
        // The first push never reached the server: the new one carries both paths.
        #expect(h.pushes.callCount == 0)
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            h.pushes.wasCalled(with: [loginEstimatePath, "TrkApp.workspace.projects[0].issues[0].status"])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
        }
        await tester.finish()
    }

    @Test func theTestEndingWhileARetryWaitsOnTheClockNamesThePushTask() async {
        let h = Harness()
        let (app, tester) = h.start()
        await h.server.failNext(1)

        app.workspace.projects[1].issues[0].estimate = 1
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            app.workspace.projects[1].issues[0].estimate == 1
            app.outbox == [loginEstimatePath]
            app.syncStatus == .waitingToRetry(attempt: 1)
        }
        // The retry sleeps until 2 s on the TestClock, which the test left at 1 s: the report says so.
        tester.timeout = .milliseconds(100)
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            issueText(issue) == """
            A task of TrkApp started here was still running when the test ended.

            A task of this hierarchy sleeps on a TestClock until 2.0 seconds, and the clock is at 1.0 seconds: \
            a TestClock moves only when the test advances it.

            To fix, either:
              • Advance the clock past the sleep (by 1.0 seconds or more): `await clock.advance(by: …)`, or `await clock.run()`.
              • Wait for its work before the test ends, e.g. `await tester.assert { … }` on the state it changes.
              • Cancel it in the model (`node.cancelAll(for:)`), or start it from `onActivate`, whose work the tester cancels.
              • Or stop requiring finished tasks: `tester.exhaustivity.remove(.tasks)`.
            """ && issue.sourceLocation?.fileName == "OfflineTrackerModels.swift"
        }
    }

    @Test func releasingTheTesterWhileARetryWaitsOnTheClockNamesTheClockToo() async {
        let h = Harness()
        var (app, tester): (TrkApp?, Tester?) = h.start()
        await h.server.failNext(1)

        app?.workspace.projects[1].issues[0].estimate = 1
        await h.clock.advance(by: .seconds(1))
        await tester?.assert {
            app?.workspace.projects[1].issues[0].estimate == 1
            app?.outbox == [loginEstimatePath]
            app?.syncStatus == .waitingToRetry(attempt: 1)
        }
        app = nil
        withKnownIssue {
            tester = nil
        } matching: { issue in
            issueText(issue) == """
            A task of TrkApp started here was still running when the test ended.

            A task of this hierarchy sleeps on a TestClock until 2.0 seconds, and the clock is at 1.0 seconds: \
            a TestClock moves only when the test advances it.

            The tester was released without `await tester.finish()`, so it did not wait for the task: \
            a released tester only runs the hierarchy's ready jobs, it does not wait for work outside it.

            To fix, either:
              • End the test with `await tester.finish()`, which waits for running tasks up to the timeout.
              • Advance the clock past the sleep (by 1.0 seconds or more): `await clock.advance(by: …)`, or `await clock.run()`.
              • Wait for its work before the test ends, e.g. `await tester.assert { … }` on the state it changes.
              • Cancel it in the model (`node.cancelAll(for:)`), or start it from `onActivate`, whose work the tester cancels.
              • Or stop requiring finished tasks: `tester.exhaustivity.remove(.tasks)`.
            """
        }
        #expect(tester == nil)
    }

    @Test func aRefreshContinuesProjectsIssuesAndCommentsAndMergesFieldByField() async {
        let h = Harness()
        let (app, tester) = h.start()
        let project = app.workspace.projects[0]
        let crash = project.issues[0], dark = project.issues[1]
        let comment = crash.comments[0]
        await h.server.edit {
            $0[0].name = "iOS App"
            $0[0].issues[0].status = .inProgress
            $0[0].issues[0].comments[0].body = "Seen on iOS 18.1"
            $0[0].issues[0].comments.append(TrkServerComment(id: 112, body: "Fixed in main"))
            $0[0].issues[1].title = "Dark mode (server)"
            $0[0].issues[1].estimate = 1
        }

        // The user renames the dark-mode issue before the refresh: its draft task is running.
        dark.rename("Dark mode everywhere")
        app.refreshTapped()
        await tester.assert {
            app.refreshes == 1
            project.name == "iOS App"
            crash.status == .inProgress
            crash.comments.map(\.id) == [111, 112]
            comment.body == "Seen on iOS 18.1"
            crash.comments.last?.body == "Fixed in main"
            // Local wins for an unpushed title, the larger estimate wins.
            dark.title == "Dark mode everywhere"
            dark.titleEdited
            dark.estimate == 5
            app.outbox == [darkPath]
        }
        // Every handle from before the refresh is the live model.
        #expect(project.lifetime == .anchored && crash.lifetime == .anchored && comment.lifetime == .anchored)
        #expect(app.workspace.projects[0].issues[0].comments[0].body == "Seen on iOS 18.1")

        // The draft task kept running through the refresh: it saves at 500 ms, once. The refresh's
        // own changes are not in the outbox: the push carries the user's edit only.
        await h.draftIsSavedThenPushed(dark, path: darkPath, in: app, tester)
        #expect(await h.server.projects[0].issues[1].title == "Dark mode everywhere")
        await tester.finish()
    }

    @Test func aServerTitleRestartsTheDraftTaskOfTheContinuedIssue() async {
        let h = Harness()
        let (app, tester) = h.start()
        let login = app.workspace.projects[1].issues[0]
        await h.server.edit { $0[1].issues[0].title = "Login times out" }

        app.refreshTapped()
        await tester.assert {
            app.refreshes == 1
            login.title == "Login times out"
        }
        await h.clock.advance(by: .milliseconds(500))
        await tester.assert {
            login.draft == "Login times out"
            login.draftsSaved == 1
        }
        // Nothing to push: the change came from the server.
        await h.clock.advance(by: .seconds(5))
        await tester.assert(app.outbox == [])
        #expect(h.pushes.callCount == 0)
        await tester.finish()
    }

    @Test func undoAfterARefreshTakesBackOnlyTheEditsMadeSince() async {
        let h = Harness()
        let (app, tester) = h.start()
        let crash = app.workspace.projects[0].issues[0]
        await h.server.edit { $0[0].issues[0].status = .done }

        crash.estimate = 8
        app.refreshTapped()
        await tester.assert {
            crash.estimate == 8
            crash.status == .done
            app.refreshes == 1
            app.outbox == [estimatePath]
            !app.node.undoStack.canUndo
        }
        crash.estimate = 13
        await tester.assert {
            crash.estimate == 13
            app.node.undoStack.canUndo
            app.outbox == [estimatePath, estimatePath]
        }
        app.node.undoStack.undo()
        await tester.assert {
            crash.estimate == 8
            !app.node.undoStack.canUndo
            app.outbox == [estimatePath, estimatePath, estimatePath]
        }
        // The undo is itself an edit to push; the server's status stays.
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            h.pushes.wasCalled(with: [estimatePath, estimatePath, estimatePath])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
            crash.status == .done
        }
        await tester.finish()
    }

    @Test func withoutForgettingTheHistoryUndoTakesBackTheRefreshBeforeTheUsersEdit() async {
        let h = Harness()
        let (app, tester) = h.start()
        let project = app.workspace.projects[0]
        let crash = project.issues[0]
        var server = trkWorkspace().document
        server[0].name = "iOS App"
        server[0].issues[0].status = .done
        server[0].issues[0].comments[0].body = "Seen on iOS 18.1"

        crash.estimate = 8
        // The outbox takes the edit before the refresh lands (the refresh's commit is counted, not
        // marked: see `TrkApp.pendingServerCommits`).
        await tester.assert {
            crash.estimate == 8
            app.outbox == [estimatePath]
        }
        app.merge(server, forgettingUndo: false)
        await tester.assert {
            project.name == "iOS App"
            crash.status == .done
            crash.comments.first?.body == "Seen on iOS 18.1"
            app.refreshes == 1
            app.outbox == [estimatePath]
        }
        // The refresh is one entry, above the user's edit; the continued handles are restored in place,
        // and the restore is one local commit (its paths deepest first) that the outbox takes.
        app.node.undoStack.undo()
        await tester.assert {
            project.name == "App"
            crash.status == .open
            crash.comments.first?.body == "Seen on iOS 18"
            crash.estimate == 8
            app.outbox == [estimatePath, commentPath, statusPath, "TrkApp.workspace.projects[0].name"]
        }
        #expect(crash.lifetime == .anchored && crash.comments[0].lifetime == .anchored)
        app.node.undoStack.undo()
        await tester.assert {
            crash.estimate == 3
            !app.node.undoStack.canUndo
            app.outbox == [estimatePath, commentPath, statusPath, "TrkApp.workspace.projects[0].name", estimatePath]
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            h.pushes.wasCalled(with: [
                estimatePath, commentPath, statusPath, "TrkApp.workspace.projects[0].name", estimatePath,
            ])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
        }
        await tester.finish()
    }

    @Test func transientStateIsNeitherAModificationNorUndone() async {
        let h = Harness()
        let (app, tester) = h.start()
        let dark = app.workspace.projects[0].issues[1]

        dark.rename("Dark")
        await h.clock.advance(by: .milliseconds(500))
        await tester.assert {
            dark.title == "Dark"
            dark.titleEdited
            dark.draft == "Dark"
            dark.draftsSaved == 1
            app.outbox == [darkPath]
        }
        // Undo restores the title, not the transient flags the rename set.
        app.node.undoStack.undo()
        await tester.assert {
            dark.title == "Dark mode"
            dark.titleEdited
            app.outbox == [darkPath, darkPath]
        }
        await h.clock.advance(by: .milliseconds(500))
        await tester.assert {
            dark.draft == "Dark mode"
            dark.draftsSaved == 2
        }
        await h.clock.advance(by: .milliseconds(500))
        await tester.assert {
            h.pushes.wasCalled(with: [darkPath, darkPath])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
            !dark.titleEdited
        }
        // Draft saves alone never fed the outbox.
        await h.clock.advance(by: .seconds(5))
        #expect(h.pushes.callCount == 1)
        await tester.finish()
    }

    @Test func removingAnIssueIsPushedAndARefreshDoesNotBringItBack() async {
        let h = Harness()
        let (app, tester) = h.start()
        let project = app.workspace.projects[0]
        let crash = project.issues[0]

        project.issues.removeAll { $0.id == 11 }
        await tester.assert {
            project.issues.map(\.id) == [12]
            app.outbox == ["TrkApp.workspace.projects[0].issues"]
        }
        #expect(crash.lifetime == .destructed)
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            h.pushes.wasCalled(with: ["TrkApp.workspace.projects[0].issues"])
            app.outbox == []
            app.revision == 1
            app.syncStatus == .idle
        }
        app.refreshTapped()
        await tester.assert {
            app.refreshes == 1
            project.issues.map(\.id) == [12]
        }
        await tester.finish()
    }
}
