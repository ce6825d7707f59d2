import ModelKit
import Observation
import Testing

/// Registered without names: each property is known by its declared name.
private struct ShortFormModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var title = ""
    @Tracked var child: CounterModel? = nil
    @Tracked var rows: [CounterModel] = []
    @Tracked var draft = ""
    @Tracked var scroll = 0.0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$count)
        r.track("title", \.$title)
        r.track(\.$child)
        r.track(\.$rows)
        r.track(\.$draft, options: .private)
        r.track("scroll", \.$scroll, options: [.private, .transient])
    }
}

/// Collects the change records of a hierarchy, as ModelKitTesting's Tester does.
private final class ChangeCollector: HierarchyHook {
    let records = Locked<[ChangeRecord]>([])

    func record(_ change: ChangeRecord) { records.withLock { $0.append(change) } }
    func didCommit() {}
}

/// Collects printed lines.
private final class Lines: Sendable {
    let lines = Locked<[String]>([])
    var all: [String] { lines.value }
    var print: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
}

@Suite struct ShortRegistrationTests {
    @Test func omittedNamesAreTheDeclaredNames() {
        let model = ShortFormModel().withAnchor()
        let lines = Lines()
        let printing = model._printChanges(to: lines.print)
        model.count = 1
        model.title = "t"
        model.child = CounterModel()
        model.child?.count = 2
        model.rows = [CounterModel()]
        model.rows[0].count = 3
        printing.cancel()
        #expect(lines.all.filter { !$0.contains("CounterModel(") } == [
            "ShortFormModel.count: 0 → 1",
            #"ShortFormModel.title: "" → "t""#,
            "ShortFormModel.child.count: 0 → 2",
            "ShortFormModel.rows[0].count: 0 → 3",
        ])
    }

    @Test func childSlotsRegisteredWithoutANameAnchorTheirModels() {
        let model = ShortFormModel().withAnchor()
        let child = CounterModel()
        let row = CounterModel()
        model.child = child
        model.rows = [row]
        #expect(child.lifetime == .anchored && row.lifetime == .anchored)
        model.rows = []
        #expect(row.lifetime == .destructed)
    }

    @Test func optionsAreKeptPerPropertyAndReachChangeRecords() throws {
        let collector = ChangeCollector()
        let model = ShortFormModel().withAnchor()
        try #require(model.hierarchy).addHook(collector)
        model.count = 1
        model.draft = "d"
        model.scroll = 2
        let records = collector.records.value
        #expect(records.map(\.property) == ["count", "draft", "scroll"])
        #expect(records.map(\.isPrivate) == [false, true, true])
        #expect(records.map(\.isTransient) == [false, false, true])
    }

    @Test func privatePropertiesAreStillPrintedAndObserved() async {
        let model = ShortFormModel().withAnchor()
        let lines = Lines()
        let printing = model._printChanges(to: lines.print)
        let changed = Locked(false)
        withObservationTracking {
            _ = model.draft
        } onChange: {
            changed.withLock { $0 = true }
        }
        model.draft = "x"
        printing.cancel()
        #expect(changed.value)
        #expect(lines.all == [#"ShortFormModel.draft: "" → "x""#])
    }
}

#if DEBUG
private struct InferredDoublingModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$count)
        r.track(\.$count)
    }
}

private struct InferredForgetfulModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var title = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$count)
    }
}

private struct MixedMisnamingModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var total = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$count)
        r.track("sum", \.$total)
    }
}

private struct Settings: Sendable {
    @Tracked var volume = 5
}

/// Registers a property that lives in a nested struct: its name cannot be found.
private struct NestedStorageModel: Model {
    var node = ModelNode<Self>()
    var settings = Settings()

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.settings.$volume)
    }
}

/// Two declared properties made to share one storage by the initializer.
private struct SharedStorageModel: Model {
    var node = ModelNode<Self>()
    @Tracked var first = 0
    @Tracked var second = 0

    init() {
        _second = _first
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$first)
    }
}

extension ReportedIssueTests {
    @Suite struct ShortRegistrationCheckTests {
        @Test func theShortFormPassesTheCheck() async {
            await IssueCapture.run(matching: "ShortFormModel") { capture in
                _ = ShortFormModel().withAnchor()
                #expect(capture.issues.isEmpty)
            }
        }

        @Test func aPropertyRegisteredTwiceWithoutANameIsReported() async {
            await IssueCapture.run(matching: "InferredDoublingModel") { capture in
                _ = InferredDoublingModel().withAnchor()
                #expect(capture.messages == [
                    """
                    InferredDoublingModel.register(_:) registers the property `count` twice.

                    To fix: Remove the second `r.track(…)` call for `count` from InferredDoublingModel.register(_:).
                    """,
                ])
            }
        }

        @Test func aForgottenPropertyIsReportedBesideTheShortForm() async {
            await IssueCapture.run(matching: "InferredForgetfulModel") { capture in
                _ = InferredForgetfulModel().withAnchor()
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix(
                    "InferredForgetfulModel declares `@Tracked var title` but InferredForgetfulModel.register(_:) does not register it"
                ) == true)
            }
        }

        @Test func aWrongNameIsStillReportedInTheLongForm() async {
            await IssueCapture.run(matching: "MixedMisnamingModel") { capture in
                _ = MixedMisnamingModel().withAnchor()
                #expect(capture.messages == [
                    """
                    MixedMisnamingModel.register(_:) registers the property `total` under the name "sum".

                    To fix: Write `r.track("total", \\.$total)` in MixedMisnamingModel.register(_:).
                    """,
                ])
            }
        }

        @Test func aNameThatCannotBeFoundIsReported() async {
            await IssueCapture.run(matching: "NestedStorageModel") { capture in
                let model = NestedStorageModel().withAnchor()
                #expect(capture.messages == [
                    """
                    NestedStorageModel.register(_:) registers a property without a name (track call #1), and its key \
                    path leads to no `@Tracked` property that NestedStorageModel declares; it is named "#1".

                    To fix, either:
                      • Register the `@Tracked` property itself: `r.track(\\.$name)`.
                      • Or pass the name: `r.track("name", keyPath)`.
                    """,
                ])
                // The property is still tracked, under its placeholder name.
                let lines = Lines()
                let printing = model._printChanges(to: lines.print)
                model.settings.volume = 6
                printing.cancel()
                #expect(lines.all == ["NestedStorageModel.#1: 5 → 6"])
            }
        }

        @Test func sharedStorageMakesTheNameAmbiguousAndIsReported() async {
            await IssueCapture.run(matching: "SharedStorageModel") { capture in
                _ = SharedStorageModel().withAnchor()
                #expect(capture.messages == [
                    """
                    SharedStorageModel.register(_:) registers a property without a name (track call #1) whose storage \
                    is shared by `first` and `second`; its name cannot be inferred.

                    To fix: Pass the name: `r.track("first", \\.$first)`, or give each property its own storage.
                    """,
                ])
            }
        }
    }
}
#endif
