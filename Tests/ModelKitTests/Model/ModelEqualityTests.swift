import ModelKit
import ModelKitTesting
import Testing

// `==` and `hash(into:)` of models that declare `Equatable`/`Hashable` (Models.md, "Equality of
// models is identity"): copies of one instance are equal, and so are the instances of one logical
// model joined by same-id continuity (API.md section 8).

private struct Screen: Model, Hashable {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var title: String

    init(id: Int, title: String = "") {
        self.id = id
        self.title = title
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$title) }
}

private struct Counter: Model, Hashable {
    var node = ModelNode<Self>()
    @Tracked var count = 0

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$count) }
}

private enum Route: Hashable, Sendable, ModelContainer {
    case screen(Screen)
    case about

    func visit(_ visitor: inout ContainerVisitor) {
        if case .screen(let screen) = self { visitor.visit(screen) }
    }
}

private struct Navigator: Model {
    var node = ModelNode<Self>()
    @Tracked var path: [Route] = []
    @Tracked var counters: [Counter] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$path)
        r.track(\.$counters)
    }
}

@Suite struct ModelEqualityTests {
    @Test func copiesOfOneInstanceAreEqualAndOtherInstancesAreNot() {
        let counter = Counter()
        let copy = counter
        #expect(counter == copy)
        #expect(counter.hashValue == copy.hashValue)
        #expect(counter != Counter())
        #expect(Screen(id: 1) != Screen(id: 1), "two unanchored instances with one id are two models")
    }

    @Test func anAnchoredModelKeepsItsHashAndStaysFoundInASet() async {
        let (navigator, tester) = Navigator().andTester()
        let counter = Counter()
        let set: Set<Counter> = [counter]
        navigator.counters = [counter]
        await tester.assert(navigator.counters.count == 1)
        #expect(set.contains(counter))
        #expect(set.contains(navigator.counters[0]))
        await tester.finish()
    }

    @Test func theInstancesOfAContinuedModelAreEqualAndHashAlike() async {
        let (navigator, tester) = Navigator().andTester()
        let first = Screen(id: 1, title: "draft")
        navigator.path = [.screen(first), .about]
        await tester.assert(navigator.path.count == 2)
        let shown: Set<Route> = Set(navigator.path)

        let again = Screen(id: 1, title: "final")
        navigator.path = [.screen(again), .about]
        await tester.assert(first.title == "final")
        #expect(first == again)
        #expect(first.hashValue == again.hashValue)
        #expect(navigator.path == [.screen(first), .about])
        #expect(shown == Set(navigator.path), "a refresh with the same ids leaves a path equal to itself")
        #expect(navigator.path.firstIndex(of: .screen(first)) == 0)
        await tester.finish()
    }

    @Test func aFrozenCopyAndAReplacedModelAreNotEqualToTheLiveOne() async {
        let (navigator, tester) = Navigator().andTester()
        let first = Screen(id: 1)
        navigator.path = [.screen(first)]
        await tester.assert(navigator.path.count == 1)
        #expect(first.frozenCopy != first)

        navigator.path = []
        let later = Screen(id: 1)
        navigator.path = [.screen(later)]
        await tester.assert(navigator.path.count == 1)
        #expect(first.lifetime == .destructed)
        #expect(later != first, "a model removed before another with its id was added is another model")
        await tester.finish()
    }
}
