import ModelKit

/// Stands in for a callback in a test and records its calls.
///
/// Pass `probe.call` where the model expects a closure of 0 to 6 arguments, then assert the calls.
/// Installed probes (``Tester/install(_:)``) are part of exhaustivity: every call must be asserted.
///
/// ```swift
/// @Test func factButtonCallsOnFact() async {
///     let onFact = TestProbe("onFact")
///     let (counter, tester) = CounterModel(count: 2, onFact: onFact.call).andTester {
///         $0.factClient.fetch = { "\($0) is a good number." }
///     }
///     tester.install(onFact)
///     counter.factButtonTapped()
///     await tester.assert(onFact.wasCalled(with: 2, "2 is a good number."))
/// }
/// ```
public final class TestProbe: Sendable {
    struct Call: Sendable {
        let sequence: UInt64
        let arguments: [any Sendable]
        var isAsserted = false
    }

    /// The name failure messages use.
    public let name: String
    let calls = Protected<[Call]>([])
    /// Wakes the assertions that consulted this probe when it is called.
    let activity = Activity()
    /// The tester the probe is installed in: its calls belong to that tester's exhaustivity alone.
    let installation = Protected<Installation>(Installation())

    struct Installation: Sendable {
        weak var tester: TesterState?
    }

    /// A probe named `name` in failure messages.
    public init(_ name: String = "probe") {
        self.name = name
    }

    // MARK: Calling

    private func record(_ arguments: [any Sendable]) {
        let sequence = Sequencer.next()
        // A call the end of its tester's test makes (an `onCancel` handler the end runs) is counted
        // but needs no assertion, as that end's changes and events: no assertion can follow it.
        let tester = installation.withLock { $0.tester }
        let isAsserted = tester?.isMadeByTheEnd ?? false
        calls.withLock { $0.append(Call(sequence: sequence, arguments: arguments, isAsserted: isAsserted)) }
        activity.signal()
    }

