import ModelKit

// SwiftModel's SignUpFlow example, ported to ModelKit: a sign-up wizard pushed on a navigation path
// (basics, personal info, topics, summary) whose every step edits one shared `SignUpData` model. The
// topics step refuses to go on without a topic; the summary edits personal info or topics in a sheet
// and closes the topics sheet when that step says it is done.
//
// The steps the views push (SwiftUI's `NavigationLink(value:)`) are appended to `path` by the tests,
// as the navigation stack's binding would.

enum SignUpTopic: String, CaseIterable, Sendable {
    case advancedSwift = "Advanced Swift"
    case composableArchitecture = "Composable Architecture"
    case concurrency = "Concurrency"
    case modernSwiftUI = "Modern SwiftUI"
    case swiftUI = "SwiftUI"
    case testing = "Testing"
}

/// What the user enters, shared by every step of the flow.
struct SignUpData: Model, Equatable {
    var node = ModelNode<Self>()
    @Tracked var email = ""
    @Tracked var firstName = ""
    @Tracked var lastName = ""
    @Tracked var password = ""
    @Tracked var passwordConfirmation = ""
    @Tracked var phoneNumber = ""
    @Tracked var topics: Set<SignUpTopic> = []

    /// The topic's toggle: on adds it, off removes it.
    func set(_ topic: SignUpTopic, _ isOn: Bool) {
        if isOn { topics.insert(topic) } else { topics.remove(topic) }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$email)
        r.track(\.$firstName)
        r.track(\.$lastName)
        r.track(\.$password)
        r.track(\.$passwordConfirmation)
        r.track(\.$phoneNumber)
        r.track(\.$topics)
    }
}

struct SignUpBasics: Model {
    var node = ModelNode<Self>()
    @Tracked var data: SignUpData

    init(data: SignUpData) { self.data = data }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$data) }
}

struct SignUpPersonalInfo: Model {
    var node = ModelNode<Self>()
    @Tracked var data: SignUpData

    init(data: SignUpData) { self.data = data }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$data) }
}

struct SignUpTopics: Model {
    enum Event: Sendable, Equatable {
        case onDone
        case onNext
    }

    var node = ModelNode<Self>()
    /// The alert's message, while it is shown.
    @Tracked var alert: String?
    @Tracked var data: SignUpData

    init(data: SignUpData) { self.data = data }

    /// "Done", when the step is edited from the summary.
    func doneTapped() { proceed(with: .onDone) }

    /// "Next", when the step is part of the flow.
    func nextTapped() { proceed(with: .onNext) }

    private func proceed(with event: Event) {
        if data.topics.isEmpty {
            alert = "Please choose at least one topic."
        } else {
            node.send(event)
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$alert)
        r.track(\.$data)
    }
}

/// The summary's sheet.
enum SignUpSummaryDestination: ModelContainer, Sendable {
    case personalInfo(SignUpPersonalInfo)
    case topics(SignUpTopics)

    var topics: SignUpTopics? {
        if case .topics(let step) = self { return step }
        return nil
    }

    var personalInfo: SignUpPersonalInfo? {
        if case .personalInfo(let step) = self { return step }
        return nil
    }

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .personalInfo(let step): visitor.visit(step)
        case .topics(let step): visitor.visit(step)
        }
    }
}

struct SignUpSummary: Model {
    var node = ModelNode<Self>()
    @Tracked var destination: SignUpSummaryDestination?
    @Tracked var data: SignUpData

    init(data: SignUpData) { self.data = data }

    func onActivate() {
        node.forEach(node.event(fromType: SignUpTopics.self)) { event, _ in
            if event == .onDone { destination = nil }
        }
    }

    func editPersonalInfoTapped() { destination = .personalInfo(SignUpPersonalInfo(data: data)) }
    func editTopicsTapped() { destination = .topics(SignUpTopics(data: data)) }
    /// The sheet's "Done" (SwiftUI's `dismiss()`), or a swipe down.
    func sheetDismissed() { destination = nil }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$destination)
        r.track(\.$data)
    }
}

enum SignUpStep: ModelContainer, Sendable {
    case basics(SignUpBasics)
    case personalInfo(SignUpPersonalInfo)
    case summary(SignUpSummary)
    case topics(SignUpTopics)

    var summary: SignUpSummary? {
        if case .summary(let step) = self { return step }
        return nil
    }

    var topics: SignUpTopics? {
        if case .topics(let step) = self { return step }
        return nil
    }

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .basics(let step): visitor.visit(step)
        case .personalInfo(let step): visitor.visit(step)
        case .summary(let step): visitor.visit(step)
        case .topics(let step): visitor.visit(step)
        }
    }
}

/// The flow: a navigation path over the one `SignUpData`.
struct SignUpFlow: Model {
    var node = ModelNode<Self>()
    @Tracked var path: [SignUpStep] = []
    @Tracked var data: SignUpData

    init(data: SignUpData = SignUpData()) { self.data = data }

    func onActivate() {
        node.forEach(node.event(fromType: SignUpTopics.self)) { event, _ in
            if event == .onNext { path.append(.summary(SignUpSummary(data: data))) }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$path)
        r.track(\.$data)
    }
}
