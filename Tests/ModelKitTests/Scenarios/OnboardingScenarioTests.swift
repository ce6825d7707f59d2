import Foundation
import ModelKit
import ModelKitTesting
import Testing

// The account creation of OnboardingModels.swift, driven step by step under a full-exhaustivity
// Tester and a TestClock: the server's username check takes 500 ms, account creation 1 s.

private let takenUsernames: Set<String> = ["admin", "swift"]

private struct OnboardingHarness {
    let clock = TestClock()
    let checks = TestProbe("checkUsername")
    let creations = TestProbe("createAccount")

    func start(
        _ flow: OnboardingFlow = OnboardingFlow(),
        failure: OnboardingError? = nil
    ) -> (OnboardingFlow, Tester) {
        let (clock, checks, creations) = (clock, checks, creations)
        let (flow, tester) = flow.andTester {
            $0.onboardingClient = OnboardingClient(
                validateEmail: onboardingValidateEmail,
                checkUsername: { name in
                    checks.call(name)
                    try? await clock.sleep(for: .milliseconds(500))
                    return takenUsernames.contains(name.lowercased()) ? "Username '\(name)' is already taken." : nil
                },
                createAccount: { email, password, username in
                    creations.call(email, password, username)
                    try await clock.sleep(for: .seconds(1))
                    if let failure { throw failure }
                }
            )
        }
        tester.install(checks)
        tester.install(creations)
        return (flow, tester)
    }
}

/// Fills in valid credentials and continues; the flow is then on the profile step.
private func passCredentials(_ flow: OnboardingFlow, _ tester: Tester) async {
    let credentials = flow.credentials
    credentials.email = "blob@example.com"
    credentials.password = "supersecret"
    credentials.confirmPassword = "supersecret"
    credentials.continueTapped()
    await tester.assert {
        credentials.email == "blob@example.com"
        credentials.password == "supersecret"
        credentials.confirmPassword == "supersecret"
        credentials.didSend(.continued(email: "blob@example.com", password: "supersecret"))
        flow.email == "blob@example.com"
        flow.password == "supersecret"
        flow.path == [.profile]
    }
}

@Suite struct OnboardingScenarioTests {
    @Test func credentialsAreValidatedOnContinueThenOnEachEdit() async {
        let h = OnboardingHarness()
        let (flow, tester) = h.start()
        let credentials = flow.credentials
        credentials.email = "blob"
        await tester.assert {
            credentials.email == "blob"
            credentials.emailError == nil
        }
        credentials.continueTapped()
        await tester.assert {
            credentials.emailError == "Enter a valid email address."
            credentials.passwordError == "Password is required."
        }
        credentials.email = "blob@example.com"
        await tester.assert {
            credentials.email == "blob@example.com"
            credentials.emailError == nil
        }
        credentials.password = "short"
        await tester.assert {
            credentials.password == "short"
            credentials.passwordError == "Password must be at least 8 characters."
        }
        credentials.password = "supersecret"
        await tester.assert {
            credentials.password == "supersecret"
            credentials.passwordError == "Passwords do not match."
        }
        credentials.confirmPassword = "supersecret"
        await tester.assert {
            credentials.confirmPassword == "supersecret"
            credentials.passwordError == nil
        }
        credentials.continueTapped()
        await tester.assert {
            credentials.didSend(.continued(email: "blob@example.com", password: "supersecret"))
            flow.email == "blob@example.com"
            flow.password == "supersecret"
            flow.path == [.profile]
        }
        // Continuing again does not push a second profile step.
        credentials.continueTapped()
        await tester.assert(credentials.didSend(.continued(email: "blob@example.com", password: "supersecret")))
        #expect(flow.path == [.profile])
        await tester.finish()
    }

    @Test func theUsernameIsCheckedOnEachKeystrokeTheStaleCheckCancelled() async {
        let h = OnboardingHarness()
        let (flow, tester) = h.start()
        let profile = flow.profile
        profile.username = "ad"
        await tester.assert {
            profile.username == "ad"
            profile.availabilityError == "Username must be at least 3 characters."
        }
        profile.username = "adm"
        await tester.assert {
            profile.username == "adm"
            profile.isChecking
            h.checks.wasCalled(with: "adm")
        }
        await h.clock.advance(by: .milliseconds(300))
        profile.username = "admin"
        await tester.assert {
            profile.username == "admin"
            profile.isChecking
            h.checks.wasCalled(with: "admin")
        }
        // The check of "adm" was cancelled: 300 ms more end nothing, 500 ms after "admin" it answers.
        await h.clock.advance(by: .milliseconds(300))
        #expect(profile.isChecking && profile.availabilityError == "Username must be at least 3 characters.")
        await h.clock.advance(by: .milliseconds(200))
        await tester.assert {
            !profile.isChecking
            profile.availabilityError == "Username 'admin' is already taken."
        }
        profile.continueTapped()
        await tester.settle()
        #expect(flow.path.isEmpty)
        await tester.finish()
    }

