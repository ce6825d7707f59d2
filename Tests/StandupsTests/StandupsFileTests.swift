import Foundation
@testable import Standups
import Testing

/// The file format of the standups: format 1 (a plain array, the upstream app's format) is read and
/// written; a newer format, or data that is not standups, is a ``StandupsFile/Problem``.
@Suite struct StandupsFileTests {
    @Test func standupsAreWrittenAsAPlainArray() throws {
        let data = try StandupsFile.encode([.engineeringMock])

        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(json.map { $0["title"] as? String } == ["Engineering"])
        #expect(try StandupsFile.decode(data) == [.engineeringMock])
    }

    @Test func filesOfTheUpstreamAppAreRead() throws {
        let data = try JSONEncoder().encode([Standup.designMock, .engineeringMock])

        #expect(try StandupsFile.decode(data) == [.designMock, .engineeringMock])
    }

    @Test func objectClaimingTheCurrentFormatIsUnreadable() {
        let data = Data(#"{"version": 1, "standups": []}"#.utf8)

        #expect(throws: StandupsFile.Problem.unreadable(reason: "it claims format 1, which is written as a plain array")) {
            try StandupsFile.decode(data)
        }
    }

    @Test func objectWithoutAVersionIsUnreadableAndSaysWhatAFileHolds() {
        let data = Data(#"{"standups": []}"#.utf8)

        #expect(throws: StandupsFile.Problem.unreadable(reason: """
            it is a JSON object with no "version"; a standups file is a list of standups, or an object \
            whose "version" says its format
            """)) { try StandupsFile.decode(data) }
    }

    @Test func versionThatIsNotANumberIsUnreadable() {
        #expect(throws: StandupsFile.Problem.unreadable(reason: #"its "version" is not a whole number"#)) {
            try StandupsFile.decode(Data(#"{"version": "2"}"#.utf8))
        }
    }

    @Test func singleJSONValueIsUnreadable() {
        #expect(throws: StandupsFile.Problem.unreadable(reason: """
            it is a single JSON value; a standups file is a list of standups, or an object whose "version" \
            says its format
            """)) { try StandupsFile.decode(Data("42".utf8)) }
    }

    @Test func emptyFileIsUnreadableBecauseItIsEmpty() {
        #expect(throws: StandupsFile.Problem.unreadable(reason: "it is empty")) { try StandupsFile.decode(Data()) }
        #expect(throws: StandupsFile.Problem.unreadable(reason: "it holds only blank space")) {
            try StandupsFile.decode(Data(" \n\t\n".utf8))
        }
    }

    @Test func newerFormatIsNotRead() {
        let data = Data(#"{"version": 2, "standups": [], "reminders": []}"#.utf8)

        #expect(throws: StandupsFile.Problem.newerFormat(version: 2)) { try StandupsFile.decode(data) }
    }

    @Test func truncatedFileIsUnreadable() throws {
        let data = try StandupsFile.encode([.mock])

        #expect(throws: StandupsFile.Problem.unreadable(reason: "The given data was not valid JSON")) {
            try StandupsFile.decode(data.prefix(data.count / 2))
        }
    }

    @Test func standupsWithoutIdsAreUnreadableAndTheReasonSaysWhere() {
        let data = Data(#"[{"title": "Daily"}]"#.utf8)

        let problem = #expect(throws: StandupsFile.Problem.self) { try StandupsFile.decode(data) }
        guard case .unreadable(let reason)? = problem else {
            Issue.record("Expected an unreadable file, not \(String(describing: problem)).")
            return
        }
        #expect(reason == #""id" is missing (at [0])"#)
    }

    @Test func problemsExplainThemselvesNamingTheFile() {
        let file = URL(fileURLWithPath: "/data/standups.json")

        #expect(StandupsFile.Problem.newerFormat(version: 3).explanation(of: file) == """
            /data/standups.json was written by a newer version of Standups (format 3); this version reads format 1
            """)
        #expect(StandupsFile.Problem.unreadable(reason: "Permission denied").explanation(of: file)
            == "/data/standups.json could not be read (Permission denied)")
    }
}
