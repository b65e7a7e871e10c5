import Foundation

/// A message in the client's outbox: sent while the server could not be reached (or not yet
/// answered when the app stopped), waiting to be delivered with its `clientMessageId`.
/// ChatStream's own.
///
/// ```swift
/// for message in try client.outbox() where message.state == .failed {
///     print("not accepted:", message.text, message.lastError ?? "")
/// }
/// ```
public struct OutboxMessage: Sendable, Hashable, Identifiable {
    /// Where the message stands.
    public enum State: String, Sendable, Hashable {
        /// Waiting to be sent (again): the server could not be reached, or the answer never came.
        case pending
        /// The server refused it (a 4xx such as 403 `CHAT_CONVERSATION_NOT_ONGOING`); kept until
        /// ``ChatbaseClient/discardOutboxMessage(clientMessageId:)``.
        case failed
    }

    /// The ID the message is sent with, the same on every attempt.
    public var clientMessageId: String
    /// The conversation it goes to (nil: it starts one).
    public var conversationId: String?
    /// The text.
    public var text: String
    /// When it was first sent.
    public var createdAt: Date
    /// Where it stands.
    public var state: State
    /// How many attempts failed so far.
    public var attempts: Int
    /// Why the last attempt failed, for people.
    public var lastError: String?

    /// The ``clientMessageId``.
    public var id: String { clientMessageId }
}

/// What ``ChatbaseClient/flushOutbox()`` did. ChatStream's own.
public struct OutboxFlush: Sendable {
    /// A message delivered, with the reply it got (the reply made the first time, when the server
    /// had taken the message before).
    public struct Delivery: Sendable {
        /// The message as it stood in the outbox.
        public var message: OutboxMessage
        /// The finished reply.
        public var response: ChatResponse
    }

    /// What was delivered, oldest first.
    public var delivered: [Delivery]
    /// What is still in the outbox: pending (the server could not be reached) or failed.
    public var remaining: [OutboxMessage]
}
