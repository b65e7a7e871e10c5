import Foundation

/// A streamed reply the client began reading and has not seen end: recorded in the client's
/// ``HistoryStore`` when the stream names the reply, removed when it ends. One still there after
/// the app was suspended or killed is finished by ``ChatbaseClient/completeRepliesInFlight(conversationId:)``
/// (which ``ConversationState/resume()`` and ``ConversationState/loadHistory(conversationId:limit:)``
/// call). ChatStream's own.
///
/// ```swift
/// for reply in try client.repliesInFlight() { print(reply.conversationId, reply.messageId) }
/// ```
public struct ReplyInFlight: Sendable, Hashable {
    /// The reply's conversation.
    public var conversationId: String
    /// The reply's message ID (the server's).
    public var messageId: String
    /// The `clientMessageId` of the user's message it answers (nil for a retry or a tool round).
    public var clientMessageId: String?
    /// The user's message it answers (nil for a retry or a tool round).
    public var userText: String?
    /// When the client began reading it.
    public var startedAt: Date

    /// A reply in flight.
    public init(
        conversationId: String, messageId: String, clientMessageId: String? = nil, userText: String? = nil,
        startedAt: Date = .now
    ) {
        self.conversationId = conversationId
        self.messageId = messageId
        self.clientMessageId = clientMessageId
        self.userText = userText
        self.startedAt = startedAt
    }
}
