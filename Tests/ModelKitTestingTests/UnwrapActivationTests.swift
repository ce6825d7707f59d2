import ModelKit
import ModelKitTesting
import Testing

/// A sheet that asks to be dismissed with its own event.
private struct DismissableSheet: Model {
    enum Event: Sendable, Equatable { case done }
    var node = ModelNode<Self>()

    func doneTapped() { node.send(.done) }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// Listens, from its `onActivate`, for its sheet's `.done`, after some work of its own (setting up
/// what it shows): a test that acts on it before its activation has run sends to no listener.
private struct SheetPresenter: Model {
    var node = ModelNode<Self>()
    @Tracked var sheet: DismissableSheet?

    func onActivate() {
        var checksum = 0
        for value in 0..<300_000 { checksum &+= value &* value }
        withExtendedLifetime(checksum) {}
        node.forEach(node.event(of: .done, fromType: DismissableSheet.self)) { _ in sheet = nil }
    }

    func present() { sheet = DismissableSheet() }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$sheet) }
}

/// Adds the presenter from one of its own tasks once the server answers.
private struct PresentingFlow: Model {
    var node = ModelNode<Self>()
    let answer: Release
    @Tracked var presenter: SheetPresenter?

    func onActivate() {
        node.task {
            await answer.wait()
            presenter = SheetPresenter()
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$presenter) }
}

/// `unwrap` returns a model that one of the hierarchy's tasks added only once that task's work has
/// run on: the model's `onActivate` has started the listening that the test then relies on.
@Suite struct UnwrapActivationTests {
    @Test func aModelAddedByATaskIsUnwrappedOnceItsActivationHasRun() async throws {
        for _ in 0..<10 {
            let answer = Release()
            let (flow, tester) = PresentingFlow(answer: answer).andTester(exhaustivity: .off)
            // The answer comes while the unwrap below waits for the presenter.
            Task.detached { answer.open() }
            let presenter = try await tester.unwrap(flow.presenter)
            presenter.present()
            let sheet = try await tester.unwrap(presenter.sheet)
            sheet.doneTapped()
            await tester.assert(presenter.sheet == nil)
            await tester.finish()
        }
    }
}
