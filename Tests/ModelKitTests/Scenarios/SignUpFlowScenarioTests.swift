import ModelKit
import ModelKitTesting
import Testing

// The sign-up wizard of SignUpFlowModels.swift, driven as a user goes through it, under a
// full-exhaustivity Tester: every edit of the shared data, every step pushed, every alert and event.

private func issueText(_ issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// Pushes the steps up to the topics step, with the basics and personal info filled in and asserted.
private func fillInUpToTopics(_ flow: SignUpFlow, _ tester: Tester) async throws -> SignUpTopics {
    flow.path.append(.basics(SignUpBasics(data: flow.data)))
    let basics = try await tester.unwrap(flow.path.first.flatMap { step -> SignUpBasics? in
        if case .basics(let basics) = step { return basics }
        return nil
    })
    basics.data.email = "blob@pointfree.co"
    basics.data.password = "blob is awesome"
    basics.data.passwordConfirmation = "blob is awesome"
    flow.path.append(.personalInfo(SignUpPersonalInfo(data: basics.data)))
    await tester.assert {
        flow.data.email == "blob@pointfree.co"
        flow.data.password == "blob is awesome"
        flow.data.passwordConfirmation == "blob is awesome"
        flow.path.count == 2
    }
    guard case .personalInfo(let info) = flow.path[1] else { throw SignUpTestError.unexpectedStep }
    info.data.firstName = "Blob"
    info.data.lastName = "McBlob"
    info.data.phoneNumber = "212-555-1234"
    flow.path.append(.topics(SignUpTopics(data: info.data)))
    let topics = try await tester.unwrap(flow.path.last?.topics)
    await tester.assert {
        flow.data.firstName == "Blob"
        flow.data.lastName == "McBlob"
        flow.data.phoneNumber == "212-555-1234"
        flow.path.count == 3
    }
    return topics
}

private enum SignUpTestError: Error { case unexpectedStep }

@Suite struct SignUpFlowScenarioTests {
    @Test func everyStepEditsTheOneSharedData() async throws {
        let (flow, tester) = SignUpFlow().andTester()
        let topics = try await fillInUpToTopics(flow, tester)
        #expect(topics.data == flow.data)
        #expect(flow.data.lifetime == .anchored)
        await tester.finish()
    }

    @Test func topicsRefuseToGoOnWithoutATopic() async throws {
        let (flow, tester) = SignUpFlow().andTester()
        let topics = try await fillInUpToTopics(flow, tester)
        topics.nextTapped()
        await tester.assert {
            topics.alert == "Please choose at least one topic."
            flow.path.count == 3
        }
        topics.alert = nil
        topics.data.set(.concurrency, true)
        topics.data.set(.testing, true)
        topics.data.set(.testing, false)
        topics.nextTapped()
        let summary = try await tester.unwrap(flow.path.last?.summary)
        await tester.assert {
            topics.alert == nil
            flow.data.topics == [.concurrency]
            flow.path.count == 4
            topics.didSend(.onNext)
        }
        #expect(summary.data.email == "blob@pointfree.co")
        await tester.finish()
    }

    @Test func theSummaryEditsTopicsInASheetClosedByItsDone() async throws {
        let (flow, tester) = SignUpFlow().andTester()
        let topics = try await fillInUpToTopics(flow, tester)
        topics.data.set(.swiftUI, true)
        topics.nextTapped()
        let summary = try await tester.unwrap(flow.path.last?.summary)
        await tester.assert {
            flow.data.topics == [.swiftUI]
            flow.path.count == 4
            topics.didSend(.onNext)
        }

        summary.editTopicsTapped()
        let sheet = try await tester.unwrap(summary.destination?.topics)
        sheet.data.set(.swiftUI, false)
        sheet.doneTapped()
        await tester.assert {
            sheet.alert == "Please choose at least one topic."
            summary.data.topics.isEmpty
        }
        sheet.alert = nil
        sheet.data.set(.modernSwiftUI, true)
        sheet.doneTapped()
        await tester.assert {
            sheet.alert == nil
            summary.destination == nil
            flow.data.topics == [.modernSwiftUI]
            sheet.didSend(.onDone)
        }
        // `.onDone` reached the flow too, which pushes a summary only on `.onNext`.
        #expect(flow.path.count == 4)
        #expect(sheet.lifetime == .destructed && flow.data.lifetime == .anchored)
        await tester.finish()
    }

    @Test func theSummaryEditsPersonalInfoInASheet() async throws {
        let (flow, tester) = SignUpFlow().andTester()
        let topics = try await fillInUpToTopics(flow, tester)
        topics.data.set(.testing, true)
        topics.nextTapped()
        let summary = try await tester.unwrap(flow.path.last?.summary)
        await tester.assert {
            flow.data.topics == [.testing]
            flow.path.count == 4
            topics.didSend(.onNext)
        }
        summary.editPersonalInfoTapped()
        let sheet = try await tester.unwrap(summary.destination?.personalInfo)
        sheet.data.firstName = "Blobby"
        summary.sheetDismissed()
        await tester.assert {
            summary.destination == nil
            summary.data.firstName == "Blobby"
        }
        await tester.finish()
    }

    @Test func poppingBackKeepsWhatWasEntered() async throws {
        let (flow, tester) = SignUpFlow().andTester()
        let topics = try await fillInUpToTopics(flow, tester)
        flow.path.removeLast(2)
        await tester.assert(flow.path.count == 1)
        #expect(topics.lifetime == .destructed)
        #expect(flow.data.firstName == "Blob" && flow.data.lifetime == .anchored)
        await tester.finish()
    }

    @Test func anUnassertedEditOfTheSharedDataIsReported() async throws {
        let (flow, tester) = SignUpFlow().andTester()
        flow.path.append(.basics(SignUpBasics(data: flow.data)))
        await tester.assert(flow.path.count == 1)
        flow.data.email = "x@y.z"
        await withKnownIssue {
            await tester.assert(flow.path.count == 1)
        } matching: { issue in
            issueText(issue).contains("SignUpFlow.data.email: \"\" → \"x@y.z\"")
        }
        await tester.finish()
    }

    // MARK: - Without a Tester

    @Test func aSummaryIsPushedOnceForEachNext() async {
        let flow = SignUpFlow().withAnchor()
        flow.data.topics = [.testing]
        flow.path = [.topics(SignUpTopics(data: flow.data))]
        let paths = flow.change(of: \.path)
        flow.path[0].topics?.nextTapped()
        flow.path[0].topics?.nextTapped()
        for await path in paths where path.count == 3 { break }
        #expect(flow.path.count == 3)
        #expect(flow.path.compactMap(\.summary).count == 2)
    }

    @Test func theSharedDataOutlivesEveryStep() {
        let data = SignUpData()
        let flow = SignUpFlow(data: data).withAnchor()
        flow.path = [.basics(SignUpBasics(data: data)), .personalInfo(SignUpPersonalInfo(data: data))]
        flow.path = []
        #expect(data.lifetime == .anchored)
        data.email = "a@b.c"
        #expect(flow.data.email == "a@b.c")
    }
}
