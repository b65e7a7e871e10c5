// A conversation derived from a streamed reply (CometChat's "conversation from a message"): the
// reply names its conversation, is its newest message and is when it last changed, so a list
// can move the conversation to the top with its new last message without asking the server.

import ChatStream
import Foundation

extension Message {
    /// The agent's reply as a history message (the form ``Conversation/lastMessage`` takes).
    ///
    /// The ID is the reply's own (the server's message ID); a reply that carried none gets a
    /// local one starting with `local-`.
    public init(reply: AssembledMessage, date: Date = Date()) {
        self.init(
            id: reply.id ?? "local-" + ChatStreamPaths.newDeviceId(), sender: .agent, date: date,
            assembledParts: reply.parts)
    }
}

extension Conversation {
    /// The conversation `reply` belongs to, as it stands now that the reply has arrived.
    ///
    /// - ``id``: the reply's conversation ID; ``lastMessage``: the reply; ``updatedAt``: `date`;
    ///   ``status``: ``ConversationStatus/ongoing`` (only an ongoing conversation answers).
    /// - Title, creation date, user, tags are kept from `previous` (the conversation as a list
    ///   last showed it); without one (a new conversation) they are unknown: nil, `date`, nil, nil.
    /// - ``unreadCount``: as the server counts it, the reply is unread until
    ///   ``ChatbaseClient/markRead(conversationId:messageId:)``: `previous`'s count plus one (nil
    ///   without `previous`). Agent replies of tool-loop rounds before the last are not counted.
    ///
    /// ```swift
    /// let response = try await client.send("Hi", conversationId: shown.id)
    /// let updated = Conversation(reply: response, previous: shown)   // no refetch
    /// ```
    public init(reply: ChatResponse, previous: Conversation? = nil, date: Date = Date()) {
        self.init(
            conversationId: reply.conversationId, message: reply.assembledMessage, previous: previous, date: date)
    }

    /// The conversation a streamed reply (or a snapshot of one) belongs to; nil until the stream
    /// has named its conversation. Otherwise as the ``ChatResponse`` form above.
    ///
    /// ```swift
    /// for try await update in client.updates(sending: "Hi", conversationId: shown.id) {
    ///     if let live = Conversation(reply: update.message, previous: shown) { preview = live }
    /// }
    /// ```
    public init?(reply: AssembledMessage, previous: Conversation? = nil, date: Date = Date()) {
        guard let id = reply.conversationId ?? previous?.id else { return nil }
        self.init(conversationId: id, message: reply, previous: previous, date: date)
    }

    private init(conversationId: String, message: AssembledMessage, previous: Conversation?, date: Date) {
        let same = previous?.id == conversationId ? previous : nil
        self.init(
            id: conversationId, title: same?.title, createdAt: same?.createdAt ?? date, updatedAt: date,
            userId: same?.userId, status: .ongoing, tags: same?.tags, unreadCount: same?.unreadCount.map { $0 + 1 },
            lastMessage: Message(reply: message, date: date))
    }
}
