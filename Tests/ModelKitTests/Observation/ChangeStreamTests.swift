import ModelKit
import Testing

/// Not `Equatable`: every write is a change.
private struct Snapshot: Sendable {
    var number: Int
}

private struct StreamModel: Model {
    var node = ModelNode<Self>()
    let log: Log
    @Tracked var count = 0
    @Tracked var other = 0
    @Tracked var useOther = false
    @Tracked var snapshot = Snapshot(number: 0)
    @Tracked var children: [StreamModel] = []

    func onActivate() {
        node.onChange(of: \.count) { old, new in log.add("count \(old) → \(new)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("other", \.$other)
        r.track("useOther", \.$useOther)
        r.track("snapshot", \.$snapshot)
        r.track("children", \.$children)
    }
}

/// A model dependency that changes its own state when it activates (say, loading a stored setting).
private struct ThemeSetting: Model, DependencyKey {
    static var liveValue: ThemeSetting { ThemeSetting() }

    var node = ModelNode<Self>()
    @Tracked var theme = "light"

    func onActivate() {
        theme = "dark"
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("theme", \.$theme)
    }
}

@Suite struct ChangeStreamTests {
    private func anchored() -> (StreamModel, Log) {
        let log = Log()
        return (StreamModel(log: log).withAnchor(), log)
    }

    @Test func changeOfYieldsTheCurrentValueFirst() async {
        let (model, _) = anchored()
        model.count = 3
        var iterator = model.change(of: \.count).makeAsyncIterator()
        #expect(await iterator.next() == 3)
        model.count = 4
        #expect(await iterator.next() == 4)
    }

    @Test func changeOfWithoutInitialYieldsOnlyNewValues() async {
        let (model, _) = anchored()
        var iterator = model.change(of: \.count, initial: false).makeAsyncIterator()
        model.count = 1
        #expect(await iterator.next() == 1)
    }

    @Test func changeOfYieldsOnlyDistinctEquatableValues() async {
        let (model, _) = anchored()
        let values = Collector(model.change(of: \.count))
        model.count = 1
        model.count = 1
        model.other = 9
        model.count = 2
        #expect(await values.waitForCount(3))
        #expect(values.elements == [0, 1, 2])
        values.cancel()
    }

    @Test func changeOfNonEquatableYieldsEveryWrite() async {
        let (model, _) = anchored()
        let values = Collector(model.change(of: \.snapshot, initial: false))
        model.snapshot = Snapshot(number: 1)
        model.snapshot = Snapshot(number: 1)
        model.snapshot.number = 2
        #expect(await values.waitForCount(3))
        #expect(values.elements.map(\.number) == [1, 1, 2])
        values.cancel()
    }

    @Test func firstValueIsDeliveredBeforeValuesCommittedAfterIt() async {
        let (model, _) = anchored()
        // Reading the dependency anchors it; its onActivate writes before `observe` returns.
        let themes = Collector(model.node.observe { model.node[ThemeSetting.self].theme })
        #expect(await themes.waitForCount(2))
        #expect(themes.elements == ["light", "dark"])
        #expect(model.node[ThemeSetting.self].theme == "dark")
        themes.cancel()
    }

    @Test func streamListensFromCreation() async {
        let (model, _) = anchored()
        let stream = model.change(of: \.count, initial: false)
        model.count = 1
        model.count = 2
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
    }

    @Test func transactionDeliversOnceWithTheFinalValue() async {
        let (model, _) = anchored()
        let values = Collector(model.change(of: \.count, initial: false))
        model.node.transaction {
            model.count = 1
            model.count = 2
            model.count = 3
        }
        model.other = 1
        model.count = 4
        #expect(await values.waitForCount(2))
        #expect(values.elements == [3, 4])
        values.cancel()
    }

    @Test func nestedTransactionsNotifyOnceWhenTheOutermostEnds() async {
        let (model, log) = anchored()
        let values = Collector(model.change(of: \.count, initial: false))
        model.node.transaction {
            model.count = 1
            model.node.transaction { model.count = 2 }
            #expect(log.all.isEmpty)
            model.count = 3
        }
        #expect(await values.waitForCount(1))
        #expect(await log.waitFor("count 0 → 3"))
        model.count = 4
        #expect(await values.waitForCount(2))
        #expect(values.elements == [3, 4])
        #expect(log.all == ["count 0 → 3", "count 3 → 4"])
        values.cancel()
    }

    @Test func everyCommittedValueIsDeliveredInOrder() async {
        let (model, _) = anchored()
        let values = Collector(model.change(of: \.count, initial: false))
        for value in 1...2_000 { model.count = value }
        #expect(await values.waitForCount(2_000))
        #expect(values.elements == Array(1...2_000))
        values.cancel()
    }

    @Test func streamEndsWhenTheModelIsRemoved() async {
        let (model, log) = anchored()
        let child = StreamModel(log: log)
        model.children = [child]
        let values = Collector(child.change(of: \.count))
        #expect(await values.waitForCount(1))
        model.children = []
        #expect(await values.waitForFinish())
        #expect(values.elements == [0])
    }

    @Test func observeReEvaluatesWhenSomethingItReadChanges() async {
        let (model, _) = anchored()
        let values = Collector(model.node.observe { model.count + model.other })
        model.count = 1
        model.other = 10
        #expect(await values.waitForCount(3))
        #expect(values.elements == [0, 1, 11])
        values.cancel()
    }

    @Test func observeIgnoresPropertiesItDidNotRead() async {
        let (model, _) = anchored()
        let evaluations = AtomicCounter()
        let values = Collector(model.node.observe { () -> Snapshot in
            evaluations.increment()
            return Snapshot(number: model.count)
        })
        #expect(await values.waitForCount(1))
        model.other = 5
        model.snapshot = Snapshot(number: 3)
        model.count = 2
        #expect(await values.waitForCount(2))
        #expect(values.elements.map(\.number) == [0, 2])
        #expect(evaluations.value == 2)
        values.cancel()
    }

    @Test func observeFollowsWhatTheExpressionReadsLast() async {
        let (model, _) = anchored()
        let values = Collector(model.node.observe { model.useOther ? model.other : model.count })
        model.useOther = true
        model.count = 1
        model.other = 2
        #expect(await values.waitForCount(2))
        #expect(await eventually { values.elements.last == 2 })
        #expect(values.elements == [0, 2])
        values.cancel()
    }

    @Test func observeReadsAcrossModelsOfTheHierarchy() async {
        let (model, log) = anchored()
        model.children = [StreamModel(log: log), StreamModel(log: log)]
        let values = Collector(model.node.observe(initial: false) { model.children.map(\.count).reduce(0, +) })
        model.children[1].count = 5
        model.children.append(StreamModel(log: log))
        model.children[2].count = 1
        #expect(await values.waitForCount(2))
        #expect(values.elements == [5, 6])
        values.cancel()
    }

    @Test func changeOfAPathThroughAChildFollowsANewChild() async {
        let (model, log) = anchored()
        model.children = [StreamModel(log: log)]
        let values = Collector(model.change(of: \.children.first?.count))
        model.children.first?.count = 1
        model.children = [StreamModel(log: log)]
        model.children.first?.count = 5
        #expect(await values.waitForCount(4))
        #expect(values.elements == [0, 1, 0, 5])
        values.cancel()
    }

    @Test func onChangeRunsWithOldAndNewValuesInOrder() async {
        let (model, log) = anchored()
        model.count = 1
        model.count = 1
        model.count = 2
        #expect(await log.waitForCount(2))
        #expect(log.all == ["count 0 → 1", "count 1 → 2"])
    }

    @Test func onChangeStopsWhenCancelled() async {
        let (model, log) = anchored()
        let other = model.node.onChange(of: \.other) { old, new in log.add("other \(old) → \(new)") }
        model.other = 1
        #expect(await log.waitFor("other 0 → 1"))
        other.cancel()
        model.other = 2
        model.count = 1
        #expect(await log.waitFor("count 0 → 1"))
        #expect(!log.all.contains("other 1 → 2"))
    }

    @Test func streamsAreSafeFromConcurrentWriters() async {
        let (model, _) = anchored()
        let values = Collector(model.change(of: \.count, initial: false))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<250 { model.count += 1 } }
            }
        }
        #expect(await eventually { values.elements.last == 1_000 })
        #expect(values.elements == Array(1...1_000))
        values.cancel()
    }
}
