import ModelKit
import ModelKitTesting
import Testing

// The sign-up wizard of SignUpDependencyModels.swift, whose steps share their data as a dependency
// model: driven under a full-exhaustivity Tester, and with the data overridden at the root.

@Suite struct SignUpDependencyScenarioTests {
    @Test func everyStepEditsTheOneDependencyModel() async throws {
        let (flow, tester) = SignUpDepFlow().andTester()
        flow.path.append(.basics(SignUpDepBasics()))
        guard case .basics(let basics) = try await tester.unwrap(flow.path.first) else {
            Issue.record("the basics step was not pushed")
            return
        }
        basics.data.email = "blob@pointfree.co"
        basics.data.password = "blob is awesome"
        flow.path.append(.topics(SignUpDepTopics()))
        let topics = try await tester.unwrap(flow.path.last?.topics)
        await tester.assert {
            flow.data.email == "blob@pointfree.co"
            flow.data.password == "blob is awesome"
            flow.path.count == 2
        }
        #expect(topics.data == basics.data && topics.data == flow.data)

        topics.nextTapped()
        await tester.assert(topics.alert == "Please choose at least one topic.")
        topics.alert = nil
        topics.data.topics.insert(.concurrency)
        topics.nextTapped()
        let summary = try await tester.unwrap(flow.path.last?.summary)
        await tester.assert {
            topics.alert == nil
            summary.data.topics == [.concurrency]
            flow.path.count == 3
            topics.didSend(.onNext)
        }

        summary.editTopicsTapped()
        let sheet = try await tester.unwrap(summary.editedTopics)
        sheet.data.topics.insert(.testing)
        sheet.doneTapped()
        await tester.assert {
            summary.editedTopics == nil
            flow.data.topics == [.concurrency, .testing]
            sheet.didSend(.onDone)
        }
        await tester.finish()
    }

    @Test func theDataOverriddenAtTheRootIsWhatEveryStepSees() async throws {
        let (flow, tester) = SignUpDepFlow().andTester {
            let data = SignUpDepData()
            data.email = "preset@example.com"
            data.topics = [.swiftUI]
            $0.signUpDepData = data
        }
        flow.path = [.topics(SignUpDepTopics())]
        let topics = try await tester.unwrap(flow.path.first?.topics)
        #expect(topics.data.email == "preset@example.com")
        topics.nextTapped()
        let summary = try await tester.unwrap(flow.path.last?.summary)
        await tester.assert {
            flow.path.count == 2
            topics.didSend(.onNext)
        }
        #expect(summary.data.topics == [.swiftUI])
        await tester.finish()
    }

    @Test func anUnassertedEditOfTheDependencyModelIsReported() async {
        let (flow, tester) = SignUpDepFlow().andTester()
        flow.data.email = "x@y.z"
        await withKnownIssue {
            await tester.assert(flow.path.isEmpty)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined(separator: "\n")
            // A dependency model's path starts at its type, wherever in the hierarchy it is read.
            return text.contains("\n  SignUpDepData.email: \"\" → \"x@y.z\"\n")
        }
        await tester.finish()
    }

    // MARK: - Without a Tester

    @Test func theDependencyModelLivesAndDiesWithTheHierarchy() {
        var flow: SignUpDepFlow? = SignUpDepFlow().withAnchor()
        flow?.path = [.basics(SignUpDepBasics())]
        let data = flow!.data
        flow?.path = []
        #expect(data.lifetime == .anchored)
        data.firstName = "Blob"
        #expect(flow?.data.firstName == "Blob")
        flow = nil
        #expect(data.lifetime == .destructed)
    }
}
