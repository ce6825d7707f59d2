import Foundation
import ModelKit
import ModelKitTesting
import Testing

// The chat app of ChatModels.swift driven as its team's tests would drive it, under a
// full-exhaustivity Tester and a TestClock: every change, event and running task is asserted.

private let generalID = UUID(201), randomID = UUID(202), supportID = UUID(203)

/// The server side of one conversation: a stream the test feeds and a history of `count` messages.
private final class FakeServer: Sendable {
    let stream: AsyncStream<WireMessage>
    let continuation: AsyncStream<WireMessage>.Continuation
    let history: Int
    let clock: TestClock

    init(history: Int = 0, clock: TestClock) {
        (stream, continuation) = AsyncStream.makeStream(of: WireMessage.self)
        self.history = history
        self.clock = clock
    }

    /// Pages of history at once; a post takes the server a second and gets the id 1000.
    var client: ChatClient {
        let stream = stream, history = history, clock = clock
        return ChatClient(incoming: { stream }, page: { offset in
            (offset..<min(offset + 50, history)).map { WireMessage(id: $0, author: $0 % 2, text: "m\($0)", day: $0 / 40) }
        }, send: { _ in
            try await clock.sleep(for: .seconds(1))
            return 1000
        })
    }

    func deliver(_ id: Int, _ text: String, author: Int = 2, day: Int = 0) {
        continuation.yield(WireMessage(id: id, author: author, text: text, day: day))
    }
}

/// A plain sum, to show why the app merges its unread counts by id.
private struct SummedUnreadKey: ModelPreferenceKey {
    static let defaultValue = 0
    static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
}

extension ModelPreferenceValues {
    fileprivate var summedUnread: Int { get { self[SummedUnreadKey.self] } set { self[SummedUnreadKey.self] = newValue } }
}

private struct ChatHarness {
    let clock = TestClock()
    let general: FakeServer
    let random: FakeServer

    init() {
        general = FakeServer(history: 120, clock: clock)
        random = FakeServer(clock: clock)
    }

    func start() -> (ChatApp, Tester) {
        let app = ChatApp(conversations: [
            ChatConversation(id: generalID, title: "general").withDependencies { [general] in $0.chatClient = general.client },
            ChatConversation(id: randomID, title: "random").withDependencies { [random] in $0.chatClient = random.client },
        ])
        let clock = clock
        return app.andTester { $0.continuousClock = clock }
    }
}

@Suite struct ChatScenarioTests {
    @Test func incomingMessagesArriveOnTheirConversationsStreamAndFoldIntoTheAppsUnreadCount() async {
        let h = ChatHarness()
        let (app, tester) = h.start()
        let general = app.conversations[0], random = app.conversations[1]

        h.general.deliver(1, "hi")
        h.general.deliver(2, "anyone?")
        h.random.deliver(1, "cats")
        await tester.assert {
            general.messages.map(\.text) == ["hi", "anyone?"]
            random.messages.map(\.text) == ["cats"]
            general.unread == 2
            random.unread == 1
            app.unreadTotal == 3
        }

        app.select(generalID)
        await tester.assert {
            app.selected?.id == generalID
            general.unread == 0
            app.unreadTotal == 1
        }
        await tester.finish()
    }

    @Test func historyLoadsInPagesOfFiftyAndTheDayGroupingFollows() async throws {
        let h = ChatHarness()
        let (app, tester) = h.start()
        let general = app.conversations[0]

        await general.loadMoreTapped()
        await tester.assert {
            general.messages.count == 50
            !general.isLoading
            general.byDay == ["day 0: 40", "day 1: 10"]
            app.messageCount == 50
        }
        await general.loadMoreTapped()
        await general.loadMoreTapped()
        await general.loadMoreTapped()   // the history is exhausted: an empty page changes nothing
        await tester.assert {
            general.messages.map(\.id) == Array(0..<120)
            !general.isLoading
            general.byDay == ["day 0: 40", "day 1: 40", "day 2: 40"]
            app.allMessageIDs == Array(0..<120)
            app.messageCount == 120
        }
        await tester.finish()
    }

