import ModelKit
import ModelKitTesting
import XCTest

/// A tester a test case keeps in a property, made in `setUp` as with a TCA `TestStore`, and never
/// finished, is ended at the test case's teardown: XCTest would release it only after the whole
/// run, when no test is there to fail.
final class XCTestTesterLifetimeTests: XCTestCase {
    private var model: Counter!
    private var tester: Tester!
    private var recorded: [(description: String, line: Int)] = []
    private var testerLine = 0

    override class func setUp() {
        super.setUp()
        // The first tester of the process starts following XCTest's test cases; this test needs that
        // to have happened before it starts.
        _ = Counter().andTester()
    }

    override func setUp() {
        super.setUp()
        testerLine = #line + 1
        (model, tester) = Counter().andTester()
    }

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        recorded.append((description, lineNumber))
    }

    override func tearDown() {
        // The teardown block that ended the tester ran before this.
        let failures = recorded
        recorded = []
        super.tearDown()
        if failures.map(\.line) != [testerLine]
            || failures.first?.description.contains("State changes were not asserted:") != true
            || failures.first?.description.contains("Counter.count: 0 → 1") != true {
            super.recordFailure(
                withDescription: "Expected the unasserted change at the tester's line \(testerLine), got \(failures)",
                inFile: #filePath, atLine: #line, expected: true
            )
        }
    }

    func testATesterKeptByTheTestCaseAndNeverFinishedIsEndedAtItsTeardown() {
        model.incrementTapped()
    }
}
