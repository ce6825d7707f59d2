import ModelKit
import Observation
import Testing

private struct ProfileModel: Model {
    var node = ModelNode<Self>()
    @Tracked var name = ""
    @Tracked var age = 0
    @Tracked var friend: ProfileModel? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("name", \.$name)
        r.track("age", \.$age)
        r.track("friend", \.$friend)
    }
}

/// Installs an observation of what `apply` reads; returns a counter of `onChange` calls.
private func observe(_ apply: () -> Void) -> Locked<Int> {
    let fired = Locked(0)
    withObservationTracking(apply) { fired.withLock { $0 += 1 } }
    return fired
}

@Suite struct ObservationTests {
    @Test func writingAPropertyThatWasReadFiresTheHandler() {
        let model = ProfileModel().withAnchor()
        let fired = observe { _ = model.name }
        model.name = "Blob"
        #expect(fired.value == 1)
    }

    @Test func readsOfModelKitObserversDoNotRegisterInTheWritersTracking() {
        let model = ProfileModel().withAnchor()
        // Re-evaluated by every write of `name`; it reads `age`.
        model.node.onChange(of: \.name) { _, _ in }
        let stream = model.node.observe { "\(model.name) is \(model.age)" }
        let fired = observe { model.name = "Blob" }
        model.age = 3
        #expect(fired.value == 0)
        withExtendedLifetime(stream) {}
    }

    @Test func writingAnotherPropertyDoesNotFire() {
        let model = ProfileModel().withAnchor()
        let fired = observe { _ = model.name }
        model.age = 3
        #expect(fired.value == 0)
        model.name = "Blob"
        #expect(fired.value == 1)
    }

    @Test func writingTheSamePropertyOfAnotherModelDoesNotFire() {
        let first = ProfileModel().withAnchor()
        let second = ProfileModel().withAnchor()
        let fired = observe { _ = first.name }
        second.name = "other"
        #expect(fired.value == 0)
    }

    @Test func observationIsPerModelInstanceWithinOneHierarchy() {
        let root = ProfileModel().withAnchor()
        root.friend = ProfileModel()
        let fired = observe { _ = root.friend?.name }
        root.name = "root name"
        #expect(fired.value == 0)
        root.friend?.age = 4
        #expect(fired.value == 0)
        root.friend?.name = "friend name"
        #expect(fired.value == 1)
    }

    @Test func replacingAChildFiresObserversOfTheSlot() {
        let root = ProfileModel().withAnchor()
        root.friend = ProfileModel()
        let fired = observe { _ = root.friend }
        root.friend = ProfileModel()
        #expect(fired.value == 1)
    }

    @Test func transactionNotifiesOnceAfterItEnds() {
        let model = ProfileModel().withAnchor()
        let seen = Locked<[String]>([])
        withObservationTracking { _ = model.name } onChange: {
            seen.withLock { $0.append("\(model.name) \(model.age)") }
        }
        model.node.transaction {
            model.name = "a"
            model.age = 1
            model.name = "b"
            #expect(seen.value.isEmpty)
            model.age = 2
        }
        #expect(seen.value == ["b 2"])
    }

    @Test func handlerSeesTheCommittedValue() {
        let model = ProfileModel().withAnchor()
        let seen = Locked<[Int]>([])
        withObservationTracking { _ = model.age } onChange: { seen.withLock { $0.append(model.age) } }
        model.age += 5
        #expect(seen.value == [5])
    }

    @Test func throwingTransactionKeepsItsWritesAndUnlocks() {
        struct Abort: Error {}
        let model = ProfileModel().withAnchor()
        let fired = observe { _ = model.age }
        #expect(throws: Abort.self) {
            try model.node.transaction {
                model.age = 1
                throw Abort()
            }
        }
        #expect(fired.value == 1)
        model.age = 2
        #expect(model.age == 2)
    }
}
