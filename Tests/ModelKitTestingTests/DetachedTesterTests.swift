import ModelKit
@testable import ModelKitTesting
import Testing

/// A tester made in a detached task of a `@Test` (which has no current test there) reports to Swift
/// Testing, for the run, instead of to XCTest, which dropped its failures: the test passed silently.
@Suite struct DetachedTesterTests {
    @Test func failuresOutsideAnyTestGoToSwiftTestingWhenNoTestCaseRuns() async {
        // Starts following XCTest's test cases, if no tester did yet.
        _ = Counter().andTester()
        #expect(!FailureRecording.isOutsideXCTestCases)
        let outside = await Task.detached { FailureRecording.isOutsideXCTestCases }.value
        #expect(outside)
    }
}
