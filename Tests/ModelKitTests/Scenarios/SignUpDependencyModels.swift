import ModelKit

// SwiftModel's SignUpFlowUsingDependency example, ported to ModelKit: the sign-up wizard of
// SignUpFlowModels.swift, where the shared data is not handed from step to step but is a model used
// as a dependency: one instance per hierarchy, read by every step through `node`.

/// What the user enters: one instance per hierarchy, the steps' shared dependency.
struct SignUpDepData: Model, DependencyKey, Equatable {
    static var liveValue: SignUpDepData { SignUpDepData() }
    static var testValue: SignUpDepData { SignUpDepData() }

    var node = ModelNode<Self>()
    @Tracked var email = ""
    @Tracked var firstName = ""
    @Tracked var password = ""
    @Tracked var topics: Set<SignUpTopic> = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$email)
        r.track(\.$firstName)
        r.track(\.$password)
        r.track(\.$topics)
    }
}

extension DependencyValues {
    var signUpDepData: SignUpDepData {
        get { self[SignUpDepData.self] }
        set { self[SignUpDepData.self] = newValue }
    }
}

struct SignUpDepBasics: Model {
    var node = ModelNode<Self>()
    var data: SignUpDepData { node.signUpDepData }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

struct SignUpDepTopics: Model {
    enum Event: Sendable, Equatable {
        case onDone
        case onNext
    }

    var node = ModelNode<Self>()
    @Tracked var alert: String?
    var data: SignUpDepData { node.signUpDepData }

    func doneTapped() { proceed(with: .onDone) }
    func nextTapped() { proceed(with: .onNext) }

    private func proceed(with event: Event) {
        if data.topics.isEmpty {
            alert = "Please choose at least one topic."
        } else {
            node.send(event)
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$alert) }
}

struct SignUpDepSummary: Model {
    var node = ModelNode<Self>()
    @Tracked var editedTopics: SignUpDepTopics?
    var data: SignUpDepData { node.signUpDepData }

    func onActivate() {
        node.forEach(node.event(fromType: SignUpDepTopics.self)) { event, _ in
            if event == .onDone { editedTopics = nil }
        }
    }

    func editTopicsTapped() { editedTopics = SignUpDepTopics() }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$editedTopics) }
}

enum SignUpDepStep: ModelContainer, Sendable {
    case basics(SignUpDepBasics)
    case topics(SignUpDepTopics)
    case summary(SignUpDepSummary)

    var topics: SignUpDepTopics? {
        if case .topics(let step) = self { return step }
        return nil
    }

    var summary: SignUpDepSummary? {
        if case .summary(let step) = self { return step }
        return nil
    }

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .basics(let step): visitor.visit(step)
        case .topics(let step): visitor.visit(step)
        case .summary(let step): visitor.visit(step)
        }
    }
}

struct SignUpDepFlow: Model {
    var node = ModelNode<Self>()
    @Tracked var path: [SignUpDepStep] = []
    var data: SignUpDepData { node.signUpDepData }

    func onActivate() {
        node.forEach(node.event(fromType: SignUpDepTopics.self)) { event, _ in
            if event == .onNext { path.append(.summary(SignUpDepSummary())) }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$path) }
}