    @Test func aSelectedConversationIsOneModelVisitedOnceByHierarchyQueries() async {
        let h = ChatHarness()
        let (app, tester) = h.start()
        h.random.deliver(7, "x")
        await tester.assert {
            app.conversations[1].messages.map(\.id) == [7]
            app.conversations[1].unread == 1
            app.unreadTotal == 1
        }

        app.select(randomID)
        await tester.assert {
            app.selected?.id == randomID
            app.conversations[1].unread == 0
            app.unreadTotal == 0
        }
        // Held at two places, it is visited (and its messages counted) once.
        #expect(app.allMessageIDs == [7])
        #expect(app.messageCount == 1)
        #expect(app.node.mapHierarchy(for: .descendants) { ($0 as? ChatConversation)?.title } == ["general", "random"])
        #expect(!app.selected!.node.isUniquelyReferenced)
        await tester.finish()
    }

    @Test func aSelectedConversationContributesUnderEachOfItsPlaces() async {
        // Environment.md: "A shared model contributes once under each of its places." A summed
        // count counts the selected conversation twice; the app's count, merged by id, once.
        let h = ChatHarness()
        let (app, tester) = h.start()
        h.random.deliver(1, "x")
        await tester.assert {
            app.conversations[1].messages.count == 1
            app.conversations[1].unread == 1
            app.unreadTotal == 1
        }
        app.selected = app.conversations[1]
        app.conversations[1].node.preference.summedUnread = 1
        await tester.assert {
            app.selected?.id == randomID
            app.node.preference.summedUnread == 2
            app.unreadTotal == 1
        }
        await tester.finish()
    }

    @Test func reactionsReachTheConversationAndTheApp() async throws {
        let h = ChatHarness()
        let (app, tester) = h.start()
        h.general.deliver(1, "ship it")
        let message = try await tester.unwrap(app.conversations[0].messages.first)
        await tester.assert {
            app.conversations[0].unread == 1
            app.unreadTotal == 1
        }

        message.react("🚀")
        await tester.assert {
            message.reactions == ["🚀"]
            message.didSend(ChatMessage.Event.reacted("🚀"))
            app.conversations[0].lastReaction == "🚀"
            app.reactionLog == ["1 🚀"]
        }

        // Sent to its parent only, the app does not hear it.
        message.node.send(.reacted("👀"), to: .parent)
        await tester.assert {
            message.didSend(ChatMessage.Event.reacted("👀"))
            app.conversations[0].lastReaction == "👀"
        }
        #expect(app.reactionLog == ["1 🚀"])
        await tester.finish()
    }

    @Test func theSignedInUserIsSeenByEveryMessage() async throws {
        let h = ChatHarness()
        let (app, tester) = h.start()
        h.general.deliver(1, "mine", author: 5)
        h.general.deliver(2, "theirs", author: 6)
        await tester.assert {
            app.conversations[0].messages.count == 2
            app.conversations[0].unread == 2
            app.unreadTotal == 2
        }
        let messages = app.conversations[0].messages
        #expect(messages.map(\.isMine) == [false, false])

        app.signIn(ChatUser(id: 5, name: "Ada"))
        await tester.assert {
            app.user == ChatUser(id: 5, name: "Ada")
            messages.map(\.isMine) == [true, false]
        }
        await tester.finish()
    }

    @Test func typingShowsAnIndicatorUntilThreeQuietSecondsAndMarksTheDraftDirty() async {
        let h = ChatHarness()
        let (app, tester) = h.start()
        let composer = app.conversations[0].composer

        composer.text = "h"
        await h.clock.advance(by: .seconds(2))
        composer.text = "he"
        await h.clock.advance(by: .seconds(2))
        await tester.assert {
            composer.text == "he"
            composer.isTyping
            composer.typingPings == 2
            composer.isDirty
        }
        await h.clock.advance(by: .seconds(1))
        await tester.assert(!composer.isTyping)

        // Sent: the draft is cleared and clean again.
        composer.text = ""
        await tester.settle()
        composer.isDirty = false
        await tester.settle()
        await tester.assert {
            composer.text == ""
            !composer.isDirty
        }
        await tester.finish()
    }

