import Observation

/// What a view's body produced: the text it shows and the child views it contains, by key.
struct Rendered: Sendable, Equatable {
    var text: String
    var children: [ChildView] = []

    static func == (lhs: Rendered, rhs: Rendered) -> Bool {
        lhs.text == rhs.text && lhs.children.map(\.key) == rhs.children.map(\.key)
            && zip(lhs.children, rhs.children).allSatisfy { $0.hasInput($1) }
    }
}

/// A child view named by a key unique among its siblings (a row's id, as in `ForEach`): its input (the
/// view's stored properties, here the model it shows) and its body over that input.
///
/// A parent's render keeps a mounted child whose input is `==` to the new one without rendering it,
/// as SwiftUI does; a model's `==` is its identity, so a row refreshed with the same id keeps its view,
/// and a new model under the same key renders it again.
struct ChildView: Sendable {
    let key: String
    let body: @Sendable () -> Rendered
    let hasInput: @Sendable (ChildView) -> Bool
    private let input: any Sendable

    init<Input: Equatable & Sendable>(key: String, _ input: Input, _ body: @escaping @Sendable (Input) -> Rendered) {
        self.key = key
        self.input = input
        self.body = { body(input) }
        self.hasInput = { ($0.input as? Input) == input }
    }
}

/// A render loop shaped like SwiftUI's: each mounted view renders its body inside
/// `withObservationTracking`, whose `onChange` marks the view dirty; running the loop re-renders the
/// dirty views, parents before children, and each render registers again. A child is rendered when it
/// is first mounted and afterwards only when something it read changes (a `ForEach` row keeps its
/// view while its key stays); a child its parent no longer lists is unmounted, and a pending render of
/// it is dropped.
///
/// With `.queued` scheduling the loop renders only when a test (or a render thread) calls
/// ``runUntilIdle()``; with `.immediate` the `onChange` handler renders the view at once, on the
/// writing thread, as an observer that updates eagerly would.
final class RenderLoop: Sendable {
    enum Scheduling: Sendable { case queued, immediate }

    private struct MountedView {
        let id: Int
        let depth: Int
        let body: @Sendable () -> Rendered
        /// What its parent listed (nil for the root).
        let child: ChildView?
        var output: Rendered?
        var isDirty = false
    }

    private struct State {
        var views: [String: MountedView] = [:]
        var nextID = 0
        /// The keys rendered, in order, since the log was last taken.
        var log: [String] = []
        /// How many `onChange` handlers fired since the log was last taken.
        var invalidations = 0
        var isRendering = false
    }

    private let state = Locked(State())
    private let scheduling: Scheduling
    private let didRender: @Sendable (String, Rendered) -> Void

    /// - Parameter didRender: called after each render with the view's key and output, on the
    ///   rendering thread.
    init(scheduling: Scheduling = .queued, didRender: @escaping @Sendable (String, Rendered) -> Void = { _, _ in }) {
        self.scheduling = scheduling
        self.didRender = didRender
    }

