import ModelKit
import Observation
import Testing

/// `node.environment`, `removeEnvironment` (API.md section 10).
@Suite struct EnvironmentTests {
    @Test func aModelMovedUnderAnotherValueNotifiesItsReaders() {
        let root = Panel("root", children: [Panel("a"), Panel("b")]).withAnchor()
        root.children[1].theme = "dark"
        let moving = Panel("moving", children: [Panel("inner")])
        root.children[0].children = [moving]
        let inner = moving.children[0]
        #expect(moving.theme == "light" && inner.theme == "light")
        let log = Log()
        moving.node.onChange(of: moving.theme) { old, new in log.add("moving \(old) → \(new)") }
        inner.node.onChange(of: inner.theme) { old, new in log.add("inner \(old) → \(new)") }
        let observed = Locked(0)
        withObservationTracking { _ = moving.theme } onChange: { observed.withLock { $0 += 1 } }
        root.node.transaction {
            root.children[0].children = []
            root.children[1].children = [moving]
        }
        #expect(moving.theme == "dark")
        #expect(log.all.sorted() == ["inner light → dark", "moving light → dark"])
        #expect(observed.value == 1)
        // Moved back the other way (added first, then removed): notified again.
        root.node.transaction {
            root.children[0].children = [moving]
            root.children[1].children = []
        }
        #expect(log.all.count == 4)
        #expect(moving.theme == "light")
    }

    @Test func aModelMovedUnderTheSameValueNotifiesNothing() {
        let root = Panel("root", children: [Panel("a"), Panel("b")]).withAnchor()
        let moving = Panel("moving")
        root.children[0].children = [moving]
        #expect(moving.theme == "light")
        let observed = Locked(0)
        withObservationTracking { _ = moving.theme } onChange: { observed.withLock { $0 += 1 } }
        root.node.transaction {
            root.children[0].children = []
            root.children[1].children = [moving]
        }
        #expect(observed.value == 0)
    }

    @Test func aSharedModelLosingItsFirstPlaceInheritsFromTheNextAndNotifies() {
        let shared = Panel("shared")
        let root = Panel("root", children: [Panel("a", children: [shared]), Panel("b", children: [shared])]).withAnchor()
        root.children[1].theme = "dark"
        #expect(shared.theme == "light")
        let log = Log()
        shared.node.onChange(of: shared.theme) { old, new in log.add("\(old) → \(new)") }
        root.children[0].children = []
        #expect(shared.theme == "dark")
        #expect(log.all == ["light → dark"])
    }

    @Test func aSharedModelWhoseFirstParentIsRemovedInheritsFromTheNextAndNotifies() {
        let shared = Panel("shared", children: [Panel("inner")])
        let root = Panel("root", children: [Panel("a", children: [shared]), Panel("b", children: [shared])]).withAnchor()
        root.children[0].theme = "blue"
        root.children[1].theme = "dark"
        let inner = shared.children[0]
        #expect(shared.theme == "blue" && inner.theme == "blue")
        let log = Log()
        shared.node.onChange(of: shared.theme) { old, new in log.add("shared \(old) → \(new)") }
        inner.node.onChange(of: inner.theme) { old, new in log.add("inner \(old) → \(new)") }
        let observed = Locked(0)
        withObservationTracking { _ = inner.theme } onChange: { observed.withLock { $0 += 1 } }
        // Its first parent goes with its own parent's slot: the place is lost in the teardown.
        root.children.removeFirst()
        #expect(shared.lifetime == .anchored)
        #expect(shared.theme == "dark" && inner.theme == "dark")
        #expect(log.all.sorted() == ["inner blue → dark", "shared blue → dark"])
        #expect(observed.value == 1)
    }

