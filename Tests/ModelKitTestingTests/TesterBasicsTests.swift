import Foundation
import ModelKit
import ModelKitTesting
import Testing

struct Counter: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var name = "a"
    func incrementTapped() { count += 1 }
    func slowIncrement() {
        node.task { count += 1 }
    }
    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("name", \.$name)
    }
}

@Suite struct TesterBasicsTests {
    @Test func assertPassesWhenStateMatches() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        await tester.assert(model.count == 1)
        model.slowIncrement()
        await tester.assert { model.count == 2 }
        await tester.finish()
    }

    @Test func unassertedChangeFails() async {
        let (model, tester) = Counter().andTester()
        model.incrementTapped()
        model.name = "b"
        await withKnownIssue {
            await tester.assert(model.count == 1)
        } matching: { issue in
            print(issue.comments.map(\.rawValue).joined())
            return true
        }
        await tester.finish()
    }

    @Test func failingAssertShowsReads() async {
        let (model, tester) = Counter().andTester()
        await withKnownIssue {
            await tester.assert(model.count == 1, timeout: .milliseconds(50))
        } matching: { issue in
            print(issue.comments.map(\.rawValue).joined())
            return true
        }
        await tester.finish()
    }
}
