import Foundation
import ModelKit

// SwiftModel's Onboarding example, ported to ModelKit: a three-step account creation. Credentials
// are validated when the user first continues, then again on each edit; the username's availability
// is checked on each keystroke, the previous check cancelled; the review step creates the account
// and reports a failure; deep links jump to a step, and "start over" begins afresh.

struct OnboardingError: Error, Equatable {
    var message: String
}

/// Validates sign-up data and creates the account on the server.
struct OnboardingClient: Sendable {
    /// An error message for an invalid email, or nil.
    var validateEmail: @Sendable (String) -> String?
    /// An error message for a username that is taken, or nil.
    var checkUsername: @Sendable (String) async -> String?
    var createAccount: @Sendable (_ email: String, _ password: String, _ username: String) async throws -> Void
}

extension OnboardingClient: DependencyKey {
    static let liveValue = OnboardingClient(
        validateEmail: onboardingValidateEmail,
        checkUsername: { _ in nil },
        createAccount: { _, _, _ in }
    )
}

extension DependencyValues {
    var onboardingClient: OnboardingClient {
        get { self[OnboardingClient.self] }
        set { self[OnboardingClient.self] = newValue }
    }
}

/// The email check the live client makes (tests use it too).
@Sendable func onboardingValidateEmail(_ email: String) -> String? {
    let trimmed = email.trimmingCharacters(in: .whitespaces)
    if trimmed.isEmpty { return "Email is required." }
    let parts = trimmed.split(separator: "@")
    guard parts.count == 2, parts[1].contains(".") else { return "Enter a valid email address." }
    return nil
}

struct OnboardingCredentials: Model {
    enum Event: Sendable, Equatable {
        case continued(email: String, password: String)
    }

    var node = ModelNode<Self>()
    @Tracked var email = ""
    @Tracked var password = ""
    @Tracked var confirmPassword = ""
    @Tracked var emailError: String?
    @Tracked var passwordError: String?
    /// Whether the user has tried to continue: from then on each edit is validated at once.
    @Tracked var hasAttemptedSubmit = false

    func onActivate() {
        node.onChange(of: email) { _, email in
            guard hasAttemptedSubmit else { return }
            emailError = node.onboardingClient.validateEmail(email)
        }
        node.onChange(of: [password, confirmPassword]) { _, _ in
            guard hasAttemptedSubmit else { return }
            passwordError = passwordProblem()
        }
    }

    func continueTapped() {
        hasAttemptedSubmit = true
        emailError = node.onboardingClient.validateEmail(email)
        passwordError = passwordProblem()
        guard emailError == nil, passwordError == nil else { return }
        node.send(.continued(email: email, password: password))
    }

    private func passwordProblem() -> String? {
        if password.isEmpty { return "Password is required." }
        if password.count < 8 { return "Password must be at least 8 characters." }
        if password != confirmPassword { return "Passwords do not match." }
        return nil
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$email)
        r.track(\.$password)
        r.track(\.$confirmPassword)
        r.track(\.$emailError)
        r.track(\.$passwordError)
        r.track(\.$hasAttemptedSubmit, options: .private)
    }
}

struct OnboardingProfile: Model {
    enum Event: Sendable, Equatable {
        case continued(username: String, bio: String)
    }

    var node = ModelNode<Self>()
    @Tracked var username = ""
    @Tracked var bio = ""
    @Tracked var isChecking = false
    @Tracked var availabilityError: String?

    func onActivate() {
        node.task(id: username) { username in
            let trimmed = username.trimmingCharacters(in: .whitespaces)
            guard trimmed.count >= 3 else {
                isChecking = false
                availabilityError = trimmed.isEmpty ? nil : "Username must be at least 3 characters."
                return
            }
            isChecking = true
            defer { isChecking = false }
            let error = await node.onboardingClient.checkUsername(trimmed)
            try Task.checkCancellation()
            availabilityError = error
        }
    }

    func continueTapped() {
        let trimmed = username.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 3 else {
            availabilityError = "Username must be at least 3 characters."
            return
        }
        guard availabilityError == nil, !isChecking else { return }
        node.send(.continued(username: trimmed, bio: bio))
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$username)
        r.track(\.$bio)
        r.track(\.$isChecking)
        r.track(\.$availabilityError)
    }
}

struct OnboardingReview: Model, Equatable {
    enum Event: Sendable, Equatable {
        case accountCreated
    }

    var node = ModelNode<Self>()
    let email: String
    let username: String
    let bio: String
    let password: String
    @Tracked var isSubmitting = false
    @Tracked var submitError: String?

    init(email: String, username: String, bio: String, password: String) {
        self.email = email
        self.username = username
        self.bio = bio
        self.password = password
    }

    func submitTapped() {
        node.task {
            isSubmitting = true
            submitError = nil
            defer { isSubmitting = false }
            try await node.onboardingClient.createAccount(email, password, username)
            node.send(.accountCreated)
        } catch: { error in
            submitError = (error as? OnboardingError)?.message ?? "\(error)"
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$isSubmitting)
        r.track(\.$submitError)
    }
}

/// A step pushed past the credentials: the profile step is a marker (its model lives in the flow, so
/// what was typed survives going back), the review carries a model made fresh when it is pushed.
enum OnboardingStep: ModelContainer, Sendable, Equatable {
    case profile
    case review(OnboardingReview)

    var review: OnboardingReview? {
        if case .review(let review) = self { return review }
        return nil
    }

    func visit(_ visitor: inout ContainerVisitor) {
        if case .review(let review) = self { visitor.visit(review) }
    }
}

struct OnboardingFlow: Model {
    var node = ModelNode<Self>()
    @Tracked var credentials = OnboardingCredentials()
    @Tracked var profile = OnboardingProfile()
    @Tracked var path: [OnboardingStep] = []
    @Tracked var email = ""
    @Tracked var password = ""
    @Tracked var username = ""
    @Tracked var isComplete = false

    func onActivate() {
        node.forEach(node.event(fromType: OnboardingCredentials.self)) { event, _ in
            guard case .continued(let email, let password) = event else { return }
            self.email = email
            self.password = password
            if path.last != .profile { path.append(.profile) }
        }
        node.forEach(node.event(fromType: OnboardingProfile.self)) { event, _ in
            guard case .continued(let username, let bio) = event else { return }
            self.username = username
            path.append(.review(OnboardingReview(email: email, username: username, bio: bio, password: password)))
        }
        node.forEach(node.event(fromType: OnboardingReview.self)) { event, _ in
            if event == .accountCreated { isComplete = true }
        }
    }

    func startOver() {
        node.transaction {
            email = ""
            password = ""
            username = ""
            isComplete = false
            path = []
            credentials = OnboardingCredentials()
            profile = OnboardingProfile()
        }
    }

    /// `signup://step/profile` and `signup://step/review`; any other step goes back to the start.
    func handleURL(_ url: URL) {
        guard url.scheme == "signup", url.host == "step" else { return }
        switch url.lastPathComponent {
        case "profile":
            path = [.profile]
        case "review":
            path = [.profile, .review(OnboardingReview(email: email, username: username, bio: "", password: password))]
        default:
            path = []
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$credentials)
        r.track(\.$profile)
        r.track(\.$path)
        r.track(\.$email)
        r.track(\.$password)
        r.track(\.$username)
        r.track(\.$isComplete)
    }
}
