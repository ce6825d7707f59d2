import Foundation
import ModelKit
import ModelKitTesting
import Testing

// The edges of the Tester's contract (API.md sections 7, 8–13): clocks, events, continuity,
// undo, environment, the end of a test (extending the suite of APIContractTests.swift).

struct ContractSleepers: Model {
    var node = ModelNode<Self>()
    @Tracked var log: [String] = []

    func nap(_ name: String, for duration: Duration) {
        node.task {
            try await node.continuousClock.sleep(for: duration)
            log.append("\(name) woke")
            await Task.yield()
            log.append("\(name) done")
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$log)
    }
}

extension APIContractTesterTests {
    @Test func advanceWakesSleepersInDeadlineOrderEachRunningUntilItSuspends() async {
        let clock = TestClock()
        let (model, tester) = ContractSleepers().andTester { $0.continuousClock = clock }
        model.nap("late", for: .seconds(3))
        model.nap("early", for: .seconds(1))
        model.nap("middle", for: .seconds(2))
        await clock.advance(by: .seconds(3))
        await tester.assert(model.log == [
            "early woke", "early done", "middle woke", "middle done", "late woke", "late done",
        ])
        await tester.finish()
    }

    @Test func aFailedDidSendListsTheEventsNotAsserted() async {
        let (model, tester) = ContractRow().andTester()
        model.startTapped()
        model.node.send(ContractEvent.other)
        await withKnownIssue {
            await tester.assert(model.didSend(ContractEvent.missing), timeout: .milliseconds(10))
        } matching: { issue in
            text(issue).contains("events sent and not asserted:") && text(issue).contains("startMeeting")
                && text(issue).contains("other")
        }
        // What the failure listed counts as reported: not again at the end.
        await tester.finish()
    }

    @Test func anUnassertedEventFailsAfterTheNextAssert() async {
        let (model, tester) = ContractApp().andTester()
        model.addButtonTapped()
        model.rows[0].startTapped()
        await withKnownIssue {
            await tester.assert(model.rows.count == 1)
        } matching: { issue in
            text(issue).contains("startMeeting")
        }
        await tester.finish()
    }

    @Test func theTesterCancelsOnActivateWorkAtTheEnd() async {
        let (model, tester) = ContractWorker().andTester()
        await tester.assert(model.ticks == 0)
        await tester.finish()
        #expect(model.lifetime == .destructed)
    }
}

extension APIContractTesterTests {
    @Test func aProbeWithOneAssertedCallSaysOneCallInAll() async {
        let probe = TestProbe("onSave")
        let (_, tester) = ContractApp().andTester()
        tester.install(probe)
        probe.call()
        await tester.assert(probe.wasCalled())
        await withKnownIssue {
            await tester.assert(probe.wasCalled(), timeout: .milliseconds(10))
        } matching: { issue in
            text(issue).contains("onSave has no unasserted calls (1 call in all)\n")
        }
        await tester.finish()
    }
}

struct ContractItem: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var title: String

    init(id: Int, title: String) {
        self.id = id
        _title = Tracked(wrappedValue: title)
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
    }
}

struct ContractShelf: Model {
    var node = ModelNode<Self>()
    @Tracked var items: [ContractItem] = []
    @Tracked var title = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$items)
        r.track(\.$title)
    }
}

struct ContractShelfThemeKey: ModelEnvironmentKey { static let defaultValue = "light" }
extension ModelEnvironmentValues {
    var contractShelfTheme: String {
        get { self[ContractShelfThemeKey.self] } set { self[ContractShelfThemeKey.self] = newValue }
    }
}

extension APIContractTesterTests {
    @Test func continuedHandlesWorkWithoutAReport() async {
        let (shelf, tester) = ContractShelf().andTester()
        let first = ContractItem(id: 1, title: "draft")
        shelf.items = [first]
        let again = ContractItem(id: 1, title: "final")
        shelf.items = [again]
        first.title = "x"
        await tester.assert {
            shelf.items.count == 1
            shelf.items[0].title == "x"
            again.title == "x"
        }
        await tester.finish()
    }

    @Test func twoInstancesWithOneIDInOneSlotAreReported() async {
        let (shelf, tester) = ContractShelf().andTester()
        let second = ContractItem(id: 1, title: "b")
        withKnownIssue {
            shelf.items = [ContractItem(id: 1, title: "a"), second]
        } matching: { issue in
            text(issue).contains("with the id 1") && text(issue).contains("ContractShelf.items")
        }
        #expect(second.lifetime == .initial)
        await tester.assert(shelf.items.count == 2)
        await tester.finish()
    }

    @Test func undoUnderATesterIsAStateChangeAndCanUndoIsPrivate() async {
        let (shelf, tester) = ContractShelf().withActivation { $0.node.trackUndo() }.andTester()
        shelf.title = "Groceries"
        await tester.assert(shelf.title == "Groceries")
        shelf.node.undoStack.undo()
        await tester.assert {
            shelf.title == ""
            shelf.node.undoStack.canRedo
        }
        await tester.finish()
    }