    @Test func theWholeFlowCreatesTheAccount() async throws {
        let h = OnboardingHarness()
        let (flow, tester) = h.start()
        await passCredentials(flow, tester)
        let profile = flow.profile
        profile.username = " blobby "
        profile.bio = "Blob's bio"
        await h.clock.advance(by: .milliseconds(500))
        await tester.assert {
            profile.username == " blobby "
            profile.bio == "Blob's bio"
            !profile.isChecking
            profile.availabilityError == nil
            h.checks.wasCalled(with: "blobby")
        }
        profile.continueTapped()
        let review = try await tester.unwrap(flow.path.last?.review)
        await tester.assert {
            profile.didSend(.continued(username: "blobby", bio: "Blob's bio"))
            flow.username == "blobby"
            flow.path.count == 2
        }
        #expect(review.email == "blob@example.com" && review.password == "supersecret" && review.bio == "Blob's bio")

        review.submitTapped()
        await tester.assert {
            review.isSubmitting
            h.creations.wasCalled(with: "blob@example.com", "supersecret", "blobby")
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            !review.isSubmitting
            review.didSend(.accountCreated)
            flow.isComplete
        }
        await tester.finish()
    }

    @Test func aFailedCreationShowsTheServersMessage() async {
        let h = OnboardingHarness()
        let (flow, tester) = h.start(failure: OnboardingError(message: "The server is down."))
        flow.handleURL(URL(string: "signup://step/review")!)
        let review = flow.path.last?.review
        await tester.assert {
            flow.path.count == 2
            flow.path.first == .profile
            review?.username == ""
        }
        review?.submitTapped()
        await tester.assert {
            review?.isSubmitting == true
            h.creations.wasCalled(with: "", "", "")
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            review?.isSubmitting == false
            review?.submitError == "The server is down."
            !flow.isComplete
        }
        await tester.finish()
    }

    @Test func deepLinksJumpToAStep() async {
        let h = OnboardingHarness()
        let (flow, tester) = h.start()
        flow.handleURL(URL(string: "signup://step/profile")!)
        await tester.assert(flow.path == [.profile])
        flow.handleURL(URL(string: "other://step/review")!)
        flow.handleURL(URL(string: "signup://step/nowhere")!)
        await tester.assert(flow.path == [])
        await tester.finish()
    }

    @Test func startingOverBeginsWithFreshStepsAndStopsTheirWork() async {
        let h = OnboardingHarness()
        let (flow, tester) = h.start()
        await passCredentials(flow, tester)
        let oldProfile = flow.profile
        oldProfile.username = "blobby"
        await tester.assert {
            oldProfile.username == "blobby"
            oldProfile.isChecking
            h.checks.wasCalled(with: "blobby")
        }
        flow.startOver()
        await tester.assert {
            flow.email == ""
            flow.password == ""
            flow.path == []
            flow.credentials.email == ""
            flow.profile.username == ""
            flow.profile.isChecking == false
        }
        #expect(oldProfile.lifetime == .destructed)
        // The old check was cancelled with its model: advancing the clock changes nothing.
        await h.clock.advance(by: .seconds(1))
        await tester.finish()
    }

    // MARK: - Without a Tester

    @Test func goingBackToTheProfileKeepsWhatWasTyped() {
        let flow = OnboardingFlow().withAnchor {
            $0.onboardingClient.checkUsername = { _ in nil }
        }
        flow.handleURL(URL(string: "signup://step/profile")!)
        flow.profile.bio = "typed before going back"
        flow.path = []
        flow.handleURL(URL(string: "signup://step/profile")!)
        #expect(flow.profile.bio == "typed before going back")
        #expect(flow.profile.lifetime == .anchored)
    }

    @Test func editsBeforeTheFirstContinueAreNotValidated() {
        let flow = OnboardingFlow().withAnchor()
        flow.credentials.email = "nope"
        flow.credentials.password = "x"
        #expect(flow.credentials.emailError == nil && flow.credentials.passwordError == nil)
        flow.credentials.continueTapped()
        flow.credentials.email = ""
        #expect(flow.credentials.emailError == "Email is required.")
    }
}
