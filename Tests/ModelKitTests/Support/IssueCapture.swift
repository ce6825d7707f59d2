import ModelKit
import Testing

/// Every test that installs the global `IssueReporter` handler lives in a suite nested in this one,
/// so that no two of them install it at the same time (Swift Testing runs other suites in parallel).
@Suite(.serialized)
struct ReportedIssueTests {}

/// Captures the issues ModelKit reports while `body` runs, keeping those whose message mentions
/// `marker` (a model type name unique to the test), so that reports from tests running in parallel
/// don't interfere. Other reports go on to standard error as usual.
final class IssueCapture: Sendable {
    private let marker: String
    private let captured = Locked<[ModelIssue]>([])

    private init(marker: String) {
        self.marker = marker
    }

    var issues: [ModelIssue] { captured.value }
    var messages: [String] { issues.map(\.message) }

    /// Waits until at least `count` matching issues were reported (some are reported by tasks).
    func waitForCount(_ count: Int) async -> Bool {
        await eventually { self.issues.count >= count }
    }

    static func run<R>(
        matching marker: String,
        _ body: (IssueCapture) async throws -> R
    ) async rethrows -> R {
        let capture = IssueCapture(marker: marker)
        IssueReporter.setHandler { issue in
            guard issue.message.contains(marker) else { return false }
            capture.captured.withLock { $0.append(issue) }
            return true
        }
        defer { IssueReporter.setHandler(nil) }
        return try await body(capture)
    }

    /// Like ``run(matching:_:)``, keeping the issues whose message mentions any of `markers`: for
    /// tests that also expect a report naming no model, such as the debug lock-order check's.
    static func run<R>(
        matchingAny markers: [String],
        _ body: (IssueCapture) async throws -> R
    ) async rethrows -> R {
        let capture = IssueCapture(marker: markers.joined(separator: " | "))
        IssueReporter.setHandler { issue in
            guard markers.contains(where: { issue.message.contains($0) }) else { return false }
            capture.captured.withLock { $0.append(issue) }
            return true
        }
        defer { IssueReporter.setHandler(nil) }
        return try await body(capture)
    }
}
