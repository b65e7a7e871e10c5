// A message, in the shape the Chatbase SDK documents, keeping the core's full parts beside the
// documented ones; its wire shape is PROTOCOLS.md section 1.

import ChatStream
import Foundation

/// Who wrote a message: role `user` is the user, every other role the agent.
public enum MessageSender: String, Sendable, Hashable, Codable {
    /// The user.
    case user
    /// The agent.
    case agent
}

/// The user's feedback on a reply.
public enum MessageFeedback: String, Sendable, Hashable, Codable {
    /// Thumbs up.
    case positive
    /// Thumbs down.
    case negative
}

/// A message: the reply inside a ``ChatResponse``, or one item of a conversation's history.
///
/// ```swift
/// let page = try await client.listMessages(conversationId: id, limit: 50)
/// for message in page.data { print(message.sender, message.text) }
/// ```
public struct Message: Identifiable, Hashable, Sendable {
    /// The server's ID.
    public var id: String
    /// All the text: for a history message (and a non-streamed reply) the non-empty text parts one
    /// per line, as the Chatbase SDK joins them; for a streamed reply every text delta in order.
    public var text: String
    /// Who wrote it.
    public var sender: MessageSender
    /// When it was written; the time it was read when the server gave none.
    public var date: Date
    /// The user's feedback, if any.
    public var feedback: MessageFeedback?
    /// The reply's score (`metadata.score`), when the server gives one.
    public var score: Double?
    /// The ID the client sent the message with (a user message sent with one, on a server with
    /// idempotent sends); nil otherwise. ChatStream's own.
    public var clientMessageId: String? = nil
    /// The text, tool calls and tool results, in order.
    public var parts: [MessagePart]
    /// Every part as it arrived, with the kinds ``parts`` has no case for (reasoning, refusal,
    /// sources, files, data, and parts of types this version does not know). ChatStream's own.
    public var assembledParts: [AssembledPart]
    /// Whether the server's reply was cut before it finished (a server restarted mid-reply stores
    /// it with the text it had, `metadata.interrupted`): ``ConversationState`` shows it failed, for
    /// ``ConversationState/retry(messageId:)``. ChatStream's own.
    public var isInterrupted = false

    /// A message from documented parts (``assembledParts`` holds the same parts).
    public init(
        id: String, text: String, sender: MessageSender, date: Date, feedback: MessageFeedback? = nil,
        score: Double? = nil, parts: [MessagePart] = []
    ) {
        self.id = id
        self.text = text
        self.sender = sender
        self.date = date
        self.feedback = feedback
        self.score = score
        self.parts = parts
        self.assembledParts = parts.map(AssembledPart.init)
    }

    /// A message from the core's parts: ``text`` joins their non-empty text parts one per line (as
    /// the Chatbase SDK reads a history message), ``parts`` holds the ones it has a case for (see
    /// ``MessagePart/init(_:)`` for what that drops).
    public init(
        id: String, sender: MessageSender, date: Date, feedback: MessageFeedback? = nil, score: Double? = nil,
        assembledParts: [AssembledPart]
    ) {
        self.id = id
        self.text = Self.sdkText(assembledParts)
        self.sender = sender
        self.date = date
        self.feedback = feedback
        self.score = score
        self.parts = assembledParts.compactMap(MessagePart.init)
        self.assembledParts = assembledParts
    }

    /// The text of `parts` as the Chatbase SDK gives it for a history message or a non-streamed
    /// reply: the non-empty text parts, one per line (`"\n"` between them).
    static func sdkText(_ parts: [AssembledPart]) -> String {
        parts.compactMap { $0.text.flatMap { $0.isEmpty ? nil : $0 } }.joined(separator: "\n")
    }

    /// The message in its wire shape (`role` is `user` or `assistant`; parts from
    /// ``assembledParts``).
    public var jsonValue: JSONTree {
        var object = JSONObject()
        object["id"] = .string(id)
        object["role"] = sender == .user ? "user" : "assistant"
        object["parts"] = .array(assembledParts.map(\.jsonValue))
        object["createdAt"] = WireDate.json(date)
        object["feedback"] = feedback.map { .string($0.rawValue) } ?? .null
        var metadata = JSONObject()
        if let score { metadata["score"] = .number(JSONNumber(score)) }
        if isInterrupted { metadata["interrupted"] = true }
        if !metadata.isEmpty { object["metadata"] = .object(metadata) }
        if let clientMessageId { object["clientMessageId"] = .string(clientMessageId) }
        return .object(object)
    }
}

extension Message: Codable {
    public init(from decoder: any Decoder) throws {
        guard let message = try WireDecoding.decodeValue(JSONTree(from: decoder), WireDecoding.message) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "message has no parts"))
        }
        self = message
    }

    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
