/// A reply as assembled from its stream: the parts so far and how the stream ended.
///
/// ``MessageAssembler`` hands out a snapshot after every event and a final one at the end.
/// A stream that was cut or carried an error still yields everything that arrived, with
/// ``error`` saying what happened.
///
/// A snapshot costs O(1) to take and to keep: the part that may still grow is held as
/// append-only text whose copies share what was written, so the assembler's next delta costs
/// that delta even while a snapshot is held, however long the reply is. Reading ``parts`` or
/// ``text`` hands out that part's `String`: with no snapshot held during the stream it is the
/// assembler's own (no copy); otherwise the shared pieces are joined, O(text) per read. Final
/// messages (``isFinished``) read in O(1).
public struct AssembledMessage: Sendable {
    /// The message ID, once the stream names it.
    public var id: String?
    /// The conversation, once the stream reveals it.
    public var conversationId: String?
    /// The ID the server gave the user's message, when it says.
    public var userMessageId: String?
    /// The parts, in stream order; adjacent deltas of one part are joined.
    ///
    /// Reading builds the array when a text-like part is still open (see the type's notes on
    /// cost); setting replaces every part.
    public var parts: [AssembledPart] {
        get {
            guard openKind != .none else { return closedParts }
            var all = closedParts
            all.append(openPart)
            return all
        }
        set {
            closedParts = newValue
            openKind = .none
            openText = GrowingText()
        }
    }
    /// The parts before the open text-like part (all of them when none is open).
    var closedParts: [AssembledPart]
    /// The kind of the open text-like part, the last of ``parts``, held in ``openText``; `none`
    /// when the last part is in ``closedParts``.
    var openKind = TextPartKind.none
    /// The open part's text.
    var openText = GrowingText()
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
        self.closedParts = parts
        self.finishReason = finishReason
        self.rawFinishReason = rawFinishReason
        self.usage = usage
        self.metadata = metadata
        self.error = error
        self.choice = choice
        self.isFinished = isFinished
    }

    /// The text parts joined. A message with one text part returns that part's text itself
    /// (shared storage, no copy), however long it is, unless that part is open and a snapshot was
    /// held while it grew (then its pieces are joined).
    public var text: String {
        var joined = ""
        var first = true
        for case .text(let text) in closedParts {
            if first {
                joined = text
                first = false
            } else {
                joined.append(text)
            }
        }
        if openKind == .text {
            if first { return openText.string }
            joined.append(openText.string)
        }
        return joined
    }

    /// The tool calls, in order.
    public var toolCalls: [ToolCallPart] {
        closedParts.compactMap { if case .toolCall(let call) = $0 { return call } else { return nil } }
    }

    /// The open text-like part as an ``AssembledPart``.
    var openPart: AssembledPart {
        switch openKind {
        case .reasoning: .reasoning(openText.string)
        case .refusal: .refusal(openText.string)
        case .text, .none: .text(openText.string)
        }
    }

    /// The kinds of text-like part; `none` while no part is open.
    enum TextPartKind: UInt8, Sendable { case none, text, reasoning, refusal }

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

extension AssembledMessage: Hashable {
    /// Equal when every field is, ``parts`` compared as read (however their text is held).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.conversationId == rhs.conversationId && lhs.userMessageId == rhs.userMessageId
            && lhs.finishReason == rhs.finishReason && lhs.rawFinishReason == rhs.rawFinishReason
            && lhs.usage == rhs.usage && lhs.metadata == rhs.metadata && lhs.error == rhs.error
            && lhs.choice == rhs.choice && lhs.isFinished == rhs.isFinished && lhs.parts == rhs.parts
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(conversationId)
        hasher.combine(userMessageId)
        hasher.combine(parts)
        hasher.combine(finishReason)
        hasher.combine(rawFinishReason)
        hasher.combine(usage)
        hasher.combine(metadata)
        hasher.combine(error)
        hasher.combine(choice)
        hasher.combine(isFinished)
    }
}
