import Foundation
import ModelKit
import ModelKitTesting
import Testing

// API.md sections 7 and 13 (the Tester), and the Tester's part of sections 8–12, written as a user
// of that page writes them: only the public API, the names and signatures it gives.

struct ContractFacts: Sendable { var fetch: @Sendable (Int) async throws -> String }
extension ContractFacts: DependencyKey {
    static let liveValue = ContractFacts { n in "\(n) live" }
}
extension DependencyValues {
    var contractFacts: ContractFacts {
        get { self[ContractFacts.self] } set { self[ContractFacts.self] = newValue }
    }
}

struct ContractRow: Model {
    enum Event: Sendable, Equatable { case startMeeting }
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var fact: String?
    let onFact: @Sendable (Int, String) -> Void

    init(onFact: @escaping @Sendable (Int, String) -> Void = { _, _ in }) {
        self.onFact = onFact
    }

    func incrementTapped() {
        count += 1
        node.task {
            let fact = try await node.contractFacts.fetch(count)
            self.fact = fact
            onFact(count, fact)
        }
    }

    func startTapped() { node.send(.startMeeting) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("fact", \.$fact)
    }
}

struct ContractApp: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [ContractRow] = []
    @Tracked var secret = 0
    let onFact: @Sendable (Int, String) -> Void

    init(onFact: @escaping @Sendable (Int, String) -> Void = { _, _ in }) {
        self.onFact = onFact
    }

    func addButtonTapped() { rows.append(ContractRow(onFact: onFact)) }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("rows", \.$rows)
        r.track("secret", \.$secret, options: .private)
    }
}

struct ContractIDs: Model {
    var node = ModelNode<Self>()
    @Tracked var ids: [UUID] = []
    @Tracked var stamp = Date(timeIntervalSince1970: 0)

    func add() { ids.append(node.uuid()) }
    func stampNow() { stamp = node.date.now }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("ids", \.$ids)
        r.track("stamp", \.$stamp)
    }
}

struct ContractWorker: Model {
    var node = ModelNode<Self>()
    @Tracked var ticks = 0
    @Tracked var done = false

    func onActivate() {
        node.task {
            // Work of onActivate: cancelled at the end of the test, not reported.
            let (stream, _) = AsyncStream<Never>.makeStream()
            for await _ in stream {}
        }
    }

    static let napTaskLine = #line + 2
    func napTapped() {
        node.task {
            try await node.continuousClock.sleep(for: .seconds(5))
            ticks += 1
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("ticks", \.$ticks)
        r.track("done", \.$done)
    }
}

/// Not `Sendable`: predicates need not be.
final class ContractScratch {
    var value = 0
}

@Suite struct APIContractTesterTests {
    @Test func theSectionSevenExampleRuns() async throws {
        let probe = TestProbe()
        let (appModel, tester) = ContractApp(onFact: probe.call).andTester {
            $0.contractFacts.fetch = { "\($0) is a good number." }
        }
        tester.install(probe)
        appModel.addButtonTapped()
        await tester.assert(appModel.rows.count == 1)
        let row = try await tester.unwrap(appModel.rows.first)
        row.incrementTapped()
        row.startTapped()
        await tester.assert {
            row.count == 1
            row.fact == "1 is a good number."
            probe.wasCalled(with: 1, "1 is a good number.")
            row.didSend(.startMeeting)
        }
        await tester.finish()
    }

    @Test func predicatesNeedNotBeSendable() async {
        let (model, tester) = ContractApp().andTester()
        let scratch = ContractScratch()
        model.addButtonTapped()
        scratch.value = model.rows.count
        await tester.assert(scratch.value == 1 && model.rows.count == 1)
        await tester.finish()
    }

    @MainActor
    @Test func assertRunsOnTheCallersActor() async {
        let (model, tester) = ContractApp().andTester()
        model.addButtonTapped()
        await tester.assert {
            { MainActor.assertIsolated(); return model.rows.count == 1 }
        }
        await tester.finish()
    }

