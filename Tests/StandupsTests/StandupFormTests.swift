import Foundation
import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// The add/edit form: attendees and where the focus goes.
@Suite struct StandupFormTests {
    // Upstream: testAddAttendee.
    @Test func addingAnAttendeeAppendsAndFocusesIt() async {
        let (form, tester) = StandupForm(standup: Standup(id: Standup.ID())).andTester()

        // A standup without attendees gets a blank one when the form activates.
        await tester.assert(form.standup.attendees == [Attendee(id: Attendee.ID(UUID(0)))])

        form.addAttendeeButtonTapped()
        await tester.assert {
            form.focus == .attendee(Attendee.ID(UUID(1)))
            form.standup.attendees == [Attendee(id: Attendee.ID(UUID(0))), Attendee(id: Attendee.ID(UUID(1)))]
        }
        await tester.finish()
    }

    // Upstream: testFocus_RemoveAttendee.
    @Test func removingAttendeesFocusesTheAttendeeTakingTheFirstRemovedPlace() async {
        let attendees = (0..<4).map { _ in Attendee(id: Attendee.ID()) }
        let (form, tester) = StandupForm(standup: Standup(id: Standup.ID(), attendees: attendees)).andTester()

        form.deleteAttendees(atOffsets: [0])
        await tester.assert {
            form.focus == .attendee(attendees[1].id)
            form.standup.attendees == [attendees[1], attendees[2], attendees[3]]
        }

        form.deleteAttendees(atOffsets: [1])
        await tester.assert {
            form.focus == .attendee(attendees[3].id)
            form.standup.attendees == [attendees[1], attendees[3]]
        }

        // The last place was removed: the focus goes to the attendee before it.
        form.deleteAttendees(atOffsets: [1])
        await tester.assert {
            form.focus == .attendee(attendees[1].id)
            form.standup.attendees == [attendees[1]]
        }

        // Removing everyone leaves a new blank attendee, focused.
        form.deleteAttendees(atOffsets: [0])
        await tester.assert {
            form.focus == .attendee(Attendee.ID(UUID(0)))
            form.standup.attendees == [Attendee(id: Attendee.ID(UUID(0)))]
        }
        await tester.finish()
    }

    @Test func editsAreUndoneAndRedoneLeavingTheFocusAlone() async {
        let attendees = [Attendee(id: Attendee.ID(), name: "Ana")]
        let (form, tester) = StandupForm(standup: Standup(id: Standup.ID(), attendees: attendees)).andTester()
        #expect(!form.canUndo)

        form.standup.title = "Daily"
        form.addAttendeeButtonTapped()
        await tester.assert {
            form.standup.title == "Daily"
            form.standup.attendees == attendees + [Attendee(id: Attendee.ID(UUID(0)))]
            form.focus == .attendee(Attendee.ID(UUID(0)))
            form.canUndo
        }

        // Undoing restores the attendees; the focus (`.transient`) stays where it is.
        form.undoTapped()
        await tester.assert {
            form.standup.attendees == attendees
            form.canRedo
        }
        form.undoTapped()
        await tester.assert {
            form.standup.title == ""
            !form.canUndo
        }

        form.redoTapped()
        await tester.assert(form.standup.title == "Daily")

        // A new edit clears what was left to redo.
        form.deleteAttendees(atOffsets: [0])
        await tester.assert {
            form.standup.attendees == [Attendee(id: Attendee.ID(UUID(1)))]
            form.focus == .attendee(Attendee.ID(UUID(1)))
            !form.canRedo
        }
        // Removing the last attendee and adding a blank one was one edit.
        form.undoTapped()
        await tester.assert(form.standup.attendees == attendees)
        await tester.finish()
    }
}
