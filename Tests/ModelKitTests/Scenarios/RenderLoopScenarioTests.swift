import ModelKit
import Testing

// The feed app of RenderLoopModels.swift rendered by the SwiftUI-shaped loop of RenderLoopHarness.swift:
// which views each write re-renders, that none is missed once the loop is idle, and what happens to a
// view whose model is removed while its render is pending.

/// The feed app with `rows` rows, anchored, with its views mounted and rendered once.
private struct Feed {
    let app: FeedApp
    let anchor: FeedApp
    let loop: RenderLoop

    init(rows: Int = 1_000, extra: [FeedRow] = [], loop: RenderLoop = RenderLoop()) {
        let app = FeedApp(rows: ServerRow.page(rows))
        app.rows += extra
        self.app = app
        anchor = app.withAnchor()
        self.loop = loop
        loop.mount("app") { FeedViews.app(app) }
        _ = loop.takeLog()
    }

    /// `app/list/<id>` for each id: the keys of rows' views.
    static func rowKeys(_ ids: some Sequence<Int>) -> [String] { ids.map { "app/list/\($0)" } }
}

@Suite struct RenderLoopScenarioTests {
    @Test func aWriteToOneRowRerendersThatRowsViewAlone() {
        let feed = Feed()
        #expect(feed.loop.mountedKeys.count == 1_003)
        #expect(feed.loop.rendersAfter { feed.app.rows[7].likes += 1 } == ["app/list/7"])
        #expect(feed.loop.output(of: "app/list/7") == "row 7 ♥1 [light]")
        #expect(feed.loop.rendersAfter { feed.app.rows[7].title = "seven" } == ["app/list/7"])
        #expect(feed.loop.output(of: "app/list/7") == "seven ♥1 [light]")
        #expect(feed.loop.staleViews() == [])
    }

    @Test func anEqualWriteFiresNoHandlerAndRerendersNothing() {
        let feed = Feed(rows: 20)
        feed.app.node.environment.feedTheme = "dark"
        // A first contribution is a change even when it equals the default (Environment.md).
        feed.app.node.preference.feedDrafts = 0
        feed.loop.runUntilIdle()
        _ = feed.loop.takeLog()
        let row = feed.app.rows[7]
        row.title = "row 7"
        row.likes = 0
        row.isStarred = false
        feed.app.query = ""
        feed.app.rows = feed.app.rows
        feed.app.node.environment.feedTheme = "dark"
        feed.app.node.preference.feedDrafts = 0
        #expect(feed.loop.takeLog().invalidations == 0)
        #expect(feed.loop.dirtyKeys == [])
    }

    @Test func aTransactionOfManyWritesRerendersEachAffectedViewOnce() {
        let feed = Feed(rows: 50)
        feed.loop.runUntilIdle()
        _ = feed.loop.takeLog()
        feed.app.star([1, 2, 3])
        #expect(feed.loop.takeLog().invalidations == 4)
        feed.loop.runUntilIdle()
        #expect(feed.loop.takeLog().renders.sorted() == Feed.rowKeys(1...3) + ["app/toolbar"])
        #expect(feed.loop.output(of: "app/toolbar") == "★3 drafts 0 query ")
    }

    @Test func anEagerObserverSeesOnlyTheStateATransactionLeaves() {
        let shown = Locked<[String]>([])
        let feed = Feed(rows: 10, loop: RenderLoop(scheduling: .immediate) { _, output in
            shown.withLock { $0.append(output.text) }
        })
        shown.value = []
        // The row's view renders from the handler, on the writing thread, and registers again before
        // the transaction's second property is notified: it hears that one too (Observation.md).
        feed.app.rows[7].publish(version: 3)
        #expect(feed.loop.takeLog().renders == ["app/list/7", "app/list/7"])
        #expect(shown.value == ["row 7 v3 ♥3 [light]", "row 7 v3 ♥3 [light]"])

        shown.value = []
        feed.app.star([1, 2, 3])
        #expect(feed.loop.takeLog().renders.sorted() == Feed.rowKeys(1...3) + ["app/toolbar"])
        #expect(shown.value.filter { $0.hasPrefix("★") } == ["★3 drafts 0 query "])

        // Outside a transaction, each write is a commit of its own.
        feed.app.rows[7].title = "seven"
        feed.app.rows[7].likes = 4
        #expect(feed.loop.takeLog().renders == ["app/list/7", "app/list/7"])
        #expect(feed.loop.staleViews() == [])
    }

