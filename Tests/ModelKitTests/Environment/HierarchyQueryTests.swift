import ModelKit
import Observation
import Testing

/// A model used as a dependency.
private struct Settings: Model, DependencyKey {
    var node = ModelNode<Self>()
    @Tracked var mode = "auto"
    static var liveValue: Settings { Settings() }
    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$mode) }
}

/// Two model dependencies that use each other, as two services of an app may.
private struct Preferences: Model, DependencyKey {
    var node = ModelNode<Self>()
    static var liveValue: Preferences { Preferences() }
    func onActivate() { _ = node[Session.self] }
    static func register(_ r: inout ModelRegistrar<Self>) {}
}

private struct Session: Model, DependencyKey {
    var node = ModelNode<Self>()
    static var liveValue: Session { Session() }
    func onActivate() { _ = node[Preferences.self] }
    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// A model that uses `Settings` when asked to.
private struct SettingsUser: Model {
    var node = ModelNode<Self>()
    func readSettings() { _ = node[Settings.self].mode }
    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// `mapHierarchy(for:)`, `reduceHierarchy(for:into:_:)`, `isUniquelyReferenced`,
/// `ModelRelation.dependencies` (API.md section 10).
@Suite struct HierarchyQueryTests {
    private func names(_ panel: Panel, _ relation: ModelRelation) -> [String] {
        panel.node.mapHierarchy(for: relation) { ($0 as? Panel)?.name }
    }

    @Test func mapVisitsSelfAncestorsThenDescendantsDepthFirst() {
        let root = Panel("root", children: [Panel("a", children: [Panel("a1"), Panel("a2")]), Panel("b")]).withAnchor()
        let a = root.children[0]
        #expect(names(root, [.self, .descendants]) == ["root", "a", "a1", "a2", "b"])
        #expect(names(root, .children) == ["a", "b"])
        #expect(names(a.children[1], [.self, .ancestors]) == ["a2", "a", "root"])
        #expect(names(a.children[1], .parent) == ["a"])
        #expect(names(a, [.self, .ancestors, .descendants]) == ["a", "root", "a1", "a2"])
        #expect(names(a, []) == [])
    }

    @Test func aSharedModelIsVisitedOnce() {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        let shared = root.children[0]
        root.detail = shared
        #expect(names(root, .descendants) == ["a"])
        #expect(shared.node.isUniquelyReferenced == false)
        root.detail = nil
        #expect(shared.node.isUniquelyReferenced)
    }

    @Test func reduceFoldsTheSameWalk() {
        let root = Panel("root", children: [Panel("a", children: [Panel("a1")]), Panel("b")]).withAnchor()
        let joined = root.node.reduceHierarchy(for: [.self, .descendants], into: "") { result, model in
            result += (model as? Panel)?.name ?? "?"
        }
        #expect(joined == "rootaa1b")
    }

    @Test func anObservedQueryRunsAgainWhenModelsAreAddedOrRemoved() {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        let fired = Locked(0)
        func track() {
            withObservationTracking { _ = names(root, .descendants) } onChange: { fired.withLock { $0 += 1 } }
        }
        track()
        root.children[0].children.append(Panel("a1"))
        #expect(fired.value == 1)
        track()
        root.children.removeAll()
        #expect(fired.value == 2)
    }

    @Test func anObservedAncestorsQueryRunsAgainOnlyWhenItsChainChanges() {
        let root = Panel("root", children: [Panel("a", children: [Panel("a1")])]).withAnchor()
        let a1 = root.children[0].children[0]
        let fired = Locked(0)
        withObservationTracking {
            #expect(names(a1, [.self, .ancestors]) == ["a1", "a", "root"])
        } onChange: { fired.withLock { $0 += 1 } }
        // Siblings added beside the chain change none of its models' places.
        root.children[0].children.append(Panel("a2"))
        root.children.append(Panel("b"))
        #expect(fired.value == 0)
        // `a1` shared into `b`: `b` joins its ancestors.
        root.children[1].children = [a1]
        #expect(fired.value == 1)
        withObservationTracking {
            #expect(names(a1, .parent).sorted() == ["a", "b"])
        } onChange: { fired.withLock { $0 += 1 } }
        root.children[0].children.removeAll { $0.name == "a1" }
        #expect(fired.value == 2)
        #expect(names(a1, .parent) == ["b"])
    }

    @Test func anObservedAncestorsQueryRunsAgainWhenTheModelGainsAPlace() {
        let root = Panel("root", children: [Panel("A", children: [Panel("C")]), Panel("B")]).withAnchor()
        let b = root.children[1]
        let c = root.children[0].children[0]
        let fired = Locked(0)
        withObservationTracking {
            _ = c.node.mapHierarchy(for: .ancestors) { ($0 as? Panel)?.name }
        } onChange: { fired.withLock { $0 += 1 } }
        b.children = [c]                    // shared: B joins its ancestors
        #expect(c.node.mapHierarchy(for: .ancestors) { ($0 as? Panel)?.name }.sorted() == ["A", "B", "root"])
        #expect(fired.value == 1)
    }

