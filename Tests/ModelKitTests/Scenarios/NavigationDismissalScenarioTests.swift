import ModelKit
import ModelKitTesting
import Testing

/// The inventory app (NavigationModels.swift) under a Tester where presenting and dismissing meet
/// work in flight: a save or a fetch that ends after its sheet or screen is gone, one form in two
/// places, a dismissed form presented again, and a link that reorders the live screens.
@Suite struct NavigationDismissalScenarioTests {
    // MARK: Work that ends after its screen is gone

    @Test func aSaveThatIgnoresCancellationEndsQuietlyAfterTheSheetIsDismissed() async throws {
        let gate = Gate()
        let (app, tester) = NavApp().andTester {
            $0.navAPI.save = { _ in await gate.enter() }
        }
        app.editTapped(2)
        let form = try await tester.unwrap(app.sheet?.edit)
        form.name = "Hex nuts"
        form.saveTapped()
        await tester.assert {
            form.name == "Hex nuts"
            form.isSaving
            app.hasUnsavedChanges
        }
        app.sheet = nil
        await tester.assert {
            app.sheet == nil
            !app.hasUnsavedChanges
        }
        // The server answers after the sheet is gone: the form's own work, ending, writes and sends
        // into a removed model, which is ignored without a report (Hierarchy.md, "Life stages").
        gate.open()
        await tester.finish()
        #expect(form.isSaving)
        #expect(app.items[2]?.name == "Nuts")
    }

    @Test func aSaveFailingWithItsOwnErrorAfterTheSheetIsDismissedEndsQuietly() async throws {
        struct ServerCancelled: Error {}
        let clock = TestClock()
        let (app, tester) = NavApp().andTester {
            $0.navAPI.save = { _ in
                do { try await clock.sleep(for: .seconds(3)) } catch { throw ServerCancelled() }
            }
        }
        app.editTapped(1)
        let form = try await tester.unwrap(app.sheet?.edit)
        form.saveTapped()
        await tester.assert(form.isSaving && !form.canSave)
        // The server turns the cancellation into an error of its own: the form's `catch:` runs as
        // the removed form's work ends, and its writes are ignored without a report.
        app.sheet = nil
        await tester.assert(app.sheet == nil)
        await tester.finish()
        #expect(form.saveError == nil)
    }

    @Test func aScreenPoppedWhileItsFetchIsInFlightEndsQuietly() async throws {
        let gate = Gate()
        let fetches = TestProbe("fetchStock")
        let (app, tester) = NavApp().andTester {
            $0.navAPI.fetchStock = { id in
                fetches.call(id)
                await gate.enter()
                return 5
            }
        }
        tester.install(fetches)
        app.pushItem(1)
        let screen = try await tester.unwrap(app.path.first?.item)
        await tester.assert(fetches.wasCalled(with: 1))
        app.pop()
        await tester.assert {
            app.path.isEmpty
            screen.lifetime == .destructed
        }
        gate.open()
        await tester.finish()
        #expect(screen.stock == nil)
    }

    // MARK: One form in two places

    @Test func aFormSharedByTheSheetAndAScreenIsDismissedFromBothByOneEvent() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        let screen = try await h.pushLoadedItem(2, on: app, tester)
        screen.quickEditTapped(NavItem(id: 2, name: "Nuts", stock: 12))
        let form = try await tester.unwrap(screen.quickEdit)
        app.sheet = .edit(form)
        form.stock = 11
        // A shared model contributes once under each of its places (Environment.md): the root's
        // fold counts the one dirty form twice.
        await tester.assert {
            app.sheet?.edit == form
            !form.node.isUniquelyReferenced
            form.stock == 11
            app.node.preference.navUnsavedForms == 2
            screen.node.preference.navUnsavedForms == 1
        }
        form.cancelTapped()
        await tester.assert {
            form.didSend(.cancelled)
            app.sheet == nil
            screen.quickEdit == nil
            form.lifetime == .destructed
            !app.hasUnsavedChanges
        }
        await tester.finish()
    }

    @Test func aDismissedFormPresentedAgainIsReportedAndStaysDestructed() async throws {
        let (app, tester) = NavApp().andTester()
        app.editTapped(1)
        let form = try await tester.unwrap(app.sheet?.edit)
        app.sheet = nil
        await tester.assert(app.sheet == nil)
        withKnownIssue {
            app.sheet = .edit(form)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().hasPrefix(
                "A destructed NavEditForm was added to NavApp.sheet; destructed models cannot be anchored again."
            )
        }
        await tester.assert {
            app.sheet?.edit?.lifetime == .destructed
        }
        app.editTapped(1)
        let fresh = try await tester.unwrap(app.sheet?.edit)
        await tester.assert {
            fresh.lifetime == .anchored
            fresh != form
        }
        await tester.finish()
    }

    @Test func aLinkThatReordersTheSameContactsMovesTheLiveScreens() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.open(link: "contact/7/contact/8")
        let (ada, bob) = (try await tester.unwrap(app.path.first?.contact), try await tester.unwrap(app.path.last?.contact))
        await tester.assert(app.path.map { $0.contact?.id } == [7, 8])

        app.node.transaction {
            app.popToRoot()
            app.pushContact(8, name: "Contact 8")
            app.pushContact(7, name: "Contact 7")
        }
        await tester.assert(app.path.map { $0.contact?.id } == [8, 7])
        #expect(app.path[0].contact?.name == "Contact 8" && app.path[1].contact?.name == "Contact 7")
        #expect(ada.lifetime == .anchored && bob.lifetime == .anchored)
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            ada.presenceChecks == 1
            bob.presenceChecks == 1
        }
        withKnownIssue {
            app.open(link: "contact/7/contact/7")
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().hasPrefix(
                "NavApp.path holds two different NavContactScreen models with the id 7; the second was not anchored."
            )
        }
        await tester.assert {
            app.path.map { $0.contact?.lifetime } == [.anchored, .initial]
            bob.lifetime == .destructed
            ada.presenceChecks == 0
        }
        await tester.finish()
    }
}
