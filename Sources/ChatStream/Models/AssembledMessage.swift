/// A reply as assembled from its stream: the parts so far and how the stream ended.
///
/// ``MessageAssembler`` hands out a snapshot after every event and a final one at the end.
/// A stream that was cut or carried an error still yields everything that arrived, with
/// ``error`` saying what happened.
public struct AssembledMessage: Sendable, Hashable {
    /// The message ID, once the stream names it.
    public var id: String?
    /// The conversation, once the stream reveals it.
    public var conversationId: String?
    /// The ID the server gave the user's message, when it says.
    public var userMessageId: String?
    /// The parts, in stream order; adjacent deltas of one part are joined.
    public var parts: [AssembledPart]
    /// The normalised finish reason, once the stream finishes.
    public var finishReason: StreamFinishReason?
    /// The finish reason as the wire gave it.
    public var rawFinishReason: String?
    /// Usage as the wire gave it (tokens, credits).
    public var usage: JSONTree?
    /// Metadata the stream carried, merged.
    public var metadata: JSONTree?
    /// Set when the stream carried an error, was cut, or could not be decoded.
    public var error: StreamErrorInfo?
    /// Which choice this is (OpenAI `n > 1`); 0 otherwise.
    public var choice: Int
    /// Whether the stream has ended (normally or not).
    public var isFinished: Bool

    public init(
        id: String? = nil, conversationId: String? = nil, userMessageId: String? = nil, parts: [AssembledPart] = [],
        finishReason: StreamFinishReason? = nil, rawFinishReason: String? = nil, usage: JSONTree? = nil,
        metadata: JSONTree? = nil, error: StreamErrorInfo? = nil, choice: Int = 0, isFinished: Bool = false
    ) {
        self.id = id
        self.conversationId = conversationId
        self.userMessageId = userMessageId
        self.parts = parts
        self.finishReason = finishReason
        self.rawFinishReason = rawFinishReason
        self.usage = usage
        self.metadata = metadata
        self.error = error
        self.choice = choice
        self.isFinished = isFinished
    }

    /// The text parts joined. A message with one text part returns that part's text itself
    /// (shared storage, no copy), however long it is.
    public var text: String {
        var joined = ""
        var first = true
        for case .text(let text) in parts {
            if first {
                joined = text
                first = false
            } else {
                joined.append(text)
            }
        }
        return joined
    }

    /// The tool calls, in order.
    public var toolCalls: [ToolCallPart] {
        parts.compactMap { if case .toolCall(let call) = $0 { return call } else { return nil } }
    }

    /// The shape `chatstream replay --output message --json` prints:
    /// `{"id","conversationId","parts","finishReason","rawFinishReason","usage","error"}`, then,
    /// only when the stream gave them, `userMessageId` and `choice` (when not 0). (The raw
    /// ``metadata`` is not repeated: its known members are the fields above.)
    public var jsonValue: JSONTree {
        var object = JSONObject()
        object["id"] = id.map(JSONTree.string) ?? .null
        object["conversationId"] = conversationId.map(JSONTree.string) ?? .null
        object["parts"] = .array(parts.map(\.jsonValue))
        object["finishReason"] = finishReason.map { .string($0.rawValue) } ?? .null
        object["rawFinishReason"] = rawFinishReason.map(JSONTree.string) ?? .null
        object["usage"] = usage ?? .null
        if let error {
            object["error"] = ["code": error.code.map(JSONTree.string) ?? .null, "message": .string(error.message)]
        } else {
            object["error"] = .null
        }
        if let userMessageId { object["userMessageId"] = .string(userMessageId) }
        if choice != 0 { object["choice"] = JSONTree(integerLiteral: Int64(choice)) }
        return .object(object)
    }
}