    @Test func aThemeChangeRerendersTheViewsThatReadIt() {
        let feed = Feed()
        feed.app.open(5)
        feed.loop.runUntilIdle()
        let renders = feed.loop.rendersAfter { feed.app.node.environment.feedTheme = "dark" }
        #expect(renders == (["app/detail"] + Feed.rowKeys(0..<1_000)).sorted())
        #expect(feed.loop.output(of: "app/detail") == "row 5 ♥0 note  [dark]")
        // A subtree's own value hides the root's from it alone.
        let row = feed.app.rows[5]
        #expect(feed.loop.rendersAfter { row.node.environment.feedTheme = "sepia" } == ["app/detail", "app/list/5"])
        #expect(feed.loop.staleViews() == [])
    }

    @Test func theFilteredListRerendersOnlyWhenTheVisibleRowsChange() {
        let feed = Feed(rows: 20)
        let app = feed.app
        #expect(feed.loop.rendersAfter { app.query = "row 1" } == ["app/list", "app/toolbar"])
        #expect(feed.loop.mountedKeys == Set(["app", "app/toolbar", "app/list"] + Feed.rowKeys([1] + Array(10..<20))))
        // Still visible: the memoized rows are equal, so the list is not rendered again.
        #expect(feed.loop.rendersAfter { app.rows[12].title = "row 12b" } == ["app/list/12"])
        // Filtered out: the list drops the row, and the row's pending render with it.
        #expect(feed.loop.rendersAfter { app.rows[12].title = "twelve" } == ["app/list"])
        #expect(!feed.loop.mountedKeys.contains("app/list/12"))
        // Filtered in: the list mounts the row, which renders once.
        #expect(feed.loop.rendersAfter { app.rows[5].title = "row 15" } == ["app/list", "app/list/5"])
        // A row that is not shown is read by no view.
        #expect(feed.loop.rendersAfter { app.rows[3].likes += 1 } == [])
        #expect(feed.loop.rendersAfter { app.rows[12].likes += 1 } == [])
        #expect(feed.loop.staleViews() == [])
    }

    @Test func untrackedReadsMakeTheViewDependOnNothing() {
        let feed = Feed(rows: 20)
        let app = feed.app
        feed.loop.mount("total") {
            Rendered(text: "\(withUntrackedModelReads { app.rows.reduce(0) { $0 + $1.likes } }) likes")
        }
        _ = feed.loop.takeLog()
        app.rows[3].likes = 5
        app.rows.append(FeedRow(ServerRow(id: 20, title: "row 20", likes: 2)))
        feed.loop.runUntilIdle()
        #expect(!feed.loop.takeLog().renders.contains("total"))
        #expect(feed.loop.output(of: "total") == "0 likes")
    }

    @Test func aRowDeletedWhileItsViewIsPendingIsUnmountedAndFreed() {
        let tracker = LifetimeTracker()
        let feed = Feed(rows: 10, extra: [FeedRow(ServerRow(id: 10, title: "row 10"), token: tracker.token())])
        let (app, loop) = (feed.app, feed.loop)
        app.rows[10].likes = 3
        app.delete(10)
        #expect(loop.dirtyKeys == ["app/list", "app/list/10"])
        loop.runUntilIdle()
        #expect(loop.takeLog().renders == ["app/list"])
        #expect(!loop.mountedKeys.contains("app/list/10"))
        #expect(tracker.liveCount == 0)
        #expect(loop.staleViews() == [])
    }

    @Test func aViewStillShowingARemovedRowReadsItsLastValuesUntilItGoes() {
        let tracker = LifetimeTracker()
        let feed = Feed(rows: 10, extra: [FeedRow(ServerRow(id: 10, title: "row 10"), token: tracker.token())])
        let removed = feed.app.rows[10]
        feed.loop.mount("pinned") { FeedViews.row(removed) }
        _ = feed.loop.takeLog()
        removed.likes = 4
        feed.app.delete(10)
        #expect(removed.lifetime == .destructed)
        feed.loop.runUntilIdle()
        #expect(feed.loop.takeLog().renders.sorted() == ["app/list", "pinned"])
        #expect(feed.loop.output(of: "pinned") == "row 10 ♥4 [light]")
        #expect(feed.loop.staleViews() == [])
        feed.loop.unmount("pinned")
        #expect(tracker.liveCount == 1)   // `removed`, held by this test
        _ = consume removed
        #expect(tracker.liveCount == 0)
    }

