import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// The `unsavedEdits` preference: an open form with edits counts, up to the model that shows it.
@Suite struct UnsavedEditsTests {
    @Test func anEditedFormCountsUntilItsEditsAreUndone() async throws {
        let (detail, tester) = StandupDetail(standup: .mock).andTester()
        detail.editButtonTapped()
        let edit = try await tester.unwrap(detail.destination?.edit)
        #expect(detail.node.preference.unsavedEdits == 0)

        edit.form.standup.title = "Blob's Meeting"
        await tester.assert {
            edit.form.standup.title == "Blob's Meeting"
            detail.node.preference.unsavedEdits == 1
        }

        edit.form.standup.title = Standup.mock.title
        await tester.assert {
            edit.form.standup.title == Standup.mock.title
            detail.node.preference.unsavedEdits == 0
        }

        edit.discard()
        await tester.assert(detail.destination == nil)
        await tester.finish()
    }
}
