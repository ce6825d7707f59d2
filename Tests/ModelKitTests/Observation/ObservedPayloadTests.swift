import Foundation
import ModelKit
import Testing

/// A trivial value of exactly 16 bytes, the most a change carries inline.
private struct Span: Sendable, Equatable {
    var start: Int
    var end: Int
}

/// A trivial value one byte past the inline size: boxed.
private struct Triple: Sendable, Equatable {
    var a: Int
    var b: Int
    var c: UInt8
}

private enum Mode: Sendable, Equatable {
    case idle, running(Int), done
}

/// One property per kind of value an observer hands over: inline (trivial, at most 16 bytes) and boxed.
private struct Values: Model {
    var node = ModelNode<Self>()
    @Tracked var flag = false
    @Tracked var number = 0.0
    @Tracked var small: Int8 = 0
    @Tracked var maybe: Int? = nil
    @Tracked var span = Span(start: 0, end: 0)
    @Tracked var id = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Tracked var mode = Mode.idle
    @Tracked var triple = Triple(a: 0, b: 0, c: 0)
    @Tracked var text = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("flag", \.$flag)
        r.track("number", \.$number)
        r.track("small", \.$small)
        r.track("maybe", \.$maybe)
        r.track("span", \.$span)
        r.track("id", \.$id)
        r.track("mode", \.$mode)
        r.track("triple", \.$triple)
        r.track("text", \.$text)
    }
}

/// The change an observer evaluates travels to its delivery inline or boxed, by the value's type;
/// either way `onChange` and `change(of:)` see exactly the old and new values.
@Suite struct ObservedPayloadTests {
    /// Writes `first`, then `second`, and checks what `onChange(of: keyPath, initial: true)` saw.
    private func checkChanges<Value: Sendable & Equatable>(
        _ keyPath: KeyPath<Values, Value> & Sendable,
        _ first: Value, _ second: Value,
        write: (Values, Value) -> Void
    ) {
        let model = Values().withAnchor()
        let seen = Locked<[[Value]]>([])
        model.node.onChange(of: keyPath, initial: true) { old, new in seen.withLock { $0.append([old, new]) } }
        let initial = model[keyPath: keyPath]
        write(model, first)
        write(model, second)
        #expect(seen.value == [[initial, initial], [initial, first], [first, second]])
    }

    @Test func inlineValuesReachOnChangeIntact() {
        checkChanges(\.flag, true, false) { $0.flag = $1 }
        checkChanges(\.number, 1.5, -2.25) { $0.number = $1 }
        checkChanges(\.small, Int8.min, Int8.max) { $0.small = $1 }
        checkChanges(\.maybe, Int.max, nil) { $0.maybe = $1 }
        checkChanges(\.span, Span(start: .min, end: .max), Span(start: 7, end: -7)) { $0.span = $1 }
        checkChanges(\.id, UUID(), UUID()) { $0.id = $1 }
        checkChanges(\.mode, .running(42), .done) { $0.mode = $1 }
    }

    @Test func boxedValuesReachOnChangeIntact() {
        checkChanges(\.triple, Triple(a: 1, b: 2, c: 3), Triple(a: -1, b: .max, c: 255)) { $0.triple = $1 }
        checkChanges(\.text, String(repeating: "long text ", count: 8), "short") { $0.text = $1 }
    }

    @Test func changeOfDeliversInlineAndBoxedValuesInOrder() async {
        let model = Values().withAnchor()
        let spans = Collector(model.change(of: \.span, initial: false))
        let texts = Collector(model.change(of: \.text, initial: false))
        for i in 1...50 {
            model.span = Span(start: i, end: -i)
            model.text = "text \(i)"
        }
        #expect(await spans.waitForCount(50))
        #expect(await texts.waitForCount(50))
        #expect(spans.elements == (1...50).map { Span(start: $0, end: -$0) })
        #expect(texts.elements == (1...50).map { "text \($0)" })
        spans.cancel()
        texts.cancel()
    }
}
