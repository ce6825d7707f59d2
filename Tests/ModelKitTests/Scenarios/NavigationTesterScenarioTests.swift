import ModelKit
import ModelKitTesting
import Testing

/// The inventory app (NavigationModels.swift) driven through a Tester, exhaustively: screens pushed
/// and popped with their polling, sheets and dialogs presented and dismissed by their own events, a
/// save in flight, validation, undo and a preview server for one sheet.
@Suite struct NavigationTesterScenarioTests {
    // MARK: The stack

    @Test func aPushedScreenLoadsAndPollsUntilItIsPopped() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        let screen = try await h.pushLoadedItem(1, on: app, tester)

        await h.clock.advance(by: .seconds(5))
        await tester.assert {
            screen.refreshes == 1
            h.fetches.wasCalled(with: 1)
        }

        app.pop()
        await tester.assert {
            app.path.isEmpty
            screen.lifetime == .destructed
        }
        await h.clock.advance(by: .seconds(20))
        #expect(h.fetches.callCount == 2)
        await tester.finish()
    }

    @Test func popToRootStopsTheWorkOfEveryScreen() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.pushItem(1)
        app.pushContact(7, name: "Ada")
        app.pushItem(2)
        let screens = app.path
        await tester.assert {
            app.path.count == 3
            screens[0].item?.stock == 40
            screens[2].item?.stock == 12
            h.fetches.wasCalled(with: 1)
            h.fetches.wasCalled(with: 2)
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert(screens[1].contact?.presenceChecks == 1)

        app.popToRoot()
        await tester.assert {
            app.path.isEmpty
            screens.allSatisfy { $0.item?.lifetime ?? $0.contact?.lifetime == .destructed }
        }
        await h.clock.advance(by: .seconds(30))
        #expect(h.fetches.callCount == 2)
        #expect(screens[1].contact?.presenceChecks == 1)
        await tester.finish()
    }

    @Test func aDeepLinkBuildsTheWholeStackAndAnotherReplacesIt() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.open(link: "item/1/contact/7/item/2")
        let first = app.path
        await tester.assert {
            app.path.map { $0.item?.itemID ?? -($0.contact?.id ?? 0) } == [1, -7, 2]
            first[0].item?.stock == 40
            first[2].item?.stock == 12
            h.fetches.wasCalled(with: 1)
            h.fetches.wasCalled(with: 2)
        }
        await h.clock.advance(by: .seconds(2))
        let contact = try #require(first[1].contact)
        await tester.assert(contact.presenceChecks == 2)

        // The new link keeps contact 7 (same id: continued, not restarted) and replaces the items.
        app.open(link: "contact/7/item/3")
        let second = app.path
        // The new instance's values are applied to the continued screen: its count starts again
        // (Hierarchy.md, "Same-id continuity"), but its timer keeps running.
        await tester.assert {
            app.path.count == 2
            app.path[1].item?.stock == 7
            h.fetches.wasCalled(with: 3)
            first[0].item?.lifetime == .destructed
            first[2].item?.lifetime == .destructed
            contact.presenceChecks == 0
        }
        #expect(contact.lifetime == .anchored)
        #expect(second[0].contact?.lifetime == .anchored)
        await h.clock.advance(by: .seconds(1))
        await tester.assert(second[0].contact?.presenceChecks == 1)
        await tester.finish()
    }

    @Test func theSameItemPushedTwiceIsTwoIndependentScreens() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.pushItem(1)
        app.pushItem(1)
        let (below, top) = (try #require(app.path[0].item), try #require(app.path[1].item))
        await tester.assert {
            app.path.count == 2
            below.stock == 40
            top.stock == 40
            h.fetches.callCount == 2
        }
        #expect(below.id != top.id)

        app.pop()
        await tester.assert {
            app.path.count == 1
            top.lifetime == .destructed
        }
        await h.clock.advance(by: .seconds(5))
        await tester.assert {
            below.refreshes == 1
            h.fetches.wasCalled(with: 1)
        }
        await tester.finish()
    }

    @Test func anEnvironmentFlagSetAtTheRootReachesEveryPushedScreen() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        let screen = try await h.pushLoadedItem(1, on: app, tester)
        #expect(screen.header == "#1 light")

        app.setEditing(true)
        app.node.environment.navTheme = "dark"
        await tester.assert {
            screen.header == "#1 dark editing"
        }
        app.pushContact(7, name: "Ada")
        let contact = try #require(app.path.last?.contact)
        await tester.assert {
            app.path.count == 2
            contact.header == "Ada dark"
        }
        await tester.finish()
    }

    // MARK: Sheets

    @Test func theEditSheetEnablesSaveOnlyWhileTheFormIsValid() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.editTapped(1)
        let form = try await tester.unwrap(app.sheet?.edit)
        await tester.assert {
            form.name == "Bolts"
            form.nameError == nil
            form.canSave
            !app.hasUnsavedChanges
        }

        form.name = ""
        await tester.assert {
            form.name == ""
            form.nameError == "A name is required"
            !form.canSave
            app.hasUnsavedChanges
        }
        form.saveTapped()
        await tester.assert(!form.isSaving)
        #expect(!h.saves.wasCalled())

        form.name = "Bolts M4"
        await tester.assert {
            form.name == "Bolts M4"
            form.nameError == nil
            form.canSave
        }
        form.stock = -1
        await tester.assert {
            form.stock == -1
            !form.canSave
        }
        await tester.finish()
    }

    @Test func savingClosesTheSheetThroughTheFormsEvent() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.editTapped(2)
        let form = try await tester.unwrap(app.sheet?.edit)
        form.name = "Hex nuts"
        await tester.assert {
            form.name == "Hex nuts"
            app.hasUnsavedChanges
        }
        form.saveTapped()
        await tester.assert {
            h.saves.wasCalled(with: "Hex nuts")
            form.didSend(.saved(NavItem(id: 2, name: "Hex nuts", stock: 12)))
            !form.isSaving
            app.sheet == nil
            app.items[2]?.name == "Hex nuts"
            !app.hasUnsavedChanges
        }
        #expect(form.lifetime == .destructed)
        await tester.finish()
    }

    @Test func cancellingClosesTheSheetAndKeepsTheItem() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.editTapped(1)
        let form = try await tester.unwrap(app.sheet?.edit)
        form.name = "Screws"
        await tester.assert(form.name == "Screws" && app.hasUnsavedChanges)
        form.cancelTapped()
        await tester.assert {
            form.didSend(.cancelled)
            app.sheet == nil
            app.items[1]?.name == "Bolts"
            !app.hasUnsavedChanges
        }
        await tester.finish()
    }

    @Test func dismissingTheSheetWhileASaveIsInFlightCancelsTheSave() async throws {
        let h = NavHarness()
        let (app, tester) = h.start(saveDelay: .seconds(2))
        app.editTapped(1)
        let form = try await tester.unwrap(app.sheet?.edit)
        form.stock = 41
        form.saveTapped()
        await tester.assert {
            form.stock == 41
            form.isSaving
            !form.canSave
            app.hasUnsavedChanges
        }

        app.sheet = nil
        await tester.assert {
            app.sheet == nil
            form.lifetime == .destructed
            !app.hasUnsavedChanges
        }
        await h.clock.advance(by: .seconds(5))
        #expect(!h.saves.wasCalled())
        #expect(app.items[1]?.stock == 40)
        await tester.finish()
    }

    @Test func undoInTheSheetUsesTheFormsOwnStack() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.editTapped(1)
        let form = try await tester.unwrap(app.sheet?.edit)
        form.name = "Bolt"
        form.name = "Bolt M3"
        form.stock = 10
        await tester.assert {
            form.name == "Bolt M3"
            form.stock == 10
            app.hasUnsavedChanges
        }
        form.undoTapped()
        await tester.assert(form.stock == 40)
        form.undoTapped()
        await tester.assert(form.name == "Bolt")
        form.redoTapped()
        await tester.assert(form.name == "Bolt M3")
        #expect(form.node.undoStack.canUndo)
        #expect(!app.node.undoStack.canUndo)
        await tester.finish()
    }

    @Test func aPreviewSheetTalksToThePreviewServerOnly() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.editTapped(1, preview: true)
        let form = try await tester.unwrap(app.sheet?.edit)
        #expect(form.node.navAPI.label == "preview")
        #expect(app.node.navAPI.label == "test")

        form.chooseSupplierTapped()
        let picker = try await tester.unwrap(form.supplierPicker)
        await tester.assert(picker.results == ["Preview Co"])

        picker.pick("Preview Co")
        await tester.assert {
            picker.didSend(.picked("Preview Co"))
            form.supplierPicker == nil
            form.supplier == "Preview Co"
            app.hasUnsavedChanges
        }
        form.saveTapped()
        await tester.assert {
            form.didSend(.saved(NavItem(id: 1, name: "Bolts", stock: 40, supplier: "Preview Co")))
            !form.isSaving
            app.sheet == nil
            app.items[1]?.supplier == "Preview Co"
            !app.hasUnsavedChanges
        }
        #expect(!h.saves.wasCalled())
        await tester.finish()
    }

    @Test func aNestedPickerSearchesAsTheQueryChangesAndClosesItself() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.editTapped(2)
        let form = try await tester.unwrap(app.sheet?.edit)
        form.chooseSupplierTapped()
        let picker = try await tester.unwrap(form.supplierPicker)
        await tester.assert(picker.results == ["Acme", "Bolt & Co", "Nutty"])
        picker.query = "n"
        await tester.assert {
            picker.query == "n"
            picker.results == ["Nutty"]
        }
        picker.closeTapped()
        await tester.assert {
            picker.didSend(.dismissed)
            form.supplierPicker == nil
            picker.lifetime == .destructed
        }
        #expect(app.sheet?.edit == form)
        await tester.finish()
    }

    @Test func anUnassertedEventOfANestedSheetNamesItsPlace() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.editTapped(2)
        let form = try await tester.unwrap(app.sheet?.edit)
        form.chooseSupplierTapped()
        let picker = try await tester.unwrap(form.supplierPicker)
        await tester.assert(picker.results == ["Acme", "Bolt & Co", "Nutty"])
        picker.pick("Acme")
        await withKnownIssue {
            await tester.assert {
                form.supplier == "Acme"
                form.supplierPicker == nil
                app.hasUnsavedChanges
            }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().hasPrefix("""
                Events were not asserted:

                  NavApp.sheet.edit.supplierPicker (a model removed since) sent .picked("Acme")
                """)
        }
        await tester.finish()
    }

    @Test func aConfirmedDeletionRemovesTheItemAndPopsItsScreens() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.pushItem(1)
        app.pushItem(2)
        app.pushItem(1)
        await tester.assert {
            app.path.count == 3
            app.path.compactMap(\.item?.stock) == [40, 12, 40]
            h.fetches.callCount == 3
        }
        app.deleteTapped(1)
        let dialog = try await tester.unwrap(app.alert?.confirmDelete)
        dialog.confirmTapped()
        await tester.assert {
            dialog.didSend(.confirmed(itemID: 1))
            app.alert == nil
            app.items.keys.sorted() == [2]
            app.path.compactMap(\.item?.itemID) == [2]
        }
        await tester.finish()
    }

    @Test func unsavedChangesFoldOverTheSheetAndTheInlineForms() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        let screen = try await h.pushLoadedItem(2, on: app, tester)
        screen.quickEditTapped(NavItem(id: 2, name: "Nuts", stock: 12))
        app.editTapped(1)
        let inline = try await tester.unwrap(screen.quickEdit)
        let sheet = try await tester.unwrap(app.sheet?.edit)
        inline.stock = 13
        sheet.name = "Bolts!"
        await tester.assert {
            inline.stock == 13
            sheet.name == "Bolts!"
            app.node.preference.navUnsavedForms == 2
            screen.node.preference.navUnsavedForms == 1
        }
        inline.cancelTapped()
        await tester.assert {
            inline.didSend(.cancelled)
            screen.quickEdit == nil
            app.node.preference.navUnsavedForms == 1
            app.sheet?.edit == sheet
        }
        sheet.name = "Bolts"
        await tester.assert {
            sheet.name == "Bolts"
            !app.hasUnsavedChanges
        }
        await tester.finish()
    }

    @Test func aContactSharedByTheStackAndAPreviewSheetIsOneLiveScreen() async throws {
        let h = NavHarness()
        let (app, tester) = h.start()
        app.pushContact(7, name: "Ada")
        let contact = try #require(app.path.first?.contact)
        app.sheet = .contactPreview(contact)
        await tester.assert {
            app.path.count == 1
            app.sheet?.contactPreview?.id == 7
            !contact.node.isUniquelyReferenced
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert(contact.presenceChecks == 1)

        app.sheet?.contactPreview?.name = "Ada L."
        await tester.assert(contact.name == "Ada L.")
        app.sheet = nil
        await tester.assert {
            app.sheet == nil
            contact.node.isUniquelyReferenced
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert(contact.presenceChecks == 2)

        app.pop()
        await tester.assert {
            app.path.isEmpty
            contact.lifetime == .destructed
        }
        await tester.finish()
    }
}
