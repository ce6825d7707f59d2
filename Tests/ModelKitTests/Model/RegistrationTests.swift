import ModelKit
import Testing

#if DEBUG
// Each test uses its own model type: the check runs once per type.

private struct WellRegisteredModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var child: CounterModel? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("child", \.$child)
    }
}

private struct ForgetfulModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var title = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}

private struct DoublingModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("total", \.$count)
    }
}

private struct MisnamingModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("cnt", \.$count)
    }
}

private struct NameClashModel: Model {
    var node = ModelNode<Self>()
    @Tracked var first = 0
    @Tracked var second = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("first", \.$first)
        r.track("first", \.$second)
    }
}

private struct CheckedOnceModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// A leaf root (no child slots) with a registration mistake and an `onActivate`.
private struct ForgetfulActivatingModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    let onActivated: @Sendable () -> Void

    static func register(_ r: inout ModelRegistrar<Self>) {}

    func onActivate() {
        onActivated()
    }
}

private struct ForgetfulChild: Model {
    var node = ModelNode<Self>()
    @Tracked var flag = false

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

private struct ParentOfForgetful: Model {
    var node = ModelNode<Self>()
    @Tracked var kids: [ForgetfulChild] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("kids", \.$kids)
    }
}

/// Keeps a model in a plain stored property: it is never anchored.
private struct PlainlyHoldingModel: Model {
    var node = ModelNode<Self>()
    let child = CounterModel()

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// A struct of models that is not a `ModelContainer`, in a tracked property.
private struct UnvisitedPair: Sendable {
    var left: CounterModel
    var right: CounterModel
}

private struct HoldingAnUnvisitedPair: Model {
    var node = ModelNode<Self>()
    @Tracked var pair: UnvisitedPair? = UnvisitedPair(left: CounterModel(), right: CounterModel())

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("pair", \.$pair)
    }
}

/// A custom container whose `visit` forgets its right model.
private struct ForgottenPair: ModelContainer, Sendable {
    var left: CounterModel
    var right: CounterModel

    func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(left)
    }
}

private struct HoldingAForgetfulContainer: Model {
    var node = ModelNode<Self>()
    @Tracked var pairs: [ForgottenPair] = [ForgottenPair(left: CounterModel(), right: CounterModel())]

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$pairs)
    }
}

/// A destination whose `visit` forgets one case's model.
private enum ForgetfulDestination: ModelContainer, Sendable {
    case edit(CounterModel)
    case share(CounterModel)

    func visit(_ visitor: inout ContainerVisitor) {
        if case .edit(let model) = self { visitor.visit(model) }
    }
}

/// Presents nothing at first: the forgotten case only comes with a later write.
private struct PresentingAForgetfulDestination: Model {
    var node = ModelNode<Self>()
    @Tracked var destination: ForgetfulDestination?

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$destination)
    }
}

/// A model refused by its slot (a second instance with an id taken) was visited: not hidden.
private struct HoldingARefusedDuplicate: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [IdentifiedRow] = [IdentifiedRow(id: 1), IdentifiedRow(id: 1)]

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$rows)
    }
}

private struct IdentifiedRow: Model {
    var node = ModelNode<Self>()
    let id: Int

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// Refers to a live model placed elsewhere: not hidden.
private struct ReferringToALiveModel: Model {
    var node = ModelNode<Self>()
    let source: CounterModel
    @Tracked var kids: [CounterModel] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("kids", \.$kids)
    }
}

extension ReportedIssueTests {
    @Suite struct RegistrationTests {
        @Test func correctRegistrationReportsNothing() async {
            await IssueCapture.run(matching: "WellRegisteredModel") { capture in
                let model = WellRegisteredModel().withAnchor()
                model.child = CounterModel()
                #expect(capture.messages.isEmpty)
            }
        }

