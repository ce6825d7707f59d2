import Foundation
import ModelKit

// A chat app, written as an app team writes it against API.md: conversations with UUID ids, one of
// them selected (the same live model, held in two places), messages loaded in pages, a draft
// composer with a typing indicator, an unread count folded at the app, a signed-in user in the
// environment, a per-conversation client, incoming messages on a stream, and a server sync.

struct ChatUser: Sendable, Equatable {
    var id: Int
    var name: String
}

struct ChatCurrentUserKey: ModelEnvironmentKey { static let defaultValue = ChatUser(id: 0, name: "guest") }
/// Unread counts by conversation: a selected conversation is held at two places and contributes
/// under each (Environment.md), so the counts are merged by id rather than summed.
struct ChatUnreadKey: ModelPreferenceKey {
    static let defaultValue: [UUID: Int] = [:]
    static func reduce(value: inout [UUID: Int], nextValue: [UUID: Int]) {
        value.merge(nextValue) { _, next in next }
    }
}

extension ModelEnvironmentValues {
    var chatUser: ChatUser { get { self[ChatCurrentUserKey.self] } set { self[ChatCurrentUserKey.self] = newValue } }
}

extension ModelPreferenceValues {
    var chatUnread: [UUID: Int] { get { self[ChatUnreadKey.self] } set { self[ChatUnreadKey.self] = newValue } }
}

/// A message as the wire carries it.
struct WireMessage: Sendable, Equatable {
    var id: Int
    var author: Int
    var text: String
    var day: Int
}

/// The server side of one conversation.
struct ChatClient: Sendable {
    /// Messages arriving while the conversation is open.
    var incoming: @Sendable () -> AsyncStream<WireMessage>
    /// One page of history, starting at `offset`.
    var page: @Sendable (_ offset: Int) async -> [WireMessage]
    /// Posts a message; returns its id.
    var send: @Sendable (_ text: String) async throws -> Int = { _ in 0 }
}

extension ChatClient: DependencyKey {
    static let liveValue = ChatClient(incoming: { AsyncStream { $0.finish() } }, page: { _ in [] })
    static let testValue = ChatClient(incoming: { AsyncStream { $0.finish() } }, page: { _ in [] })
}

extension DependencyValues {
    var chatClient: ChatClient { get { self[ChatClient.self] } set { self[ChatClient.self] = newValue } }
}

struct ChatMessage: Model {
    enum Event: Sendable, Equatable { case reacted(String) }

    let id: Int
    var node = ModelNode<Self>()
    @Tracked var author: Int
    @Tracked var text: String
    @Tracked var day: Int
    @Tracked var reactions: [String] = []

    init(_ wire: WireMessage) {
        id = wire.id
        author = wire.author
        text = wire.text
        day = wire.day
    }

    /// Whether the signed-in user wrote it (an environment value set at the app).
    var isMine: Bool { author == node.environment.chatUser.id }

    func react(_ emoji: String) {
        reactions.append(emoji)
        node.send(.reacted(emoji))
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$author)
        r.track(\.$text)
        r.track(\.$day)
        r.track(\.$reactions)
    }
}

/// The draft of one conversation; it shares its conversation's id so a sync continues it.
struct ChatComposer: Model {
    let id: UUID
    var node = ModelNode<Self>()
    @Tracked var text = ""
    /// Set by the first edit since the draft was last sent or saved (UI state: not itself a modification).
    @Tracked var isDirty = false
    @Tracked var isTyping = false
    @Tracked var typingPings = 0
    @Tracked var isSending = false

    init(id: UUID) { self.id = id }

    func onActivate() {
        node.forEach(node.modifications(of: .self)) { _ in isDirty = true }
        node.task(id: text) { text in
            guard !text.isEmpty else {
                isTyping = false
                return
            }
            isTyping = true
            typingPings += 1
            try await node.continuousClock.sleep(for: .seconds(3))
            isTyping = false
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
        r.track(\.$isDirty, options: .transient)
        r.track(\.$isTyping, options: .transient)
        r.track(\.$typingPings, options: .transient)
        r.track(\.$isSending, options: .transient)
    }
}

struct ChatConversation: Model {
    let id: UUID
    var node = ModelNode<Self>()
    @Tracked var title: String
    @Tracked var messages: [ChatMessage]
    @Tracked var composer: ChatComposer
    @Tracked var unread: Int
    @Tracked var lastReaction: String?
    @Tracked var isLoading = false

