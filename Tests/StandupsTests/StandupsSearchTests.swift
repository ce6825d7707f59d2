import Foundation
import ModelKit
import ModelKitTesting
@testable import Standups
import Testing

/// Searching the list as you type: `task(id:)` restarts the pause on each new text, and the
/// memoized `visibleStandupDetails` follows the applied search and the standups.
@Suite struct StandupsSearchTests {
    let standups: [Standup] = [.mock, .designMock, .engineeringMock]

    /// The list holding `standups` (nothing stored to load), its search paused on `clock`.
    func list(
        clock: TestClock,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> (StandupsList, Tester) {
        StandupsList(standupDetails: standups.map { StandupDetail(standup: $0) })
            .andTester(fileID: fileID, filePath: filePath, line: line, column: column) {
                $0.dataManager = .mock()
                $0.continuousClock = clock
            }
    }

    /// Types `text` into the search field and lets the pause pass: the search is applied.
    func search(_ text: String, in list: StandupsList, tester: Tester, clock: TestClock) async {
        list.searchText = text
        await clock.advance(by: StandupsList.searchPause)
        await tester.assert {
            list.searchText == text
            list.appliedSearch == text
        }
    }

    @Test func listIsFilteredOnceTypingPauses() async {
        let clock = TestClock()
        let (list, tester) = list(clock: clock)

        // Three keystrokes, each within the pause of the one before: each restarts the pause, so the
        // search is applied once, with the last text (exhaustivity: no other `appliedSearch` change).
        for text in ["b", "bl", "blob e"] {
            list.searchText = text
            await tester.assert(list.searchText == text)
            await clock.advance(by: StandupsList.searchPause / 2)
        }
        await tester.assert(list.visibleStandupDetails.count == 3)

        await clock.advance(by: StandupsList.searchPause / 2)
        await tester.assert {
            list.appliedSearch == "blob e"
            list.visibleStandupDetails.map(\.standup) == [.mock]
        }
        await tester.finish()
    }

    @Test func clearingTheSearchShowsEveryStandupAtOnce() async {
        let clock = TestClock()
        let (list, tester) = list(clock: clock)
        await search("product", in: list, tester: tester, clock: clock)
        await tester.assert(list.visibleStandupDetails.map(\.standup) == [.designMock])

        // No pause: the clock does not move.
        list.searchText = ""
        await tester.assert {
            list.searchText == ""
            list.appliedSearch == ""
            list.visibleStandupDetails.map(\.standup) == standups
        }
        await tester.finish()
    }

    @Test func standupChangedDuringASearchIsShownWhenItMatches() async throws {
        let clock = TestClock()
        let (list, tester) = list(clock: clock)
        await search("retro", in: list, tester: tester, clock: clock)
        await tester.assert(list.visibleStandupDetails.isEmpty)

        let engineering = try await tester.unwrap(list.standupDetails.last)
        engineering.standup.title = "Engineering retro"
        await tester.assert {
            engineering.standup.title == "Engineering retro"
            list.visibleStandupDetails.map(\.id) == [engineering.id]
        }

        var retro = Standup(id: Standup.ID(), title: "Retro")
        retro.attendees = [Attendee(id: Attendee.ID(), name: "Ana")]
        list.standupDetails.append(StandupDetail(standup: retro))
        await tester.assert {
            list.standupDetails.count == 4
            list.visibleStandupDetails.map(\.id) == [engineering.id, retro.id]
        }
        await tester.finish()
    }

    @Test func searchMatchesTitlesAttendeesAndTranscriptsIgnoringCaseAndAccents() {
        var standup = Standup(id: Standup.ID(), title: "Design review")
        standup.attendees = [Attendee(id: Attendee.ID(), name: "René")]
        standup.meetings = [Meeting(id: Meeting.ID(), date: Date(timeIntervalSince1970: 0), transcript: "We shipped it")]

        #expect(standup.matches("DESIGN"))
        #expect(standup.matches("rene"))
        #expect(standup.matches("shipped"))
        #expect(standup.matches("  review "))
        #expect(standup.matches("   "))
        #expect(!standup.matches("retro"))
    }

    /// The search is `.transient`: typing is not an edit, so it is not among the list's
    /// modifications, which the app's autosave listens to.
    @Test func searchingIsNotAModificationOfTheList() async throws {
        let clock = TestClock()
        let (list, tester) = list(clock: clock)
        var modifications = list.node.modifications().makeAsyncIterator()

        await search("blob", in: list, tester: tester, clock: clock)
        list.standupDetails.removeLast()
        await tester.assert(list.standupDetails.map(\.standup) == [.mock, .designMock])

        // The first modification is the removal: the search's two writes made none.
        let first = await modifications.next()
        #expect(first?.paths == ["StandupsList.standupDetails"])
        await tester.finish()
    }
}
