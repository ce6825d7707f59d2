import Foundation
import ModelKit
import Observation
import Testing

/// Runs a closure when it is freed (a replaced or removed tracked value with a `deinit`).
private final class DeinitProbe: Sendable {
    let onDeinit: @Sendable () -> Void

    init(_ onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

/// A value whose `==` reads a model: user code that runs while the hierarchy is locked.
private struct ModelReadingValue: Sendable, Equatable {
    var number: Int
    let reader: @Sendable () -> Int

    static func == (lhs: Self, rhs: Self) -> Bool {
        _ = lhs.reader()
        return lhs.number == rhs.number
    }
}

private struct ReentrantModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var doubled = 0
    @Tracked var probe: DeinitProbe? = nil
    @Tracked var reading: ModelReadingValue? = nil
    @Tracked var child: ReentrantModel? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("doubled", \.$doubled)
        r.track("probe", \.$probe)
        r.track("reading", \.$reading)
        r.track("child", \.$child)
    }
}

/// A model holding a value with a `deinit` from its creation. `probe` comes before `node`, so that
/// releasing the anchored copy lets go of the storage before the anchor: the copy the context held
/// is then the last one.
private struct ProbeHolder: Model {
    @Tracked var probe: DeinitProbe
    var node = ModelNode<Self>()

    init(probe: DeinitProbe) {
        self.probe = probe
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("probe", \.$probe)
    }
}

/// How a write is observed: each takes a different write path.
private enum Watching: CaseIterable {
    case nothing
    case stream
    case printer
}

@Suite struct ReentrancyTests {
    /// Anchors a model watched as `watching`; returns it and what keeps the watch alive.
    private func anchored(_ watching: Watching) -> (ReentrantModel, [any Sendable]) {
        let model = ReentrantModel().withAnchor()
        switch watching {
        case .nothing:
            return (model, [])
        case .stream:
            return (model, [Collector(model.change(of: \.probe, initial: false).map { _ in 0 })])
        case .printer:
            return (model, [model._printChanges { _ in }])
        }
    }

    @Test(arguments: Watching.allCases)
    private func rightHandSideMayReadTheModel(_ watching: Watching) async {
        let (model, keep) = anchored(watching)
        model.child = ReentrantModel()
        let finished = await finishesWithoutDeadlock {
            model.child?.count = (model.child?.count ?? 0) + model.count + 1
            model.count = model.child!.count * 2
            model.child?.doubled += model.count
        }
        #expect(finished)
        #expect(model.count == 2)
        #expect(model.child?.doubled == 2)
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Watching.allCases)
    private func replacedValueWhoseDeinitReadsTheModel(_ watching: Watching) async {
        let (model, keep) = anchored(watching)
        let read = Locked<Int?>(nil)
        model.count = 7
        model.probe = DeinitProbe { read.value = model.count }
        let finished = await finishesWithoutDeadlock { model.probe = nil }
        #expect(finished)
        // A change stream may still hold the value it delivered; it is freed once consumed.
        #expect(await eventually { read.value == 7 })
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Watching.allCases)
    private func replacedValueWhoseDeinitWritesTheModel(_ watching: Watching) async {
        let (model, keep) = anchored(watching)
        model.probe = DeinitProbe { model.count += 1 }
        let finished = await finishesWithoutDeadlock { model.probe = nil }
        #expect(finished)
        #expect(await eventually { model.count == 1 })
        withExtendedLifetime(keep) {}
    }

    @Test func valueWhoseDeinitReadsTheModelIsFreedWhenItsModelIsRemoved() async {
        let root = ReentrantModel().withAnchor()
        let child = ReentrantModel()
        root.child = child
        let read = Locked<Int?>(nil)
        child.probe = DeinitProbe { read.value = root.count }
        root.count = 3
        let finished = await finishesWithoutDeadlock { root.child = nil }
        #expect(finished)
        #expect(read.value == 3)
    }

    @Test func valueWhoseDeinitReadsTheModelIsFreedWithItsHierarchy() async {
        let read = Locked<Int?>(nil)
        let finished = await finishesWithoutDeadlock {
            let original = ReentrantModel()
            var root: ReentrantModel? = original.withAnchor()
            root?.count = 4
            root?.probe = DeinitProbe { read.value = original.count }
            root = nil
        }
        #expect(finished)
        #expect(read.value == 4)
    }