    /// Records a call without arguments.
    public func call() { record([]) }
    /// Records a call with one argument.
    public func call<A: Sendable>(_ a: A) { record([a]) }
    /// Records a call with two arguments.
    public func call<A: Sendable, B: Sendable>(_ a: A, _ b: B) { record([a, b]) }
    /// Records a call with three arguments.
    public func call<A: Sendable, B: Sendable, C: Sendable>(_ a: A, _ b: B, _ c: C) { record([a, b, c]) }
    /// Records a call with four arguments.
    public func call<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(_ a: A, _ b: B, _ c: C, _ d: D) {
        record([a, b, c, d])
    }
    /// Records a call with five arguments.
    public func call<A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) {
        record([a, b, c, d, e])
    }
    /// Records a call with six arguments.
    public func call<A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable, F: Sendable>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) {
        record([a, b, c, d, e, f])
    }

    // MARK: Checking

    /// Whether the probe was called (a call not yet asserted). Inside an assertion the call counts
    /// as asserted.
    public func wasCalled() -> Bool {
        match { _ in true }
    }

    /// Whether the probe was called with `a`.
    public func wasCalled<A: Equatable>(with a: A) -> Bool {
        match { $0.count == 1 && equal($0, [a]) }
    }

    /// Whether the probe was called with `a` and `b`.
    public func wasCalled<A: Equatable, B: Equatable>(with a: A, _ b: B) -> Bool {
        match { $0.count == 2 && equal($0, [a]) && equal($0, [b], from: 1) }
    }

    /// Whether the probe was called with `a`, `b` and `c`.
    public func wasCalled<A: Equatable, B: Equatable, C: Equatable>(with a: A, _ b: B, _ c: C) -> Bool {
        match { $0.count == 3 && equal($0, [a]) && equal($0, [b], from: 1) && equal($0, [c], from: 2) }
    }

    /// Whether the probe was called with `a`, `b`, `c` and `d`.
    public func wasCalled<A: Equatable, B: Equatable, C: Equatable, D: Equatable>(
        with a: A, _ b: B, _ c: C, _ d: D
    ) -> Bool {
        match {
            $0.count == 4 && equal($0, [a]) && equal($0, [b], from: 1) && equal($0, [c], from: 2)
                && equal($0, [d], from: 3)
        }
    }

    /// Whether the probe was called with `a`, `b`, `c`, `d` and `e`.
    public func wasCalled<A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable>(
        with a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) -> Bool {
        match {
            $0.count == 5 && equal($0, [a]) && equal($0, [b], from: 1) && equal($0, [c], from: 2)
                && equal($0, [d], from: 3) && equal($0, [e], from: 4)
        }
    }

    /// Whether the probe was called with `a`, `b`, `c`, `d`, `e` and `f`.
    public func wasCalled<A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable>(
        with a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> Bool {
        match {
            $0.count == 6 && equal($0, [a]) && equal($0, [b], from: 1) && equal($0, [c], from: 2)
                && equal($0, [d], from: 3) && equal($0, [e], from: 4) && equal($0, [f], from: 5)
        }
    }

    /// How many times the probe was called in all. Inside an assertion, reading it counts every call
    /// so far as asserted.
    public var callCount: Int {
        AssertScope.current.value?.watch(activity)
        let calls = calls.value
        if let scope = AssertScope.current.value {
            // Consulted: a failed assertion lists the probe's calls under the predicate.
            if !scope.consultedProbes.contains(where: { $0.predicate == scope.currentPredicate && $0.probe === self }) {
                scope.consultedProbes.append((scope.currentPredicate, self))
            }
            for call in calls { scope.matchedProbeCalls.insert(call.sequence) }
            if !scope.matchedProbes.contains(where: { $0 === self }) { scope.matchedProbes.append(self) }
        }
        return calls.count
    }

    /// The first unasserted call (not already matched in the current assertion) satisfying
    /// `predicate`; inside an assertion it is marked as matched.
    private func match(_ predicate: ([any Sendable]) -> Bool) -> Bool {
        let scope = AssertScope.current.value
        scope?.watch(activity)
        if let scope, !scope.consultedProbes.contains(where: { $0.predicate == scope.currentPredicate && $0.probe === self }) {
            scope.consultedProbes.append((scope.currentPredicate, self))
        }
        let calls = calls.value
        for call in calls where !call.isAsserted && !(scope?.matchedProbeCalls.contains(call.sequence) ?? false) {
            if predicate(call.arguments) {
                if let scope {
                    scope.matchedProbeCalls.insert(call.sequence)
                    if !scope.matchedProbes.contains(where: { $0 === self }) { scope.matchedProbes.append(self) }
                }
                return true
            }
        }
        return false
    }

    private func equal<A: Equatable>(_ arguments: [any Sendable], _ expected: [A], from index: Int = 0) -> Bool {
        guard arguments.indices.contains(index), let value = arguments[index] as? A else { return false }
        return value == expected[0]
    }

    // MARK: Tester support

    /// The calls not asserted yet.
    var unassertedCalls: [Call] {
        calls.value.filter { !$0.isAsserted }
    }

    /// Marks the given calls asserted.
    func markAsserted(_ sequences: Set<UInt64>) {
        calls.withLock { calls in
            for index in calls.indices where sequences.contains(calls[index].sequence) {
                calls[index].isAsserted = true
            }
        }
    }

    /// The unasserted calls after `start` up to `sequence`, marking them asserted (they are reported
    /// once).
    func takeUnasserted(after start: UInt64 = 0, upTo sequence: UInt64) -> [Call] {
        calls.withLock { calls in
            var taken: [Call] = []
            for index in calls.indices
            where !calls[index].isAsserted && calls[index].sequence > start && calls[index].sequence <= sequence {
                taken.append(calls[index])
                calls[index].isAsserted = true
            }
            return taken
        }
    }
}