        @Test func forgottenPropertyIsReportedNamingTypeAndProperty() async {
            await IssueCapture.run(matching: "ForgetfulModel") { capture in
                _ = ForgetfulModel().withAnchor()
                #expect(capture.messages == [
                    """
                    ForgetfulModel declares `@Tracked var title` but ForgetfulModel.register(_:) does not register it; \
                    its changes are not tracked.

                    To fix: Add `r.track("title", \\.$title)` to ForgetfulModel.register(_:).
                    """,
                ])
            }
        }

        @Test func doubledRegistrationIsReported() async {
            await IssueCapture.run(matching: "DoublingModel") { capture in
                _ = DoublingModel().withAnchor()
                #expect(capture.messages == [
                    """
                    DoublingModel.register(_:) registers the property `count` twice (as "count" and "total").

                    To fix: Remove the second `r.track(…)` call for `count` from DoublingModel.register(_:).
                    """,
                ])
            }
        }

        @Test func misnamedRegistrationIsReported() async {
            await IssueCapture.run(matching: "MisnamingModel") { capture in
                _ = MisnamingModel().withAnchor()
                #expect(capture.messages == [
                    """
                    MisnamingModel.register(_:) registers the property `count` under the name "cnt".

                    To fix: Write `r.track("count", \\.$count)` in MisnamingModel.register(_:).
                    """,
                ])
            }
        }

        @Test func oneNameForTwoPropertiesIsReported() async {
            await IssueCapture.run(matching: "NameClashModel") { capture in
                _ = NameClashModel().withAnchor()
                #expect(capture.messages.contains("""
                    NameClashModel.register(_:) uses the name "first" for two properties.

                    To fix: Register each property under its own declared name.
                    """))
                #expect(capture.messages.contains { $0.contains("registers the property `second` under the name \"first\"") })
            }
        }

        @Test func registrationIsCheckedOncePerType() async {
            await IssueCapture.run(matching: "CheckedOnceModel") { capture in
                _ = CheckedOnceModel().withAnchor()
                _ = CheckedOnceModel().withAnchor()
                #expect(capture.issues.count == 1)
                #expect(capture.messages.first?.contains("`@Tracked var count`") == true)
            }
        }

        @Test func aLeafRootIsActivatedOnceAfterItsRegistrationIsReported() async {
            await IssueCapture.run(matching: "ForgetfulActivatingModel") { capture in
                let reportsSeenByActivations = Locked<[Int]>([])
                let model = ForgetfulActivatingModel(onActivated: {
                    reportsSeenByActivations.withLock { $0.append(capture.issues.count) }
                }).withAnchor()
                #expect(reportsSeenByActivations.value == [1])
                #expect(model.lifetime == .anchored)
            }
        }

        @Test func aModelInAPlainStoredPropertyIsReported() async {
            await IssueCapture.run(matching: "PlainlyHoldingModel") { capture in
                let model = PlainlyHoldingModel().withAnchor()
                #expect(model.child.lifetime == .initial)
                #expect(capture.messages == ["""
                    PlainlyHoldingModel.child holds a CounterModel model in a property that is not `@Tracked`; the model is never anchored (its onActivate, tasks and observation do not run).

                    To fix: Declare it `@Tracked var child` and register it: `r.track(\\.$child)`.
                    """])
            }
        }

        @Test func modelsInATrackedValueThatIsNotAChildSlotAreReported() async {
            await IssueCapture.run(matching: "HoldingAnUnvisitedPair") { capture in
                _ = HoldingAnUnvisitedPair().withAnchor()
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix(
                    "HoldingAnUnvisitedPair.pair holds a CounterModel model, but its value is not a child slot ModelKit can see into"
                ) == true)
            }
        }

        @Test func aModelItsCustomContainerDoesNotVisitIsReported() async {
            await IssueCapture.run(matching: "HoldingAForgetfulContainer") { capture in
                let model = HoldingAForgetfulContainer().withAnchor()
                #expect(model.pairs[0].left.lifetime == .anchored)
                #expect(model.pairs[0].right.lifetime == .initial)
                #expect(capture.messages == ["""
                    HoldingAForgetfulContainer.pairs holds a CounterModel model in ForgottenPair.right that ForgottenPair.visit(_:) does not visit; the model is never anchored (its onActivate, tasks and observation do not run).

                    To fix: Hand each model ForgottenPair holds to the visitor in its `visit(_:)`: `visitor.visit(right)`.
                    """])
            }
        }

        @Test func aModelItsCustomContainerDoesNotVisitIsReportedWhenALaterWriteSetsIt() async {
            await IssueCapture.run(matching: "PresentingAForgetfulDestination") { capture in
                let model = PresentingAForgetfulDestination().withAnchor()
                model.destination = .edit(CounterModel())
                #expect(capture.messages.isEmpty)
                model.destination = .share(CounterModel())
                model.destination = .share(CounterModel())
                #expect(capture.messages == ["""
                    PresentingAForgetfulDestination.destination holds a CounterModel model in ForgetfulDestination that ForgetfulDestination.visit(_:) does not visit; the model is never anchored (its onActivate, tasks and observation do not run).

                    To fix: Hand each model ForgetfulDestination holds to the visitor in its `visit(_:)`: `visitor.visit(model)`.
                    """])
            }
        }

        @Test func aModelRefusedByItsSlotIsNotReportedAsUnvisited() async {
            await IssueCapture.run(matching: "HoldingARefusedDuplicate") { capture in
                let model = HoldingARefusedDuplicate().withAnchor()
                #expect(model.rows[1].lifetime == .initial)
                #expect(capture.messages.count == 1)
                #expect(capture.messages.first?.hasPrefix("HoldingARefusedDuplicate.rows holds two different IdentifiedRow models") == true)
            }
        }

        @Test func aModelPlacedByTheSameWriteOrAnchoredElsewhereIsNotHidden() async {
            await IssueCapture.run(matching: "ReferringToALiveModel") { capture in
                let shared = CounterModel()
                let model = ReferringToALiveModel(source: shared, kids: [shared]).withAnchor()
                #expect(model.source.lifetime == .anchored)
                #expect(capture.messages.isEmpty)
            }
        }

        @Test func childRegistrationIsCheckedWhenTheChildIsAnchored() async {
            await IssueCapture.run(matching: "ForgetfulChild") { capture in
                let parent = ParentOfForgetful().withAnchor()
                #expect(capture.issues.isEmpty)
                parent.kids.append(ForgetfulChild())
                parent.kids.append(ForgetfulChild())
                #expect(capture.issues.count == 1)
                #expect(capture.messages.first?.hasPrefix("ForgetfulChild declares `@Tracked var flag`") == true)
            }
        }
    }
}
#endif
