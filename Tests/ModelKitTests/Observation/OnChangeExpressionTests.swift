import ModelKit
import Observation
import Testing

/// `onChange(of:)` over an expression, `initial:`, and `withUntrackedModelReads` (API.md section 9).
@Suite struct OnChangeExpressionTests {
    @Test func expressionHandlerRunsOnlyWhenTheDerivedValueChanges() {
        let model = CounterModel().withAnchor()
        let log = Log()
        model.node.onChange(of: model.title.isEmpty) { old, new in log.add("\(old) → \(new)") }
        model.title = "a"
        model.title = "ab"
        model.count = 3
        model.title = ""
        #expect(log.all == ["true → false", "false → true"])
    }

    @Test func expressionOverSeveralPropertiesFollowsEachOfThem() {
        let model = CounterModel().withAnchor()
        let log = Log()
        model.node.onChange(of: "\(model.title)#\(model.count)") { _, new in log.add(new) }
        model.count = 1
        model.title = "x"
        #expect(log.all == ["#1", "x#1"])
    }

    @Test func initialRunsOnceAtTheStartWithTheCurrentValue() {
        let model = CounterModel().withAnchor()
        model.count = 5
        let log = Log()
        model.node.onChange(of: model.count > 3, initial: true) { old, new in log.add("\(old) \(new)") }
        #expect(log.all == ["true true"], "ran before onChange returned")
        model.count = 1
        #expect(log.all == ["true true", "true false"])
    }

    @Test func keyPathFormTakesInitialToo() {
        let model = CounterModel().withAnchor()
        model.count = 2
        let log = Log()
        model.node.onChange(of: \.count, initial: true) { old, new in log.add("\(old) → \(new)") }
        model.count = 3
        #expect(log.all == ["2 → 2", "2 → 3"])
    }

    @Test func transactionNotifiesOnceWithTheFinalValue() {
        let model = CounterModel().withAnchor()
        let log = Log()
        model.node.onChange(of: model.count % 2 == 0) { old, new in log.add("\(old) → \(new)") }
        model.node.transaction {
            model.count = 1
            model.count = 2
            model.count = 3
        }
        #expect(log.all == ["true → false"])
    }

    @Test func anExpressionOverTwoPropertiesChangedInOneCommitIsEvaluatedOnce() {
        let model = CounterModel().withAnchor()
        let log = Log()
        let evaluations = Locked(0)
        model.node.onChange(of: { () -> String in
            evaluations.withLock { $0 += 1 }
            return "\(model.count) \(model.title)"
        }()) { _, new in log.add(new) }
        #expect(evaluations.value == 1)
        model.node.transaction {
            model.count = 1
            model.title = "a"
        }
        #expect(evaluations.value == 2, "one evaluation for the commit, not one per property")
        model.node.transaction {
            model.title = "b"
            model.count = 2
        }
        #expect(evaluations.value == 3, "and again for the next commit")
        #expect(log.all == ["1 a", "2 b"])
    }

    @Test func cancellingStopsTheHandler() {
        let model = CounterModel().withAnchor()
        let log = Log()
        let handler = model.node.onChange(of: model.count) { _, new in log.add("\(new)") }
        model.count = 1
        handler.cancel()
        model.count = 2
        #expect(log.all == ["1"])
    }

    @Test func nothingRunsAfterTheModelIsRemoved() {
        let root = TreeModel("root", log: Log()).withAnchor()
        let child = TreeModel("a", log: Log())
        root.child = child
        let log = Log()
        child.node.onChange(of: child.value * 10) { _, new in log.add("\(new)") }
        child.value = 1
        root.child = nil
        child.value = 2
        #expect(log.all == ["10"])
    }

    @Test func untrackedReadsRegisterNothingWithObservation() {
        let model = CounterModel().withAnchor()
        let fired = Locked(0)
        withObservationTracking {
            _ = withUntrackedModelReads { model.count }
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        model.count = 1
        #expect(fired.value == 0)
        withObservationTracking {
            _ = model.count
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        model.count = 2
        #expect(fired.value == 1, "a tracked read outside still registers")
    }

    @Test func untrackedReadsInsideAnExpressionAreNoDependency() {
        let model = CounterModel().withAnchor()
        let log = Log()
        model.node.onChange(of: "\(model.count) \(withUntrackedModelReads { model.title })") { _, new in
            log.add(new)
        }
        model.title = "ignored"
        model.count = 1
        #expect(log.all == ["1 ignored"])
    }

    @Test func writesInsideUntrackedReadsNotifyAsUsual() {
        let model = CounterModel().withAnchor()
        let log = Log()
        model.node.onChange(of: \.count) { _, new in log.add("\(new)") }
        withUntrackedModelReads { model.count += 1 }
        #expect(log.all == ["1"])
    }
}