    @Test func anUnassertedChangeFailsWithADiff() async {
        let line = #line + 1
        let (model, tester) = ContractApp().andTester()
        model.addButtonTapped()
        await tester.assert(model.rows.count == 1)
        model.rows[0].count = 5
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue).contains("ContractApp.rows[0].count: 0 → 5") && issue.sourceLocation?.line == line
        }
    }

    @Test func aPrivatePropertyNeedsNoAssertion() async {
        let (model, tester) = ContractApp().andTester()
        model.secret = 3
        await tester.finish()
    }

    @Test func exhaustivityOffAndWithExhaustivity() async {
        let (model, tester) = ContractApp().andTester(exhaustivity: .off)
        model.addButtonTapped()
        await tester.finish()

        let (other, strict) = ContractApp().andTester()
        await strict.withExhaustivity(.off) {
            other.secret = 1
            other.addButtonTapped()
        }
        #expect(strict.exhaustivity == .full)
        await strict.finish()
    }

    @Test func eachTesterHasItsOwnUUIDsAndAFixedDate() async {
        let (a, testerA) = ContractIDs().andTester()
        let (b, testerB) = ContractIDs().andTester()
        a.add()
        a.add()
        b.add()
        a.stampNow()
        let first = a.stamp
        a.stampNow()
        await testerA.assert {
            a.ids == [UUID(0), UUID(1)]
            a.ids[0].uuidString == "00000000-0000-0000-0000-000000000000"
            a.ids[1].uuidString == "00000000-0000-0000-0000-000000000001"
            a.stamp == first
        }
        await testerB.assert(b.ids == [UUID(0)])
        await testerA.finish()
        await testerB.finish()
    }

    @Test func aMissingTestValueFailsNamingTheKey() async throws {
        let (model, tester) = ContractRow().andTester()
        await withKnownIssue {
            model.incrementTapped()
            await tester.assert(model.count == 1 && model.fact == "1 live")
        } matching: { issue in
            text(issue).contains("ContractFacts") && text(issue).contains("To fix")
        }
        await tester.finish()
    }

    @Test func theClockIsImmediateUnderATester() async {
        let (model, tester) = ContractWorker().andTester()
        model.napTapped()
        await tester.assert(model.ticks == 1)
        await tester.finish()
    }

    @Test func aTestClockWakesSleepersOnAdvance() async {
        let clock = TestClock()
        let (model, tester) = ContractWorker().andTester { $0.continuousClock = clock }
        model.napTapped()
        await clock.advance(by: .seconds(4))
        await tester.assert(model.ticks == 0)
        await clock.advance(by: .seconds(1))
        await tester.assert(model.ticks == 1)
        model.napTapped()
        await clock.run()
        await tester.assert(model.ticks == 2)
        await tester.finish()
    }

    @Test func aTaskStillRunningAtTheEndIsReportedWhereItStarted() async {
        let clock = TestClock()
        let (model, tester) = ContractWorker().andTester { $0.continuousClock = clock }
        model.napTapped()
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            text(issue).hasPrefix("A task of ContractWorker started here was still running")
                && issue.sourceLocation?.line == ContractWorker.napTaskLine
        }
    }

    @Test func probesWorkAsClosuresOfZeroToSixArguments() async {
        let probe = TestProbe()
        let zero: @Sendable () -> Void = probe.call
        let one: @Sendable (Int) -> Void = probe.call
        let six: @Sendable (Int, Int, Int, Int, Int, Int) -> Void = probe.call
        zero()
        one(1)
        six(1, 2, 3, 4, 5, 6)
        let (_, tester) = ContractApp().andTester()
        tester.install(probe)
        await tester.assert {
            probe.wasCalled()
            probe.wasCalled(with: 1)
            probe.wasCalled(with: 1, 2, 3, 4, 5, 6)
        }
        #expect(probe.callCount == 3)
        await tester.finish()
    }

    @Test func settleReturnsOnceTheModelIsQuiescent() async {
        let clock = TestClock()
        let (model, tester) = ContractWorker().andTester { $0.continuousClock = clock }
        model.napTapped()
        await tester.settle()
        await clock.advance(by: .seconds(5))
        #expect(model.ticks == 1)
        await tester.assert(model.ticks == 1)
        await tester.finish()
    }

    @Test func aFailedAssertNamesThePredicateByItsSource() async {
        let (model, tester) = ContractApp().andTester()
        model.addButtonTapped()
        await withKnownIssue {
            await tester.assert(model.rows.count == 2, timeout: .milliseconds(10))
        } matching: { issue in
            text(issue).contains("model.rows.count == 2") && text(issue).contains("read: ContractApp.rows")
        }
        // Already reported by the failed assert: not again at the end.
        await tester.finish()
    }

    @Test func aFailedUnwrapIsReportedOnce() async {
        let (model, tester) = ContractApp().andTester()
        let count = Locked(0)
        await withKnownIssue {
            do {
                _ = try await tester.unwrap(model.rows.first, timeout: .milliseconds(10))
                Issue.record("unwrap returned")
            } catch {}
        } matching: { _ in
            count.withLock { $0 += 1 }
            return true
        }
        #expect(count.value == 1)
        await tester.finish()
    }
}