    @Test func onChangeCallbackMayWriteBack() async {
        let model = ReentrantModel().withAnchor()
        model.node.onChange(of: \.count) { _, new in model.doubled = new * 2 }
        let finished = await finishesWithoutDeadlock {
            for value in 1...5 { model.count = value }
        }
        #expect(finished)
        #expect(await eventually { model.doubled == 10 })
    }

    @Test func observationCallbackMayWriteBack() async {
        let model = ReentrantModel().withAnchor()
        withObservationTracking { _ = model.count } onChange: { model.doubled = 99 }
        let finished = await finishesWithoutDeadlock { model.count = 1 }
        #expect(finished)
        #expect(model.doubled == 99)
    }

    @Test func printerMayWriteBack() async {
        let model = ReentrantModel().withAnchor()
        let printing = model._printChanges { line in
            if line.contains(".count:") { model.doubled = model.count * 2 }
        }
        let finished = await finishesWithoutDeadlock { model.count = 21 }
        #expect(finished)
        #expect(model.doubled == 42)
        printing.cancel()
    }

    @Test func equatableImplementationMayReadTheModel() async {
        let model = ReentrantModel().withAnchor()
        let finished = await finishesWithoutDeadlock {
            model.reading = ModelReadingValue(number: 1) { model.count }
            model.reading = ModelReadingValue(number: 1) { model.count }
            model.reading = ModelReadingValue(number: 2) { model.doubled }
        }
        #expect(finished)
        #expect(model.reading?.number == 2)
    }

    @Test func transactionBodyMayReadWriteAndSnapshot() async {
        let model = ReentrantModel().withAnchor()
        let finished = await finishesWithoutDeadlock {
            let frozen = model.node.transaction {
                model.count += 1
                model.child = ReentrantModel()
                model.child?.count = model.count
                return model.frozenCopy
            }
            model.doubled = frozen.child?.count ?? -1
        }
        #expect(finished)
        #expect(model.doubled == 1)
        #expect(model.child?.lifetime == .anchored)
    }

    @Test func aTornDownRootsModelValueIsReleasedWithoutItsLock() {
        // The probe is the property's initial value, which its storage keeps until the last copy
        // of the model (the one its context held) is released.
        let hierarchy = Locked<Hierarchy?>(nil)
        let heldAtRelease = Locked<Bool?>(nil)
        var root: ProbeHolder? = ProbeHolder(probe: DeinitProbe {
            heldAtRelease.value = hierarchy.value?.isHeldByCurrentThread
        }).withAnchor()
        hierarchy.value = root?.hierarchy
        root = nil
        #expect(heldAtRelease.value == false)
    }

    @Test func aRemovedChildsTrackedValuesAreReleasedWithoutTheLock() {
        let root = ReentrantModel().withAnchor()
        let hierarchy = root.hierarchy
        root.child = ReentrantModel()
        let heldAtRelease = Locked<Bool?>(nil)
        // Set after the child was created: destructing the child puts its initial value back and
        // gives this one up.
        root.child?.probe = DeinitProbe { heldAtRelease.value = hierarchy?.isHeldByCurrentThread }
        root.child = nil
        #expect(heldAtRelease.value == false)
    }

    @Test func aTornDownHierarchysTrackedValuesAreReleasedWithoutItsLock() {
        let heldAtRelease = Locked<Bool?>(nil)
        var root: ReentrantModel? = ReentrantModel().withAnchor()
        let hierarchy = root?.hierarchy
        root?.child = ReentrantModel()
        root?.child?.probe = DeinitProbe { heldAtRelease.value = hierarchy?.isHeldByCurrentThread }
        root = nil
        #expect(heldAtRelease.value == false)
    }

    @Test func releasingTheAnchorInsideATransactionTearsDownAfterIt() async {
        let original = ReentrantModel()
        let finished = await finishesWithoutDeadlock {
            var root: ReentrantModel? = original.withAnchor()
            root?.child = ReentrantModel()
            original.node.transaction {
                root = nil
                original.count = 1
            }
        }
        #expect(finished)
        #expect(original.lifetime == .destructed)
    }
}
