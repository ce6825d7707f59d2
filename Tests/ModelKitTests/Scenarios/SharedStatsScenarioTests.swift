import ModelKit
import ModelKitTesting
import Observation
import Synchronization
import Testing

// The shared-statistics app of SharedStatsModels.swift, driven as SwiftModel's SharedState tests
// drive it: a full-exhaustivity Tester, where a change of the one shared `SharedStats` is asserted
// once, through any of its three handles.

@Suite struct SharedStatsScenarioTests {
    @Test func countingOnTheCounterTabIsSeenByTheProfileTabAndTheApp() async {
        let (app, tester) = SharedStatsApp().andTester()
        app.counter.incrementTapped()
        app.counter.incrementTapped()
        app.counter.decrementTapped()
        await tester.assert {
            app.profile.stats.count == 1
            app.stats.maxCount == 2
            app.counter.stats.minCount == 0
            app.profile.stats.numberOfCounts == 3
        }
        #expect(app.stats == app.counter.stats && app.stats == app.profile.stats)
        await tester.finish()
    }

    @Test func goingBelowZeroLowersTheMinimum() async {
        let (app, tester) = SharedStatsApp().andTester()
        app.counter.decrementTapped()
        app.counter.decrementTapped()
        await tester.assert {
            app.stats.count == -2
            app.stats.minCount == -2
            app.stats.numberOfCounts == 2
        }
        await tester.finish()
    }

    @Test func switchingTabsCountsAsACountEvent() async {
        let (app, tester) = SharedStatsApp().andTester()
        app.currentTab = .profile
        await tester.assert {
            app.currentTab == .profile
            app.profile.stats.count == 1
            app.profile.stats.maxCount == 1
            app.profile.stats.numberOfCounts == 1
        }
        app.currentTab = .counter
        await tester.assert {
            app.currentTab == .counter
            app.stats.count == 2
            app.stats.maxCount == 2
            app.stats.numberOfCounts == 2
        }
        await tester.finish()
    }

    @Test func theAlertSaysWhetherTheCountIsPrime() async {
        let (app, tester) = SharedStatsApp().andTester()
        app.counter.isPrimeTapped()
        await tester.assert(app.counter.alert == "👎 The number 0 is not prime :(")
        app.counter.alertDismissed()
        for _ in 0..<7 { app.counter.incrementTapped() }
        app.counter.isPrimeTapped()
        await tester.assert {
            app.counter.alert == "👍 The number 7 is prime!"
            app.stats.count == 7
            app.stats.maxCount == 7
            app.stats.numberOfCounts == 7
        }
        await tester.finish()
    }

    @Test func resettingOnTheProfileTabClearsWhatTheCounterTabShows() async {
        let (app, tester) = SharedStatsApp().andTester()
        app.counter.incrementTapped()
        app.counter.decrementTapped()
        app.counter.decrementTapped()
        await tester.assert {
            app.stats.count == -1
            app.stats.maxCount == 1
            app.stats.minCount == -1
            app.stats.numberOfCounts == 3
        }
        app.profile.resetTapped()
        await tester.assert {
            app.counter.stats.count == 0
            app.counter.stats.maxCount == 0
            app.counter.stats.minCount == 0
            app.counter.stats.numberOfCounts == 0
        }
        await tester.finish()
    }

    @Test func anUnassertedChangeOfTheSharedStatsIsReportedOnce() async {
        let (app, tester) = SharedStatsApp().andTester()
        app.counter.incrementTapped()
        await withKnownIssue {
            await tester.assert {
                app.stats.count == 1
                app.stats.maxCount == 1
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined(separator: "\n")
            let lines = text.split(separator: "\n").filter { $0.contains("numberOfCounts") }
            return lines.count == 1 && lines[0].hasSuffix("numberOfCounts: 0 → 1")
        }
        await tester.finish()
    }

    // MARK: - Without a Tester

    @Test func theSharedStatsActivateOnceAndAreOneModel() {
        let activations = Mutex(0)
        let stats = SharedStats().withActivation { _ in activations.withLock { $0 += 1 } }
        let app = SharedStatsApp(stats: stats).withAnchor()
        #expect(activations.withLock { $0 } == 1)
        app.counter.incrementTapped()
        #expect(stats.count == 1 && app.profile.stats.count == 1)
        #expect(app.counter.stats.lifetime == .anchored)
    }

    @Test func aViewOfTheProfileTabIsInvalidatedOncePerTransaction() {
        let app = SharedStatsApp().withAnchor()
        let invalidations = Mutex(0)
        withObservationTracking {
            _ = (app.profile.stats.count, app.profile.stats.maxCount, app.profile.stats.numberOfCounts)
        } onChange: {
            invalidations.withLock { $0 += 1 }
        }
        app.counter.incrementTapped()
        #expect(invalidations.withLock { $0 } == 1)
        #expect(app.profile.stats.maxCount == 1)
    }

    @Test func theSharedStatsAreTornDownWithTheApp() {
        var app: SharedStatsApp? = SharedStatsApp().withAnchor()
        let stats = app!.stats
        #expect(stats.lifetime == .anchored)
        app = nil
        #expect(stats.lifetime == .destructed)
    }
}
