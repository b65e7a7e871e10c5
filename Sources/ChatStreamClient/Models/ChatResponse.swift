// ChatResponse: what send, retry and sendNonStreaming return, in the documented shape, with the
// core's assembled reply kept beside it.

import ChatStream
import Foundation

/// A finished reply, after any tool loop.
///
/// ```swift
/// let response = try await client.send("Hello")
/// print(response.message.text, response.conversationId, response.usage.credits)
/// ```
///
/// When the agent used tools the reply took several rounds: ``message`` joins the text of every
/// round and its ID is the final round's.
public struct ChatResponse: Sendable, Hashable {
    /// The agent's reply: every round's text joined, the final round's ID.
    public let message: Message
    /// The conversation the reply belongs to.
    public let conversationId: String
    /// The ID the server gave the user's message, when it said.
    public let userMessageId: String?
    /// Why the reply ended (see ``streamFinishReason`` for the finer reason).
    public let finishReason: FinishReason
    /// What the reply cost (the final round's report).
    public let usage: Usage

    /// Every round's parts in one assembled message (rich parts included), with the final
    /// round's ID, finish reason, metadata and usage. ChatStream's own.
    public let assembledMessage: AssembledMessage
    /// The finish reason as the core normalised it; nil when the server gave none.
    public let streamFinishReason: StreamFinishReason?
    /// The usage report as the server sent it; nil when it sent none.
    public let rawUsage: JSONTree?

    /// A response with the documented fields (``assembledMessage`` is built from `message`).
    public init(
        message: Message, conversationId: String, userMessageId: String?, finishReason: FinishReason, usage: Usage
    ) {
        self.message = message
        self.conversationId = conversationId
        self.userMessageId = userMessageId
        self.finishReason = finishReason
        self.usage = usage
        var assembled = AssembledMessage(isFinished: true)
        assembled.id = message.id
        assembled.parts = message.assembledParts
        assembled.conversationId = conversationId
        assembled.userMessageId = userMessageId
        assembled.finishReason = StreamFinishReason(rawValue: finishReason.rawValue)
        assembled.usage = ["credits": .number(JSONNumber(usage.credits))]
        self.assembledMessage = assembled
        self.streamFinishReason = assembled.finishReason
        self.rawUsage = assembled.usage
    }

    /// The response to a reply the core assembled (all rounds' parts in `assembled`).
    public init(assembled: AssembledMessage, conversationId: String, userMessageId: String?, date: Date = Date()) {
        self.init(
            assembled: assembled, conversationId: conversationId, userMessageId: userMessageId, date: date, text: nil)
    }

    /// The response to `assembled`, its message's text `text` (nil: every text part in order, with
    /// nothing between them, as the SDK gathers a streamed reply's deltas).
    init(
        assembled: AssembledMessage, conversationId: String, userMessageId: String?, date: Date = Date(), text: String?
    ) {
        var message = Message(id: assembled.id ?? "", sender: .agent, date: date, assembledParts: assembled.parts)
        message.text = text ?? assembled.parts.compactMap(\.text).joined()
        self.message = message
        self.conversationId = conversationId
        self.userMessageId = userMessageId
        self.finishReason = FinishReason(assembled.finishReason)
        self.usage = Usage(json: assembled.usage)
        self.assembledMessage = assembled
        self.streamFinishReason = assembled.finishReason
        self.rawUsage = assembled.usage
    }

    /// `{"conversationId","userMessageId","finishReason","usage","message"}` (what
    /// `chatstream chat --json` prints; `finishReason` is the core's, `message` the
    /// ``assembledMessage``).
    public var jsonValue: JSONTree {
        [
            "conversationId": .string(conversationId),
            "userMessageId": userMessageId.map(JSONTree.string) ?? .null,
            "finishReason": streamFinishReason.map { .string($0.rawValue) } ?? .null,
            "usage": rawUsage ?? .null,
            "message": assembledMessage.jsonValue,
        ]
    }
}