    init(id: UUID, title: String, messages: [WireMessage] = [], unread: Int = 0, composer: ChatComposer? = nil) {
        self.id = id
        self.title = title
        self.messages = messages.map(ChatMessage.init)
        self.composer = composer ?? ChatComposer(id: id)
        self.unread = unread
    }

    /// Messages per day, in day order: `"day 1: 2"`.
    var byDay: [String] {
        node.memoize {
            let days = Dictionary(grouping: messages, by: \.day)
            return days.keys.sorted().map { "day \($0): \(days[$0]!.count)" }
        }
    }

    func onActivate() {
        node.onChange(of: unread, initial: true) { _, unread in
            if unread > 0 {
                node.preference.chatUnread = [id: unread]
            } else {
                node.removePreference(\.chatUnread)
            }
        }
        node.forEach(node.chatClient.incoming()) { wire in
            messages.append(ChatMessage(wire))
            unread += 1
        }
        node.forEach(node.event(fromType: ChatMessage.self)) { event, _ in
            if case .reacted(let emoji) = event { lastReaction = emoji }
        }
    }

    /// Loads the next page of 50 and appends it.
    func loadMoreTapped() async {
        isLoading = true
        let page = await node.chatClient.page(messages.count)
        node.transaction {
            messages.append(contentsOf: page.map(ChatMessage.init))
            isLoading = false
        }
    }

    func markRead() { unread = 0 }

    /// Posts the draft; the composer shows it is sending until the server answers (or the
    /// conversation is deleted meanwhile, which cancels the post).
    func sendTapped() {
        let text = composer.text
        composer.isSending = true
        node.task {
            defer { composer.isSending = false }
            let id = try await node.chatClient.send(text)
            node.transaction {
                messages.append(ChatMessage(WireMessage(id: id, author: node.environment.chatUser.id, text: text, day: 0)))
                composer.text = ""
            }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$messages)
        r.track(\.$composer)
        r.track(\.$unread)
        r.track(\.$lastReaction, options: .transient)
        r.track(\.$isLoading, options: .transient)
    }
}

/// A conversation as the server's sync sends it.
struct ServerConversation: Sendable {
    var id: UUID
    var title: String
    var messages: [WireMessage]
    var unread: Int
}

struct ChatApp: Model {
    var node = ModelNode<Self>()
    @Tracked var conversations: [ChatConversation]
    @Tracked var selected: ChatConversation?
    @Tracked var reactionLog: [String] = []

    init(conversations: [ChatConversation] = []) {
        self.conversations = conversations
    }

    var unreadTotal: Int { node.preference.chatUnread.values.reduce(0, +) }
    var user: ChatUser { node.environment.chatUser }

    func onActivate() {
        node.forEach(node.event(fromType: ChatMessage.self)) { event, message in
            if case .reacted(let emoji) = event { reactionLog.append("\(message.id) \(emoji)") }
        }
    }

    func signIn(_ user: ChatUser) { node.environment.chatUser = user }

    func open(_ conversation: ChatConversation) {
        if !conversations.contains(where: { $0.id == conversation.id }) {
            conversations.append(conversation)
        }
        selected = conversations.first { $0.id == conversation.id }
    }

    func select(_ id: UUID) {
        selected = conversations.first { $0.id == id }
        selected?.markRead()
    }

    /// Removes it from the list only; a selected conversation stays open.
    func archive(_ id: UUID) { conversations.removeAll { $0.id == id } }

    /// Removes it everywhere, as one commit.
    func delete(_ id: UUID) {
        node.transaction {
            conversations.removeAll { $0.id == id }
            if selected?.id == id { selected = nil }
        }
    }

    /// The server's conversations replace the list; the drafts stay (the server has none).
    func sync(_ server: [ServerConversation]) {
        let drafts = Dictionary(uniqueKeysWithValues: conversations.map { ($0.id, $0.composer) })
        conversations = server.map {
            ChatConversation(id: $0.id, title: $0.title, messages: $0.messages, unread: $0.unread, composer: drafts[$0.id])
        }
    }

    /// The ids of the messages containing `text`, scanned without observing anything.
    func search(_ text: String) -> [Int] {
        withUntrackedModelReads {
            conversations.flatMap { $0.messages.filter { $0.text.contains(text) }.map(\.id) }
        }
    }

    var allMessageIDs: [Int] { node.mapHierarchy(for: .descendants) { ($0 as? ChatMessage)?.id } }
    var messageCount: Int {
        node.reduceHierarchy(for: .descendants, into: 0) { count, model in
            if model is ChatMessage { count += 1 }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$conversations)
        r.track(\.$selected)
        r.track(\.$reactionLog, options: .transient)
    }
}