extension APIContractTesterTests {
    // API.md section 2: "Writing to a frozen or destructed model, and calling `node` APIs on an
    // initial one, reports a runtime warning (standard error; a test failure only while a Tester
    // runs) and changes nothing."

    @Test func writingToAFrozenCopyUnderATesterIsATestFailure() async {
        let (model, tester) = ContractApp().andTester()
        let frozen = model.frozenCopy
        withKnownIssue {
            frozen.secret = 1
        } matching: { issue in
            text(issue).hasPrefix("Wrote to ContractApp.secret of a frozen copy of ContractApp")
        }
        #expect(frozen.secret == 0)
        await tester.finish()
    }

    @Test func writingToAFrozenCopyOfAnotherHierarchyWhileATesterRunsIsATestFailure() async {
        // No call site and no tested hierarchy: reported at the `andTester` call.
        let line = #line + 1
        let (_, tester) = ContractApp().andTester()
        let other = ContractRow().withAnchor()
        let frozen = other.frozenCopy
        withKnownIssue {
            frozen.count = 1
        } matching: { issue in
            text(issue).hasPrefix("Wrote to ContractRow.count of a frozen copy of ContractRow")
                && issue.sourceLocation?.line == line
        }
        await tester.finish()
    }

    @Test func aDependencyReadOnAnInitialModelWhileATesterRuns() async {
        let (_, tester) = ContractApp().andTester()
        let initial = ContractRow()
        withKnownIssue {
            _ = initial.node.contractFacts
        } matching: { issue in
            text(issue).contains("ContractRow")
        }
        await tester.finish()
    }

    @Test func writingToADestructedModelUnderATesterIsATestFailure() async {
        let (model, tester) = ContractApp().andTester()
        model.addButtonTapped()
        let row = model.rows[0]
        model.rows = []
        await tester.assert(model.rows.isEmpty)
        withKnownIssue {
            row.count = 1
        } matching: { issue in
            text(issue).hasPrefix("Wrote to ContractRow.count of a destructed ContractRow")
        }
        await tester.finish()
    }

    @Test func nodeAPIsOnAnInitialModelUnderATesterAreATestFailure() async {
        let (_, tester) = ContractApp().andTester()
        let initial = ContractRow()
        withKnownIssue {
            initial.startTapped()
        } matching: { issue in
            text(issue).hasPrefix("ContractRow.node.send was used on a ContractRow that is not anchored")
        }
        await tester.finish()
    }
}

/// A thread-safe box for one value (the test target has no Support copy of it).
final class Locked<Value: Sendable>: Sendable {
    private let storage: Protected<Value>

    init(_ value: Value) { storage = Protected(value) }

    var value: Value { storage.withLock { $0 } }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        storage.withLock { body(&$0) }
    }
}