    @Test func aSyncContinuesConversationsAndMessagesWhileTheSelectedOneIsBusy() async throws {
        let h = ChatHarness()
        let (app, tester) = h.start()
        h.general.deliver(1, "hi")
        await tester.assert {
            app.conversations[0].messages.count == 1
            app.conversations[0].unread == 1
            app.unreadTotal == 1
        }
        app.select(generalID)
        let selected = try await tester.unwrap(app.selected)
        let message = selected.messages[0]
        selected.composer.text = "typing…"
        await tester.assert {
            selected.unread == 0
            app.unreadTotal == 0
            selected.composer.text == "typing…"
            selected.composer.isTyping
            selected.composer.typingPings == 1
            selected.composer.isDirty
        }

        let random = app.conversations[1]
        let printed = Log()
        let printing = app._printChanges { printed.add($0) }
        app.sync([
            ServerConversation(id: generalID, title: "General", messages: [WireMessage(id: 1, author: 2, text: "hi (edited)", day: 0)], unread: 0),
            ServerConversation(id: supportID, title: "support", messages: [], unread: 0),
        ])
        printing.cancel()
        await tester.assert {
            app.conversations.map(\.title) == ["General", "support"]
            selected.title == "General"
            message.text == "hi (edited)"
        }
        // The list's diff shows the replaced conversation; the continued one's values are their own
        // lines, in the order they were applied (the list first, where the write came).
        let lines = printed.all
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("ChatApp.conversations:\n") == true)
        #expect(lines.first?.contains("-     title: \"random\",\n+     title: \"support\",") == true)
        #expect(lines.first?.contains("      title: \"General\",") == true)
        #expect(lines.dropFirst() == [
            "ChatApp.conversations[0].title: \"general\" → \"General\"",
            "ChatApp.conversations[0].messages[0].text: \"hi\" → \"hi (edited)\"",
        ])

        // Continued, not replaced: the same live models, the draft kept (the server sends none),
        // the typing indicator's task and the incoming stream still running.
        #expect(selected.lifetime == .anchored && message.lifetime == .anchored)
        #expect(random.lifetime == .destructed)
        #expect(app.selected?.id == generalID)
        h.general.deliver(2, "still here")
        await tester.assert {
            selected.messages.map(\.text) == ["hi (edited)", "still here"]
            selected.unread == 1
            app.unreadTotal == 1
        }
        await h.clock.advance(by: .seconds(3))
        await tester.assert(!selected.composer.isTyping)
        await tester.finish()
    }

    @Test func archivingTheSelectedConversationKeepsItOpenAndDeletingItEndsIt() async throws {
        let h = ChatHarness()
        let (app, tester) = h.start()
        app.select(randomID)
        let random = try await tester.unwrap(app.selected)

        app.archive(randomID)
        await tester.assert(app.conversations.map(\.id) == [generalID])
        #expect(random.lifetime == .anchored)
        h.random.deliver(1, "still open")
        await tester.assert {
            random.messages.map(\.text) == ["still open"]
            random.unread == 1
            app.unreadTotal == 1
        }

        // Deleting from a detached task: one commit, which ends it.
        await Task.detached { app.delete(randomID) }.value
        await tester.assert {
            app.selected == nil
            app.unreadTotal == 0
        }
        #expect(random.lifetime == .destructed)
        await tester.finish()
    }

    @Test func deletingTheSelectedConversationInATransactionEndsItOnce() async throws {
        let h = ChatHarness()
        let (app, tester) = h.start()
        app.select(generalID)
        let general = try await tester.unwrap(app.selected)
        general.composer.text = "unsent"
        await tester.assert {
            general.composer.text == "unsent"
            general.composer.isTyping
            general.composer.typingPings == 1
            general.composer.isDirty
        }

        app.delete(generalID)
        await tester.assert {
            app.conversations.map(\.id) == [randomID]
            app.selected == nil
        }
        #expect(general.lifetime == .destructed)
        #expect(general.composer.lifetime == .destructed)
        await tester.finish()
    }

    @Test func aPostedDraftBecomesAMessageAndDeletingTheConversationMidPostIsQuiet() async throws {
        let h = ChatHarness()
        let (app, tester) = h.start()
        app.signIn(ChatUser(id: 5, name: "Ada"))
        let general = app.conversations[0], random = app.conversations[1]
        general.composer.text = "hello"
        general.sendTapped()
        await h.clock.advance(by: .seconds(1))
        await tester.assert {
            app.user.id == 5
            general.messages.map(\.text) == ["hello"]
            general.messages[0].isMine
            general.composer.text == ""
            !general.composer.isSending
            general.composer.typingPings == 1
            !general.composer.isTyping
            general.composer.isDirty
        }

        // Deleted while posting: the post is cancelled, and its `defer` clearing the (removed)
        // composer's flag is ignored without a report, as a write to the conversation would be.
        random.composer.text = "bye"
        random.sendTapped()
        await tester.assert {
            random.composer.text == "bye"
            random.composer.isSending
            random.composer.isTyping
            random.composer.typingPings == 1
            random.composer.isDirty
        }
        app.delete(randomID)
        await tester.assert(app.conversations.map(\.id) == [generalID])
        await tester.settle()
        #expect(random.lifetime == .destructed && random.composer.lifetime == .destructed)
        #expect(random.messages.isEmpty)
        await tester.finish()
    }

    @Test func touchingMessagesWakesObserversWithoutAChangeAndSearchObservesNothing() async {
        let h = ChatHarness()
        let (app, tester) = h.start()
        h.general.deliver(1, "lunch?")
        h.general.deliver(2, "sure")
        await tester.assert {
            app.conversations[0].messages.count == 2
            app.conversations[0].unread == 2
            app.unreadTotal == 2
        }
        let general = app.conversations[0]
        let seen = TestProbe("seen")
        tester.install(seen)
        general.node.onChange(of: \.messages) { _, new in seen.call(new.count) }
        general.node.touch(\.messages)
        await tester.assert(seen.wasCalled(with: 2))

        // The search reads nothing an assertion or observer would record.
        #expect(app.search("lunch") == [1])
        await tester.finish()
    }

    @Test func tearingDownWhileStreamsAreOpenEndsEveryLoop() async {
        let h = ChatHarness()
        var (app, tester): (ChatApp?, Tester?) = h.start()
        app!.conversations[0].composer.text = "x"
        h.general.deliver(1, "a")
        await tester!.assert {
            app!.conversations[0].composer.text == "x"
            app!.conversations[0].composer.isTyping
            app!.conversations[0].composer.typingPings == 1
            app!.conversations[0].composer.isDirty
            app!.conversations[0].messages.count == 1
            app!.conversations[0].unread == 1
            app!.unreadTotal == 1
        }
        let general = app!.conversations[0]
        await tester!.finish()
        #expect(general.lifetime == .destructed)
        app = nil
        tester = nil
        // Streams still open on the server side: delivering into them reaches nothing.
        h.general.deliver(2, "late")
        h.random.deliver(1, "late")
    }

    @Test func releasingTheTesterWhileStreamsAreOpenEndsThemWithoutAReport() async {
        let h = ChatHarness()
        let ended = Log()
        h.general.continuation.onTermination = { _ in ended.add("general") }
        h.random.continuation.onTermination = { _ in ended.add("random") }
        do {
            let (app, tester) = h.start()
            app.conversations[0].composer.text = "x"
            h.general.deliver(1, "a")
            await tester.assert {
                app.conversations[0].composer.text == "x"
                app.conversations[0].composer.isTyping
                app.conversations[0].composer.typingPings == 1
                app.conversations[0].composer.isDirty
                app.conversations[0].messages.count == 1
                app.conversations[0].unread == 1
                app.unreadTotal == 1
            }
        }
        // The tester's release cancelled the `onActivate` loops (and the typing indicator's sleep):
        // both incoming streams were let go.
        #expect(await eventually { Set(ended.all) == ["general", "random"] })
    }
}
