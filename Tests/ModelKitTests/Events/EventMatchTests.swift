import ModelKit
import Testing

private protocol Announcement: Sendable {
    var text: String { get }
}

private struct Notice: Announcement, Equatable {
    var text: String
    var padding = (1, 2, 3, 4)

    static func == (lhs: Notice, rhs: Notice) -> Bool { lhs.text == rhs.text }
}

private class Signal: @unchecked Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}

private final class LoudSignal: Signal, @unchecked Sendable {}

private struct Room: Model {
    var node = ModelNode<Self>()
    @Tracked var speaker = Speaker()

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("speaker", \.$speaker)
    }
}

private struct Speaker: Model {
    enum Event: Sendable, Equatable { case hello(String) }
    var node = ModelNode<Self>()

    func say<E: Sendable>(_ event: E) { node.send(event) }
    func hello(_ text: String) { node.send(.hello(text)) }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

/// A listener matches what was sent exactly as `as?` would, whether the event is exactly of the
/// listened type (taken out of its existential directly) or converts to it (a subclass, a protocol).
@Suite struct EventMatchTests {
    @Test func exactTypesAndConversionsMatchLikeACast() async {
        let room = Room().withAnchor()
        let notices = Collector(room.node.event(ofType: Notice.self))
        let announcements = Collector(room.node.event(ofType: (any Announcement).self))
        let signals = Collector(room.node.event(ofType: Signal.self))
        let numbers = Collector(room.node.event(ofType: Int.self))
        let optionals = Collector(room.node.event(ofType: Int?.self))
        let hellos = Collector(room.node.event(fromType: Speaker.self))
        let exactHello = Collector(room.node.event(of: Speaker.Event.hello("b")))

        room.speaker.say(Notice(text: "n1"))
        room.speaker.say(Signal("plain"))
        room.speaker.say(LoudSignal("loud"))
        room.speaker.say(7)
        room.speaker.say(Int?.some(8))
        room.speaker.hello("a")
        room.speaker.hello("b")
        room.speaker.say("a string nobody listens to")

        #expect(await notices.waitForCount(1))
        #expect(await announcements.waitForCount(1))
        #expect(await signals.waitForCount(2))
        #expect(await numbers.waitForCount(2))
        #expect(await optionals.waitForCount(2))
        #expect(await hellos.waitForCount(2))
        #expect(await exactHello.waitForCount(1))
        #expect(notices.elements == [Notice(text: "n1")])
        #expect(notices.elements.first.map { $0.padding == (1, 2, 3, 4) } == true)
        #expect(announcements.elements.map(\.text) == ["n1"])
        #expect(signals.elements.map(\.name) == ["plain", "loud"])
        // As with `as?`: an `Int?` holding a value matches `Int`, and an `Int` matches `Int?`.
        #expect(numbers.elements == [7, 8])
        #expect(optionals.elements == [7, 8])
        #expect(hellos.elements.map(\.event) == [.hello("a"), .hello("b")])
        #expect(exactHello.elements == [.hello("b")])
        for collector in [notices.cancel, announcements.cancel, signals.cancel, numbers.cancel,
                          optionals.cancel, hellos.cancel, exactHello.cancel] { collector() }
    }
}