    @Test func aSharedModelPutBackInItsFirstPlaceInOneTransactionStillInheritsFromIt() {
        let shared = Panel("shared")
        let root = Panel("root", children: [Panel("a", children: [shared]), Panel("b", children: [shared])]).withAnchor()
        root.children[0].theme = "blue"
        root.children[1].theme = "dark"
        #expect(shared.theme == "blue")
        let log = Log()
        shared.node.onChange(of: shared.theme) { old, new in log.add("\(old) → \(new)") }
        // The tree is the same afterwards: so is the place it inherits from.
        root.node.transaction {
            root.children[0].children = []
            root.children[0].children = [shared]
        }
        #expect(shared.theme == "blue")
        #expect(shared.node.mapHierarchy(for: .parent) { ($0 as? Panel)?.name } == ["a", "b"])
        root.node.transaction {
            root.children[0].children.removeAll()
            root.children[1].children.removeAll()
            root.children[1].children.append(shared)
            root.children[0].children.append(shared)
        }
        #expect(shared.theme == "blue")
        #expect(log.all.isEmpty)
        // Put back in a later write, it is the next place that comes first.
        root.children[0].children = []
        root.children[0].children = [shared]
        #expect(shared.theme == "dark")
        #expect(log.all == ["blue → dark"])
    }

    @Test func aKeyNeverSetReadsItsDefault() {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        #expect(root.theme == "light")
        #expect(root.children[0].theme == "light")
        #expect(root.children[0].node.environment.fontSize == 12)
    }

    @Test func descendantsReadTheNearestValueSetAbove() {
        let root = Panel("root", children: [Panel("a", children: [Panel("b")])]).withAnchor()
        let a = root.children[0]
        let b = a.children[0]
        root.theme = "dark"
        #expect(root.theme == "dark")
        #expect(b.theme == "dark")
        a.theme = "blue"
        #expect(root.theme == "dark")
        #expect(a.theme == "blue")
        #expect(b.theme == "blue")
        a.node.removeEnvironment(\.theme)
        #expect(b.theme == "dark")
        root.node.removeEnvironment(\.theme)
        #expect(b.theme == "light")
    }

    @Test func newChildrenInheritTheValue() {
        let root = Panel("root").withAnchor()
        root.theme = "dark"
        root.children.append(Panel("a"))
        #expect(root.children[0].theme == "dark")
        root.detail = Panel("d", children: [Panel("e")])
        #expect(root.detail?.children[0].theme == "dark")
    }

    @Test func removingAValueNeverSetDoesNothing() {
        let root = Panel("root").withAnchor()
        let fired = Locked(0)
        withObservationTracking { _ = root.theme } onChange: { fired.withLock { $0 += 1 } }
        root.node.removeEnvironment(\.theme)
        root.node.removeEnvironment(\.fontSize)
        #expect(root.theme == "light")
        #expect(fired.value == 0)
    }

    @Test func observationTracksAnInheritedValue() {
        let root = Panel("root", children: [Panel("a", children: [Panel("b")])]).withAnchor()
        let b = root.children[0].children[0]
        let fired = Locked(0)
        withObservationTracking { _ = b.theme } onChange: { fired.withLock { $0 += 1 } }
        root.theme = "dark"
        #expect(fired.value == 1)
    }

    @Test func settingTheSameValueAgainIsNoChange() {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        root.theme = "dark"
        let fired = Locked(0)
        withObservationTracking { _ = root.children[0].theme } onChange: { fired.withLock { $0 += 1 } }
        root.theme = "dark"
        root.children[0].theme = "dark"   // its own value now, the same as inherited: no change
        #expect(fired.value == 0)
    }

    @Test func aValueSetBelowShieldsItsSubtree() {
        let root = Panel("root", children: [Panel("a", children: [Panel("b")])]).withAnchor()
        let b = root.children[0].children[0]
        root.children[0].theme = "blue"
        let fired = Locked(0)
        withObservationTracking { _ = b.theme } onChange: { fired.withLock { $0 += 1 } }
        root.theme = "dark"
        #expect(fired.value == 0)
        #expect(b.theme == "blue")
    }

    @Test func onChangeAndObserveSeeEnvironmentChanges() async {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        let a = root.children[0]
        let log = Log()
        a.node.onChange(of: a.theme) { old, new in log.add("\(old) → \(new)") }
        let values = Collector(a.node.observe { a.theme })
        root.theme = "dark"
        a.theme = "blue"
        #expect(await log.waitForCount(2))
        #expect(log.entries(withPrefix: "") == ["light → dark", "dark → blue"])
        #expect(await values.waitForCount(3))
        #expect(values.elements == ["light", "dark", "blue"])
        values.cancel()
    }

