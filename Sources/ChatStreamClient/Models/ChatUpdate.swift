import ChatStream

/// One step of a streamed reply: the event that arrived and the message as it stands after it.
///
/// ```swift
/// for try await update in client.send("Hello") {
///     if case .textDelta(_, let delta) = update.event { print(delta, terminator: "") }
/// }
/// ```
public struct ChatUpdate: Sendable, Hashable {
    /// The event (a ``StreamEvent/toolResult(id:name:output:preliminary:)`` for each result the
    /// client's own tool handlers produced).
    public var event: StreamEvent
    /// The reply of the current round as it stands after ``event``.
    public var message: AssembledMessage
    /// The round: 0 for the reply to the message, then one more per tool-loop continuation.
    public var round: Int

    public init(event: StreamEvent, message: AssembledMessage, round: Int = 0) {
        self.event = event
        self.message = message
        self.round = round
    }
}

/// A finished reply.
///
/// ```swift
/// let response = try await client.sendMessage("What's the weather?")
/// print(response.message.text, response.conversationId)
/// ```
public struct ChatResponse: Sendable, Hashable {
    /// The final reply (the last round's, after any tool loop).
    public var message: AssembledMessage
    /// The conversation the reply belongs to.
    public var conversationId: String
    /// The ID the server gave the user's message, when it said.
    public var userMessageId: String?
    /// Why the reply finished.
    public var finishReason: StreamFinishReason?
    /// Usage as the server reported it (credits).
    public var usage: JSONTree?

    public init(
        message: AssembledMessage, conversationId: String, userMessageId: String?, finishReason: StreamFinishReason?,
        usage: JSONTree?
    ) {
        self.message = message
        self.conversationId = conversationId
        self.userMessageId = userMessageId
        self.finishReason = finishReason
        self.usage = usage
    }

    /// `{"conversationId","userMessageId","finishReason","usage","message"}` (what `chatstream chat --json` prints).
    public var jsonValue: JSONTree {
        [
            "conversationId": .string(conversationId),
            "userMessageId": userMessageId.map(JSONTree.string) ?? .null,
            "finishReason": finishReason.map { .string($0.rawValue) } ?? .null,
            "usage": usage ?? .null,
            "message": message.jsonValue,
        ]
    }
}
