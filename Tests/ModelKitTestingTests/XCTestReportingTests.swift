import ModelKit
import ModelKitTesting
import XCTest

/// Proves that Tester failures reach XCTest when no Swift Testing test is running.
final class XCTestReportingTests: XCTestCase {
    private var recorded: [(description: String, line: Int)] = []
    private var capturing = false

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        if capturing {
            recorded.append((description, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testPassingAssertRecordsNothing() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        await tester.assert(model.count == 1)
        await tester.finish()
    }

    func testFailedAssertIsReportedToXCTestAtTheAssertLine() async {
        let (model, tester) = Counter().andTester()
        capturing = true
        let line = #line + 1
        await tester.assert(model.count == 1, timeout: .milliseconds(10))
        capturing = false
        XCTAssertEqual(recorded.count, 1)
        XCTAssertEqual(recorded.first?.line, line)
        XCTAssertTrue(recorded.first?.description.contains("Assertion failed: the predicate was still false") == true)
        await tester.finish()
    }

    func testFailedUnwrapIsReportedToXCTestOnce() async {
        let (parent, tester) = Parent().andTester()
        capturing = true
        let line = #line + 2
        do {
            _ = try await tester.unwrap(parent.selected, timeout: .milliseconds(10))
            XCTFail("unwrap returned a value")
        } catch {}
        capturing = false
        XCTAssertEqual(recorded.map(\.line), [line])
        XCTAssertTrue(recorded.first?.description.contains("Unwrap failed: `parent.selected` was still nil") == true)
        await tester.finish()
    }

    func testEndOfTestFailureIsReportedToXCTest() async {
        let line = #line + 1
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        capturing = true
        await tester.finish()
        capturing = false
        XCTAssertEqual(recorded.map(\.line), [line])
        XCTAssertTrue(recorded.first?.description.contains("State changes were not asserted:") == true)
    }
}
