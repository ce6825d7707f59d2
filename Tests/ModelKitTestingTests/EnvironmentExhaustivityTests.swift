import ModelKit
import ModelKitTesting
import Testing

private struct AccentKey: ModelEnvironmentKey { static let defaultValue = "blue" }
private struct DirtyCountKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelEnvironmentValues {
    fileprivate var accent: String { get { self[AccentKey.self] } set { self[AccentKey.self] = newValue } }
}

extension ModelPreferenceValues {
    fileprivate var dirtyCount: Int { get { self[DirtyCountKey.self] } set { self[DirtyCountKey.self] = newValue } }
}

private struct Screen: Model {
    var node = ModelNode<Self>()
    @Tracked var rows: [Screen] = []

    var accent: String { node.environment.accent }
    var dirtyCount: Int { node.preference.dirtyCount }
    func paint(_ accent: String) { node.environment.accent = accent }
    func edit() { node.preference.dirtyCount = 1 }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$rows) }
}

/// The Tester's `.environment` and `.preferences` exhaustivity (API.md sections 10 and 13).
@Suite struct EnvironmentExhaustivityTests {
    @Test func anEnvironmentValueReadBelowIsAsserted() async {
        let (screen, tester) = Screen.with(rows: []).andTester()
        screen.rows = [Screen()]
        await tester.assert(screen.rows.count == 1)
        screen.paint("red")
        await tester.assert(screen.rows[0].accent == "red")
        await tester.finish()
    }

    @Test func anEnvironmentValueRemovedAboveIsAssertedByAReadBelow() async {
        let (screen, tester) = Screen.with(rows: [Screen.with(rows: [Screen()])]).andTester()
        screen.paint("red")
        screen.rows[0].paint("green")
        await tester.assert {
            screen.rows[0].rows[0].accent == "green"
            screen.accent == "red"
        }
        // Removed in the middle: the grandchild reads the root's value again.
        screen.rows[0].node.removeEnvironment(\.accent)
        await tester.assert(screen.rows[0].rows[0].accent == "red")
        // Removed at the root too: the default.
        screen.node.removeEnvironment(\.accent)
        await tester.assert(screen.rows[0].rows[0].accent == "blue")
        await tester.finish()
    }

    @Test func aReadOfAModelsOwnValueDoesNotAssertAChangeAboveIt() async {
        let (screen, tester) = Screen.with(rows: [Screen()]).andTester()
        screen.rows[0].paint("green")
        await tester.assert(screen.rows[0].accent == "green")
        screen.paint("red")
        await withKnownIssue {
            await tester.assert(screen.rows[0].accent == "green")
        } matching: { issue in
            "\(issue)".contains("Screen.environment.accent: \"blue\" → \"red\"")
        }
        await tester.finish()
    }

    @Test func aFoldReadAboveAssertsTheContributions() async {
        let (screen, tester) = Screen.with(rows: [Screen(), Screen()]).andTester()
        screen.rows[0].edit()
        screen.rows[1].edit()
        await tester.assert(screen.dirtyCount == 2)
        await tester.finish()
    }

    @Test func aFailedAssertionShowsTheEnvironmentValueItRead() async {
        let (screen, tester) = Screen.with(rows: [Screen()]).andTester(exhaustivity: .off)
        tester.timeout = .milliseconds(50)
        screen.paint("red")
        await withKnownIssue {
            await tester.assert(screen.rows[0].accent == "green")
        } matching: { issue in
            "\(issue)".contains("read: Screen.rows[0].environment.accent = \"red\"")
        }
        await tester.finish()
    }

    @Test func anUnassertedEnvironmentValueFails() async {
        let (screen, tester) = Screen().andTester()
        screen.paint("red")
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            "\(issue)".contains("""
            Environment changes were not asserted:

              Screen.environment.accent: "blue" → "red"

            To fix, either:
              • Assert the value, read on that model or a descendant, in a `tester.assert { … }` after the action that sets it.
              • Or stop requiring environment assertions: `tester.exhaustivity.remove(.environment)`.
            """)
        }
    }

    @Test func anUnassertedContributionFails() async {
        let (screen, tester) = Screen.with(rows: [Screen()]).andTester()
        screen.rows[0].edit()
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            "\(issue)".contains("Preference changes were not asserted:\n\n  Screen.rows[0].preference.dirtyCount: nil → 1\n")
        }
    }

    @Test func eachCategoryCanBeRelaxed() async {
        let (screen, tester) = Screen.with(rows: [Screen()]).andTester(exhaustivity: [.state, .events, .tasks, .probes])
        screen.paint("red")
        screen.rows[0].edit()
        await tester.finish()
    }

    @Test func fullIncludesEnvironmentAndPreferences() {
        #expect(Exhaustivity.full.contains([.environment, .preferences]))
    }
}

extension Screen {
    /// A screen with `rows`. (A factory rather than an `init` that assigns after `self.init()`: that
    /// initializer crashes Swift 6.3.1's optimizer in release builds, in CopyPropagation.)
    static func with(rows: [Screen]) -> Screen {
        let screen = Screen()
        screen.rows = rows
        return screen
    }
}