    @Test func aSameIDRefreshRerendersOnlyTheRowsWhoseValuesChanged() {
        let feed = Feed()
        feed.app.open(2)
        feed.loop.runUntilIdle()
        var server = ServerRow.page(1_000)
        server[2].title = "two"
        server[500].likes = 9
        server[999].isStarred = true
        let renders = feed.loop.rendersAfter { feed.app.refresh(from: server) }
        #expect(renders == ["app/detail", "app/list/2", "app/list/500", "app/list/999", "app/toolbar"])
        #expect(feed.loop.output(of: "app/detail") == "two ♥0 note  [light]")
        #expect(feed.loop.rendersAfter { feed.app.refresh(from: server) } == [])

        // Moved, inserted and removed rows: the list renders once, a new row mounts, the others keep their views.
        server.swapAt(0, 1)
        server.remove(at: 3)
        server.append(ServerRow(id: 1_000, title: "new"))
        #expect(feed.loop.rendersAfter { feed.app.refresh(from: server) } == ["app/list", "app/list/1000"])
        #expect(feed.loop.mountedKeys.count == 1_004)
        #expect(feed.loop.staleViews() == [])
    }

    @Test func theSheetsDraftReachesTheToolbarThroughAPreference() {
        let tracker = LifetimeTracker()
        let feed = Feed(rows: 10)
        let app = feed.app
        #expect(feed.loop.rendersAfter { app.sheet = FeedSheet(token: tracker.token()) } == ["app", "app/sheet"])
        #expect(feed.loop.rendersAfter { app.sheet?.type("h") } == ["app/sheet", "app/toolbar"])
        #expect(feed.loop.output(of: "app/toolbar") == "★0 drafts 1 query ")
        #expect(feed.loop.rendersAfter { app.sheet?.type("hi") } == ["app/sheet"])
        #expect(feed.loop.rendersAfter { app.sheet = nil } == ["app", "app/toolbar"])
        #expect(feed.loop.output(of: "app/toolbar") == "★0 drafts 0 query ")
        #expect(!feed.loop.mountedKeys.contains("app/sheet"))
        #expect(tracker.liveCount == 0)
    }

    @Test func writesFromOtherThreadsAndTheModelsOwnTasksAreAllRendered() async {
        let feed = Feed(rows: 400)
        let app = feed.app
        let finished = await allFinishWithoutDeadlock([
            { for id in 0..<100 { app.rows[id].likes += 1 } },
            {
                app.star(Array(100..<110))
                app.rows[200].publish(version: 2)
            },
        ])
        #expect(finished)
        let done = Locked(false)
        app.rows[300].likeInBackground(times: 5) { done.value = true }
        #expect(await eventually { done.value })
        let renders = feed.loop.rendersAfter {}
        #expect(renders == (Feed.rowKeys(Array(0..<110) + [200, 300]) + ["app/toolbar"]).sorted())
        #expect(feed.loop.output(of: "app/list/300") == "row 300 ♥5 [light]")
        #expect(feed.loop.staleViews() == [])
    }

    @Test func rendersOnOneThreadWhileTwoOthersWriteSeeWholeTransactions() async {
        // `publish(version:)` writes a row's title, then its likes, in one transaction, and a row's
        // view reads the title first: a render showing "row 7 v3 ♥2" saw half of one. (Its two reads
        // are no snapshot: "row 7 v3 ♥9" is fine, as transactions may commit between them.)
        let torn = Locked<[String]>([])
        let loop = RenderLoop { _, output in
            let words = output.text.split(separator: " ")
            guard words.count > 3, words[2].hasPrefix("v"), let version = Int(words[2].dropFirst()),
                  let likes = Int(words[3].dropFirst()), likes < version
            else { return }
            torn.withLock { $0.append(output.text) }
        }
        let feed = Feed(rows: 200, loop: loop)
        let app = feed.app
        let writersDone = AtomicCounter()
        let finished = await allFinishWithoutDeadlock([
            {
                while writersDone.value < 2 { loop.runUntilIdle() }
            },
            {
                for version in 1...30 {
                    for id in 0..<20 { app.rows[id].publish(version: version) }
                }
                writersDone.increment()
            },
            {
                for n in 0..<30 {
                    app.star([20 + n])
                    app.query = n.isMultiple(of: 3) ? "row 1" : ""
                    app.rows[100 + n].likes += 1
                }
                writersDone.increment()
            },
        ])
        #expect(finished)
        loop.runUntilIdle()
        #expect(torn.value == [])
        // `withObservationTracking` registers what its closure read when the closure returns: a
        // write from another thread after a read and before that is heard by nobody, and a view
        // that read early shows the old value until another change (Observation.md, "Writes from
        // other threads"). The writers here end while the render thread runs, so their last writes
        // may fall in that window.
        withKnownIssue("a write between a render's read and its registration is not heard", isIntermittent: true) {
            #expect(loop.staleViews() == [])
        }
        // Written again from the rendering side's thread, everything is heard.
        for row in app.rows { row.node.touch(\.title) }
        app.node.touch(\.rows)
        app.node.touch(\.query)
        loop.runUntilIdle()
        #expect(loop.staleViews() == [])
        #expect(loop.output(of: "app/toolbar") == "★30 drafts 0 query ")
    }
}