    @Test func anUnassertedEnvironmentValueFailsAtTheEnd() async {
        let (shelf, tester) = ContractShelf().andTester()
        shelf.node.environment.contractShelfTheme = "dark"
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue).contains("ContractShelf.environment.contractShelfTheme: \"light\" → \"dark\"")
        }
    }

    @Test func withPrintChangesPrintsTheHierarchyForItsLifetime() async {
        let lines = Locked<[String]>([])
        let (shelf, tester) = ContractShelf()
            ._withPrintChanges(to: { line in lines.withLock { $0.append(line) } })
            .andTester(exhaustivity: .off)
        shelf.items = [ContractItem(id: 1, title: "a")]
        shelf.items[0].title = "b"
        #expect(lines.value.contains("ContractShelf.items[0].title: \"a\" → \"b\""))
        await tester.finish()
    }

    @Test func finishWaitsForTasksToEnd() async {
        let (shelf, tester) = ContractShelf().andTester()
        tester.timeout = .seconds(20)   // a bound for a loaded machine: finish returns when the task ends
        shelf.node.task {
            for _ in 0..<50 { await Task.yield() }
            shelf.title = "late"
        }
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue).contains("ContractShelf.title: \"\" → \"late\"")
        }
    }
}

extension APIContractTesterTests {
    @Test func theDefaultsAreOneSecondAndFull() async {
        let (_, tester) = ContractApp().andTester()
        #expect(tester.timeout == .seconds(1))
        #expect(tester.exhaustivity == .full)
        #expect(Exhaustivity.full.contains([.state, .events, .tasks, .probes, .environment, .preferences]))
        #expect(tester.showSkippedAssertions == false)
        await tester.finish()
    }

    @Test func aForEachBodyErrorWithoutCatchFailsTheTestAndTheLoopGoesOn() async {
        let (model, tester) = ContractShelf().andTester()
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        // Started inside `withKnownIssue`, so that the loop's task is in its scope.
        await withKnownIssue {
            model.node.forEach(stream) { n in
                if n == 1 { throw ContractFailure() }
                model.title = "\(n)"
            }
            continuation.yield(1)
            await tester.settle()
        } matching: { issue in
            text(issue).hasPrefix("A task of ContractShelf threw an error that nothing handled: ContractFailure")
        }
        continuation.yield(2)
        await tester.assert(model.title == "2")
        continuation.finish()
        await tester.finish()
    }
}

extension APIContractTesterTests {
    @Test func aPlainWithAnchorUsesLiveValuesWhileATesterRuns() async throws {
        let (_, tester) = ContractApp().andTester()
        let plain = ContractRow().withAnchor()
        #expect(try await plain.node.contractFacts.fetch(3) == "3 live")
        await tester.finish()
    }

    @Test func aTouchIsNoStateChangeForATester() async {
        let (shelf, tester) = ContractShelf().andTester()
        let values = Locked<[String]>([])
        shelf.node.onChange(of: \.title) { _, new in values.withLock { $0.append(new) } }
        shelf.node.touch(\.title)
        await tester.settle()
        #expect(values.value == [""])
        await tester.finish()
    }

    @Test func withUntrackedModelReadsAssertNothing() async {
        let (shelf, tester) = ContractShelf().andTester()
        shelf.title = "x"
        await withKnownIssue {
            await tester.assert(withUntrackedModelReads { shelf.title } == "x")
        } matching: { issue in
            text(issue).contains("ContractShelf.title: \"\" → \"x\"")
        }
        await tester.finish()
    }
}

/// A model whose `onActivate` work, when the tester cancels it at the end, lets another task of the
/// hierarchy write, and holds the test's task until it has.
struct ContractEndRace: Model {
    var node = ModelNode<Self>()
    @Tracked var title = ""
    let written = Locked(false)
    let go = AsyncStream<Void>.makeStream()

    func onActivate() {
        node.onCancel {
            go.continuation.yield()
            // A bounded wait for the other task's write (on the tester executor's own thread).
            let deadline = ContinuousClock.now + .seconds(20)
            while !written.value && ContinuousClock.now < deadline {}
        }
    }

    func startLateWrite() {
        node.task {
            for await _ in go.stream { break }
            title = "late"
            written.withLock { $0 = true }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
    }
}

extension APIContractTesterTests {
    // API.md section 7: "at the end of the test ... every change ... not yet asserted is a failure".
    // A task's write that lands while the tester cancels the `onActivate` work is the test's doing,
    // not the end's: it was dropped, so the end reported nothing.
    @Test func aWriteOfAnotherTaskWhileTheEndCancelsActivationWorkIsStillRecorded() async {
        let (model, tester) = ContractEndRace().andTester()
        model.startLateWrite()
        await tester.settle()
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue).contains("ContractEndRace.title: \"\" → \"late\"")
        }
        #expect(model.written.value)
    }
}

struct ContractFailure: Error {}

enum ContractEvent: Sendable, Equatable {
    case other
    case missing
}

/// A generic model: its `@Tracked var value: Value` does not know `Value` is `Equatable`.
struct ContractGenericBox<Value: Sendable>: Model {
    var node = ModelNode<Self>()
    @Tracked var value: Value

    init(_ value: Value) { _value = Tracked(wrappedValue: value) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$value)
    }
}

@Suite struct ContractGenericModelTests {
    /// Section 1: an equal write is a no-op for an `Equatable` value, in a generic model too. It
    /// was recorded (`ContractGenericBox<Int>.value: 1 → 1`), a failure at the end of the test.
    @Test func aGenericModelsEqualWriteIsNoChangeForTheTester() async {
        let (box, tester) = ContractGenericBox(1).andTester()
        box.value = 1
        let (text, textTester) = ContractGenericBox("a").andTester()
        text.value = "a"
        await tester.finish()
        await textTester.finish()
    }
}
