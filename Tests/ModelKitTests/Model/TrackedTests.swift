import Foundation
import ModelKit
import Observation
import Testing

/// A value that is not `Equatable`: every write of it counts as a change.
private struct Opaque: Sendable {
    var number: Int
}

private struct TrackedModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var names: [String] = []
    @Tracked var opaque = Opaque(number: 0)

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("names", \.$names)
        r.track("opaque", \.$opaque)
    }
}

@Suite struct TrackedTests {
    @Test func setterIsNonmutatingSoALetModelIsFullyUsable() {
        let model = TrackedModel().withAnchor()
        model.count = 3
        model.names.append("a")
        #expect(model.count == 3)
        #expect(model.names == ["a"])
    }

    @Test func allCopiesOfAModelShareOneState() {
        let model = TrackedModel().withAnchor()
        let copy = model
        copy.count = 7
        #expect(model.count == 7)
        #expect(copy.id == model.id)
    }

    @Test func initialModelReadsAndWritesItsOwnValues() {
        let model = TrackedModel()
        model.count = 2
        model.count += 1
        model.names.append("x")
        #expect(model.count == 3)
        #expect(model.names == ["x"])
        #expect(model.lifetime == .initial)
    }

    @Test func valuesWrittenBeforeAnchoringAreTheLiveValues() {
        let model = TrackedModel()
        model.count = 5
        let anchored = model.withAnchor()
        #expect(anchored.count == 5)
        anchored.count = 6
        #expect(model.count == 6)
    }

    @Test func writingAnEqualValueIsANoOp() async {
        let model = TrackedModel().withAnchor()
        model.count = 1
        let stream = Collector(model.change(of: \.count, initial: false))
        let printed = Locked<[String]>([])
        let printing = model._printChanges { line in printed.withLock { $0.append(line) } }
        let fired = Locked(false)
        withObservationTracking { _ = model.count } onChange: { fired.value = true }

        model.count = 1
        model.count += 0
        model.names = []

        #expect(!fired.value)
        #expect(printed.value.isEmpty)
        model.count = 2
        #expect(await stream.waitForCount(1))
        #expect(stream.elements == [2])
        #expect(fired.value)
        #expect(printed.value == ["TrackedModel.count: 1 → 2"])
        printing.cancel()
        stream.cancel()
    }

    @Test func writingANonEquatableValueAlwaysNotifies() {
        let model = TrackedModel().withAnchor()
        let fired = Locked(0)
        withObservationTracking { _ = model.opaque } onChange: { fired.withLock { $0 += 1 } }
        model.opaque = Opaque(number: 0)
        #expect(fired.value == 1)
    }

    @Test func compoundUpdatesAreAtomic() async {
        let model = TrackedModel().withAnchor()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for index in 0..<250 {
                        model.count += 1
                        model.names.append("\(task)-\(index)")
                    }
                }
            }
        }
        #expect(model.count == 1000)
        #expect(model.names.count == 1000)
        #expect(Set(model.names).count == 1000)
    }

    @Test func compoundUpdateOnAnInitialModelIsAtomic() async {
        let model = TrackedModel()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for index in 0..<250 {
                        model.count += 1
                        model.names.append("\(index)")
                    }
                }
            }
        }
        #expect(model.count == 1000)
        #expect(model.names.count == 1000)
    }

    @Test func plainWriteOfAnInitialModelWaitsForAnUpdateUnderWay() async {
        let model = TrackedModel()
        model.names = ["first"]
        let inside = Locked(false)
        let release = DispatchSemaphore(value: 0)
        let updated = Locked(false)
        let wrote = Locked(false)
        // Threads of their own: the update blocks its thread in the middle of its mutation.
        Thread {
            model.names.removeAll { _ in
                inside.value = true
                release.wait()
                return false
            }
            updated.value = true
        }.start()
        #expect(await eventually { inside.value })
        Thread {
            model.names = ["write"]
            wrote.value = true
        }.start()
        #expect(await eventually { model.$names.threadsWaitingForUnboundUpdate == 1 })
        #expect(!wrote.value)
        release.signal()

        #expect(await eventually { updated.value && wrote.value })
        // Had the write landed in the middle of the update, writing the update back would undo it.
        #expect(model.names == ["write"])
    }

    @Test func compoundUpdateOnAnInitialModelUpdatesACopyAndWritesItBack() {
        let model = TrackedModel()
        for _ in 0..<1000 { model.count += 1 }
        model.names.append("a")
        model.names[0] += "b"
        #expect(model.count == 1000)
        #expect(model.names == ["ab"])
        let anchored = model.withAnchor()
        anchored.count += 1
        #expect(model.count == 1001)
    }

    @Test func rightHandSideMayReadTheModelItWrites() {
        let model = TrackedModel().withAnchor()
        model.count = 2
        model.count = model.count * model.count + model.names.count
        model.names.append("\(model.count)")
        #expect(model.count == 4)
        #expect(model.names == ["4"])
    }

    @Test func projectedValueIsTheWrapperForRegistration() {
        let model = TrackedModel()
        let wrapper: Tracked<Int> = model.$count
        #expect(wrapper.wrappedValue == 0)
        let keyPath: WritableKeyPath<TrackedModel, Tracked<Int>> = \.$count
        #expect(model[keyPath: keyPath].wrappedValue == 0)
    }
}