    @Test func changesArePrintedUnderTheKeysName() {
        let printed = Locked<[String]>([])
        let root = Panel("root", children: [Panel("a")])._withPrintChanges { line in printed.withLock { $0.append(line) } }
            .withAnchor()
        root.theme = "dark"
        root.children[0].node.environment.fontSize = 14
        root.node.removeEnvironment(\.theme)
        #expect(printed.value == [
            #"Panel.environment.theme: "light" → "dark""#,
            "Panel.children[0].environment.fontSize: 12 → 14",
            #"Panel.environment.theme: "dark" → "light""#,
        ])
    }

    @Test func modificationsNameWhereTheValueWasSet() async {
        let root = Panel("root", children: [Panel("a")]).withAnchor()
        _ = root.children[0].theme
        let modifications = Collector(root.node.modifications())
        root.theme = "dark"
        #expect(await modifications.waitForCount(1))
        #expect(modifications.elements.map(\.paths) == [["Panel.environment.theme"]])
        modifications.cancel()
    }

    @Test func aModelAddedElsewhereReadsItsNewPlacesValue() {
        let root = Panel("root", children: [Panel("a"), Panel("b")]).withAnchor()
        root.children[0].theme = "dark"
        let moving = Panel("m")
        root.children[1].children = [moving]
        #expect(moving.theme == "light")
        root.node.transaction {
            root.children[1].children = []
            root.children[0].children = [moving]
        }
        #expect(moving.theme == "dark")
    }

}

extension ReportedIssueTests {
    @Suite struct EnvironmentMisuseTests {
        @Test func settingOnAnInitialModelIsReported() async {
            await IssueCapture.run(matching: "EnvPanel") { capture in
                let panel = EnvPanel()
                panel.node.environment.theme = "dark"
                #expect(panel.node.environment.theme == "light")
                #expect(capture.messages == [
                    """
                    EnvPanel.node.environment.theme was set on a EnvPanel that is not anchored; the value was not set.

                    To fix, either:
                      • Anchor the root model first (`withAnchor()`, or `andTester()` in tests), and use the environment from the model's methods or `onActivate`.
                      • To configure a model before it is anchored, set the value in `withActivation { model in … }`.
                    """,
                    """
                    EnvPanel.node.environment.theme was read on a EnvPanel that is not anchored; the default value was returned.

                    To fix, either:
                      • Anchor the root model first (`withAnchor()`, or `andTester()` in tests), and use the environment from the model's methods or `onActivate`.
                      • To configure a model before it is anchored, set the value in `withActivation { model in … }`.
                    """,
                ])
            }
        }

        @Test func aRemovedModelAndAFrozenCopyReadTheDefaultsWithoutAReport() async {
            await IssueCapture.run(matching: "RemovedEnvPanel") { capture in
                let root = RemovedEnvPanel(children: [RemovedEnvPanel()]).withAnchor()
                root.node.environment.theme = "dark"
                let child = root.children[0]
                child.node.preference.unsavedCount = 2
                #expect(child.node.environment.theme == "dark")
                #expect(child.node.preference.unsavedCount == 2)
                let frozen = child.frozenCopy
                #expect(frozen.node.environment.theme == "light")
                #expect(frozen.node.preference.unsavedCount == 0)
                root.children = []
                #expect(child.lifetime == .destructed)
                #expect(child.node.environment.theme == "light")
                #expect(child.node.preference.unsavedCount == 0)
                #expect(capture.messages.isEmpty)
            }
        }
    }
}

private struct RemovedEnvPanel: Model {
    var node = ModelNode<Self>()
    @Tracked var children: [RemovedEnvPanel] = []
    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$children) }
}

private struct EnvPanel: Model {
    var node = ModelNode<Self>()
    static func register(_ r: inout ModelRegistrar<Self>) {}
}