    @Test func anObservedParentQueryRunsAgainWhenTheModelGainsOrLosesAPlace() {
        let root = Panel("root", children: [Panel("A", children: [Panel("C")]), Panel("B")]).withAnchor()
        let a = root.children[0]
        let b = root.children[1]
        let c = a.children[0]
        let log = Log()
        c.node.onChange(of: c.node.mapHierarchy(for: .parent) { ($0 as? Panel)?.name }) { _, new in
            log.add(new.sorted().joined(separator: ","))
        }
        b.detail = c                        // a second place
        a.children = []                     // the first one goes
        #expect(log.all == ["A,B", "B"])
        #expect(c.lifetime == .anchored)
    }

    @Test func isUniquelyReferencedIsObservedAsTheModelGainsAndLosesPlaces() {
        let root = Panel("root", children: [Panel("A", children: [Panel("C")]), Panel("B")]).withAnchor()
        let a = root.children[0]
        let b = root.children[1]
        let c = a.children[0]
        let log = Log()
        c.node.onChange(of: c.node.isUniquelyReferenced) { _, new in log.add("\(new)") }
        let fired = Locked(0)
        withObservationTracking {
            _ = c.node.isUniquelyReferenced
        } onChange: { fired.withLock { $0 += 1 } }
        let memoized = { c.node.memoize(for: "unique") { c.node.isUniquelyReferenced } }
        #expect(memoized())

        b.detail = c                        // a second place
        #expect(fired.value == 1)
        #expect(memoized() == false)
        a.children = []                     // the first one goes
        #expect(memoized())
        #expect(log.all == ["false", "true"])
    }

    @Test func anObservedDependenciesQueryRunsAgainWhenADependencyIsFirstUsed() {
        let user = SettingsUser().withAnchor()
        let fired = Locked(0)
        withObservationTracking {
            _ = user.node.mapHierarchy(for: .dependencies) { $0 as? Settings }
        } onChange: { fired.withLock { $0 += 1 } }
        user.readSettings()
        #expect(user.node.mapHierarchy(for: .dependencies) { $0 as? Settings }.count == 1)
        #expect(fired.value == 1)
        user.readSettings()     // not a first use: nothing new
        #expect(fired.value == 1)
    }

    @Test func anAncestorsQueryThroughASharedModelVisitsEachAncestorOnce() {
        let root = Panel("root", children: [Panel("a", children: [Panel("a1")])]).withAnchor()
        let a = root.children[0]
        root.detail = a
        #expect(names(a.children[0], [.self, .ancestors]) == ["a1", "a", "root"])
        #expect(names(a, .parent) == ["root"])
    }

    @Test func observeReRunsWithTheQuery() async {
        let root = Panel("root").withAnchor()
        let values = Collector(root.node.observe { root.node.mapHierarchy(for: .descendants) { ($0 as? Panel)?.name } })
        root.children.append(Panel("a"))
        root.children[0].detail = Panel("d")
        #expect(await values.waitForCount(3))
        #expect(values.elements == [[], ["a"], ["a", "d"]])
        values.cancel()
    }

    @Test func dependenciesAreTheModelsUsedAsDependencies() {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        #expect(root.node.mapHierarchy(for: .dependencies) { $0 as? Settings }.isEmpty)
        let settings = root.children[0].node[Settings.self]
        #expect(root.node.mapHierarchy(for: .dependencies) { $0 as? Settings }.isEmpty)
        let found = root.node.mapHierarchy(for: [.descendants, .dependencies]) { $0 as? Settings }
        #expect(found.map(\.id) == [settings.id])
    }

    @Test func theDependenciesRelationLeavesOutTheModelItselfWhenItsDependenciesUseIt() async {
        let root = Panel("root").withAnchor()
        let preferences = root.node[Preferences.self]
        let session = root.node[Session.self]
        func typeNames(_ relation: ModelRelation) -> [String] {
            preferences.node.mapHierarchy(for: relation) { "\(type(of: $0))" }
        }
        #expect(typeNames(.dependencies) == ["Session"])
        #expect(typeNames([.self, .dependencies]) == ["Preferences", "Session"])

        let toPreferences = Collector(preferences.node.event(ofType: String.self))
        let toSession = Collector(session.node.event(ofType: String.self))
        preferences.node.send("to dependencies", to: .dependencies)
        preferences.node.send("to self", to: .self)
        #expect(await toPreferences.waitForCount(1))
        #expect(await toSession.waitForCount(1))
        #expect(toPreferences.elements == ["to self"])
        #expect(toSession.elements == ["to dependencies"])
        toPreferences.cancel()
        toSession.cancel()
    }

    @Test func sendReachesDependencies() async {
        let root = Panel("root").withAnchor()
        let settings = root.node[Settings.self]
        let log = Log()
        settings.node.forEach(settings.node.event(ofType: String.self)) { log.add($0) }
        root.node.send("hello", to: .dependencies)
        root.node.send("self only", to: .self)
        #expect(await log.waitFor("hello"))
        #expect(log.all == ["hello"])
    }
}

extension ReportedIssueTests {
    @Suite struct HierarchyQueryMisuseTests {
    @Test func aQueryOnAnInitialModelIsEmpty() async {
        await IssueCapture.run(matching: "Panel.node.mapHierarchy") { capture in
            #expect(Panel("x").node.mapHierarchy(for: .self) { $0 }.isEmpty)
            #expect(capture.messages.count == 1)
        }
    }
}
}
