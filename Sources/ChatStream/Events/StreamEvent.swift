/// One typed event of a streamed assistant reply, whatever wire format it came in.
///
/// Every dialect decoder (the UI message stream, OpenAI Chat Completions and Responses,
/// Anthropic Messages, the AI SDK v4 data stream, Ollama NDJSON, Gemini JSON arrays) turns its
/// format into these events; ``MessageAssembler`` turns them into ``AssembledMessage``s.
///
/// ```swift
/// for try await event in bytes.streamEvents(format: .uiMessageStream) {
///     if case .textDelta(_, let delta) = event { print(delta, terminator: "") }
/// }
/// ```
public enum StreamEvent: Sendable, Hashable {
    /// A new assistant message begins (its ID when the stream names one).
    case messageStart(id: String?)
    /// The server assigned the conversation this reply belongs to. Emitted once per stream,
    /// as soon as the stream reveals it.
    case conversationAssigned(id: String)
    /// A text part begins.
    case textStart(id: String)
    /// A piece of a text part.
    case textDelta(id: String, delta: String)
    /// A text part ends.
    case textEnd(id: String)
    /// A reasoning part begins.
    case reasoningStart(id: String)
    /// A piece of a reasoning part.
    case reasoningDelta(id: String, delta: String)
    /// A reasoning part ends.
    case reasoningEnd(id: String)
    /// A piece of a refusal (OpenAI's `refusal` deltas).
    case refusalDelta(id: String, delta: String)
    /// A tool call begins; its input follows as ``toolInputDelta(id:delta:)`` pieces.
    case toolCallStart(id: String, name: String, providerExecuted: Bool)
    /// A piece of a tool call's input, as raw JSON text.
    case toolInputDelta(id: String, delta: String)
    /// A tool call's complete, parsed input.
    case toolInputAvailable(id: String, name: String, input: JSONTree)
    /// A tool call's input could not be used (the stream said so, or it was not valid JSON).
    case toolInputError(id: String, name: String?, errorText: String)
    /// A tool's result. `preliminary` results may be replaced by later ones.
    case toolResult(id: String, name: String?, output: JSONTree, preliminary: Bool)
    /// A tool failed, or its execution was denied.
    case toolOutputError(id: String, errorText: String)
    /// A source the reply cites.
    case source(StreamSource)
    /// A file the reply includes.
    case file(url: String, mediaType: String)
    /// An application data part (`data-<name>` in the UI message stream, `2:` in v4).
    case data(name: String, id: String?, data: JSONTree, transient: Bool)
    /// A part, block or item of a kind this version does not read, kept whole: the provider's
    /// name for its kind (`compaction`, `executableCode`, `image_generation_call`, ...) and its
    /// JSON as it came (an Anthropic block with its deltas joined). ``MessageAssembler`` keeps it
    /// as an ``AssembledPart/unknown(type:raw:)`` part, so nothing the provider sent is lost.
    case unknown(type: String, raw: JSONTree)
    /// A step (one model call within a multi-step reply) begins.
    case stepStart
    /// A step ends.
    case stepFinish
    /// Metadata about the message: IDs, usage, and whatever else the server sent.
    case metadata(StreamMetadata)
    /// The reply finished: the normalised reason and the raw one from the wire.
    case finish(reason: StreamFinishReason?, rawReason: String?)
    /// The stream carried an error.
    case error(StreamErrorInfo)
    /// The events that follow, until the next `choice`, belong to choice `index` (OpenAI `n > 1`).
    /// Absent means choice 0.
    case choice(index: Int)
    /// The stream's terminator arrived (`[DONE]`, `message_stop`, `response.completed`, ...).
    case done
}

/// A source cited by a reply: a URL or a document.
public struct StreamSource: Sendable, Hashable, Codable {
    public var id: String
    public var url: String?
    public var title: String?
    public var mediaType: String?
    public var filename: String?

    public init(id: String, url: String? = nil, title: String? = nil, mediaType: String? = nil, filename: String? = nil)
    {
        self.id = id
        self.url = url
        self.title = title
        self.mediaType = mediaType
        self.filename = filename
    }
}

/// Metadata a stream carries about its message. Fields the stream did not send are nil.
public struct StreamMetadata: Sendable, Hashable {
    public var messageId: String?
    public var userMessageId: String?
    public var conversationId: String?
    public var userId: String?
    /// Token or credit usage, as the wire gave it.
    public var usage: JSONTree?
    /// The whole metadata object as it arrived, when it was one.
    public var raw: JSONTree?

    public init(
        messageId: String? = nil, userMessageId: String? = nil, conversationId: String? = nil, userId: String? = nil,
        usage: JSONTree? = nil, raw: JSONTree? = nil
    ) {
        self.messageId = messageId
        self.userMessageId = userMessageId
        self.conversationId = conversationId
        self.userId = userId
        self.usage = usage
        self.raw = raw
    }
}

/// An error a stream carried: the server's code when it gave one, and its message.
public struct StreamErrorInfo: Sendable, Hashable, Codable {
    public var code: String?
    public var message: String

    public init(code: String? = nil, message: String) {
        self.code = code
        self.message = message
    }
}