    /// Mounts the root view under `key` and renders it (and the children it lists).
    func mount(_ key: String, _ body: @escaping @Sendable () -> Rendered) {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.views[key] = MountedView(id: state.nextID, depth: 0, body: body, child: nil)
            return state.nextID
        }
        render(key, id: id)
    }

    /// Unmounts the view under `key` and everything below it.
    func unmount(_ key: String) {
        state.withLock { state in Self.unmount(key, in: &state) }
    }

    /// Renders dirty views, shallowest first, until none is left.
    func runUntilIdle() {
        while true {
            let batch = state.withLock { state in Self.takeDirty(from: &state) }
            if batch.isEmpty { return }
            for (key, id) in batch { render(key, id: id) }
        }
    }

    /// Runs `writes`, then the loop until idle, and returns the keys rendered meanwhile, sorted.
    func rendersAfter(_ writes: () throws -> Void) rethrows -> [String] {
        _ = takeLog()
        try writes()
        runUntilIdle()
        return takeLog().renders.sorted()
    }

    /// The keys rendered and the `onChange` handlers fired since the last call.
    func takeLog() -> (renders: [String], invalidations: Int) {
        state.withLock { state in
            defer { (state.log, state.invalidations) = ([], 0) }
            return (state.log, state.invalidations)
        }
    }

    /// The keys of the mounted views.
    var mountedKeys: Set<String> { state.withLock { Set($0.views.keys) } }

    /// The keys of the views waiting to render.
    var dirtyKeys: Set<String> { state.withLock { Set($0.views.filter(\.value.isDirty).keys) } }

    /// What the view under `key` showed at its last render.
    func output(of key: String) -> String? { state.withLock { $0.views[key]?.output?.text } }

    /// The views whose last render differs from what their body renders now, each with both texts
    /// (empty when every view is up to date). Evaluating the bodies registers nothing.
    func staleViews() -> [String] {
        let views = state.withLock { $0.views }
        return views.keys.sorted().compactMap { key in
            guard let view = views[key], let shown = view.output else { return "\(key): never rendered" }
            let fresh = view.body()
            return fresh == shown ? nil : "\(key): shows \(shown.text) \(shown.children.map(\.key)), "
                + "now \(fresh.text) \(fresh.children.map(\.key))"
        }
    }

    private func render(_ key: String, id: Int) {
        guard let body = state.withLock({ $0.views[key].flatMap { $0.id == id ? $0.body : nil } }) else { return }
        let output = withObservationTracking(body, onChange: { [weak self] in
            self?.invalidate(key, id: id)
        })
        didRender(key, output)
        let mountedChildren: [(key: String, id: Int)] = state.withLock { state in
            guard var view = state.views[key], view.id == id else { return [] }
            state.log.append(key)
            let previous = Set(view.output?.children.map { "\(key)/\($0.key)" } ?? [])
            view.output = output
            state.views[key] = view
            var mounted: [(key: String, id: Int)] = []
            var listed: Set<String> = []
            for child in output.children {
                let childKey = "\(key)/\(child.key)"
                listed.insert(childKey)
                if let existing = state.views[childKey], existing.child.map(child.hasInput) == true { continue }
                Self.unmount(childKey, in: &state)
                state.nextID += 1
                state.views[childKey] = MountedView(id: state.nextID, depth: view.depth + 1, body: child.body, child: child)
                mounted.append((childKey, state.nextID))
            }
            for gone in previous.subtracting(listed) { Self.unmount(gone, in: &state) }
            return mounted
        }
        for child in mountedChildren { render(child.key, id: child.id) }
    }

    private func invalidate(_ key: String, id: Int) {
        let renderNow = state.withLock { state -> Bool in
            state.invalidations += 1
            guard var view = state.views[key], view.id == id, !view.isDirty else { return false }
            view.isDirty = true
            state.views[key] = view
            return scheduling == .immediate
        }
        if renderNow {
            state.withLock { state in
                if var view = state.views[key], view.id == id {
                    view.isDirty = false
                    state.views[key] = view
                }
            }
            render(key, id: id)
        }
    }

    /// The dirty views, shallowest first, marked clean: a parent renders before its children, and a
    /// child it unmounts meanwhile is skipped by ``render(_:id:)``.
    private static func takeDirty(from state: inout State) -> [(String, Int)] {
        let dirty = state.views.filter(\.value.isDirty).sorted { ($0.value.depth, $0.key) < ($1.value.depth, $1.key) }
        for (key, _) in dirty { state.views[key]?.isDirty = false }
        return dirty.map { ($0.key, $0.value.id) }
    }

    private static func unmount(_ key: String, in state: inout State) {
        guard let view = state.views.removeValue(forKey: key) else { return }
        for child in view.output?.children ?? [] { unmount("\(key)/\(child.key)", in: &state) }
    }
}
