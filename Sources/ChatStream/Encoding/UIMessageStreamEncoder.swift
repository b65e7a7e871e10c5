// UIMessageStreamEncoder: typed events from any dialect back to the AI SDK UI message stream
// (PROTOCOLS.md section 2), the format a browser's `useChat` or a ChatStream client reads.
//
// Each event becomes one chunk, but for three merges that give the home protocol's own shape:
// a `messageStart` followed by metadata is one `start` chunk with `messageMetadata`, metadata
// followed by `finish` is one `finish` chunk with it, and a `conversationAssigned` is carried by
// the metadata that names the same conversation (the decoder announces it from there). So the
// encoder holds at most one event until the next one (or ``UIMessageStreamEncoder/finish()``)
// shows which shape it takes. The UI message stream carries one message: events of choices other
// than 0 (OpenAI's `n > 1`) are left out, and a refusal is passed on as a text part of its own.
// Decoding the output as `.uiMessageStream` gives the same events back, but for those two cases,
// the finish reason (sent normalised, as the AI SDK knows it), and metadata's `raw` (the object
// sent).

/// Encodes ``StreamEvent``s (decoded from any format) as the AI SDK UI message stream: SSE
/// events whose data is one JSON chunk each, ended by `data: [DONE]`, optionally with `id:`
/// lines so a reader can resume after the last one it handled.
///
/// ```swift
/// var encoder = UIMessageStreamEncoder(firstEventID: 1)
/// var body: [UInt8] = []
/// for event in [StreamEvent.textStart(id: "t"), .textDelta(id: "t", delta: "Hi"), .textEnd(id: "t")] {
///     body += encoder.encode(event)
/// }
/// body += encoder.finish()  // ends with `data: [DONE]`
/// ```
public struct UIMessageStreamEncoder: Sendable {
    /// The `id:` of the next SSE event; nil writes no `id:` lines.
    public private(set) var nextEventID: Int?
    /// A `messageStart` waiting for the metadata that may follow it.
    private var heldStart: String??
    /// A `conversationAssigned` waiting for the metadata that names it.
    private var heldConversation: String?
    /// Metadata waiting for a `finish` that may follow it.
    private var heldMetadata: JSONTree?
    /// The choice the events belong to (only 0 is passed on).
    private var choice = 0
    /// The refusal part being written as text, if any.
    private var openRefusal: String?
    /// Whether `[DONE]` was written (nothing is written after it).
    public private(set) var isDone = false

    /// An encoder whose SSE events are numbered from `firstEventID` (nil: no `id:` lines).
    public init(firstEventID: Int? = nil) {
        nextEventID = firstEventID
    }

    /// The SSE bytes for `event`: none when it is held until the next one shows its shape.
    public mutating func encode(_ event: StreamEvent) -> [UInt8] {
        serverSentEvents(payloads(for: event))
    }

    /// The bytes that end the stream: what is still held, then `data: [DONE]` unless it was
    /// written already. Call it once, after the last event.
    public mutating func finish() -> [UInt8] {
        serverSentEvents(finishPayloads())
    }

    /// The `data:` payloads for `event` (chunk JSON texts, or `[DONE]`), for a caller that writes
    /// or numbers the SSE events itself.
    public mutating func payloads(for event: StreamEvent) -> [String] {
        chunks(for: event).map { $0?.jsonText ?? "[DONE]" }
    }

    /// The chunks for `event` as JSON objects, for a caller that keeps them as values; the
    /// terminator, which is not JSON, is left out (``isDone`` says when it was reached).
    public mutating func jsonChunks(for event: StreamEvent) -> [JSONTree] {
        chunks(for: event).compactMap { $0 }
    }

    /// The payloads that end the stream (see ``finish()``).
    public mutating func finishPayloads() -> [String] {
        var out: [JSONTree?] = []
        flush(into: &out)
        if !isDone {
            isDone = true
            out.append(nil)
        }
        return out.map { $0?.jsonText ?? "[DONE]" }
    }

    /// One SSE event carrying `data`, with an `id:` line when `id` is given.
    public static func serverSentEvent(data: String, id: Int? = nil) -> [UInt8] {
        Array((id.map { "id: \($0)\n" } ?? "").utf8) + Array("data: \(data)\n\n".utf8)
    }

    private mutating func serverSentEvents(_ payloads: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for payload in payloads {
            bytes += Self.serverSentEvent(data: payload, id: nextEventID)
            nextEventID = nextEventID.map { $0 + 1 }
        }
        return bytes
    }

    /// The chunks for `event`; nil stands for `[DONE]`.
    private mutating func chunks(for event: StreamEvent) -> [JSONTree?] {
        guard !isDone else { return [] }
        if case .choice(let index) = event {
            choice = index
            return []
        }
        guard choice == 0 else { return [] }
        var out: [JSONTree?] = []
        if case .refusalDelta(let id, let delta) = event {
            flush(into: &out)
            let partID = "refusal-" + id
            if openRefusal != partID {
                closeRefusal(into: &out)
                openRefusal = partID
                out.append(Self.chunk("text-start", ("id", .string(partID))))
            }
            out.append(Self.chunk("text-delta", ("id", .string(partID)), ("delta", .string(delta))))
            return out
        }
        closeRefusal(into: &out)
        switch event {
        case .messageStart(let id):
            flush(into: &out)
            heldStart = .some(id)
        case .conversationAssigned(let id):
            if heldMetadata != nil { flush(into: &out) }
            heldConversation = id
        case .metadata(let metadata):
            let object = metadata.raw ?? Self.object(of: metadata)
            if let conversation = heldConversation {
                heldConversation = nil
                if object["conversationId"]?.stringValue != conversation {
                    out.append(
                        Self.chunk("message-metadata", ("messageMetadata", ["conversationId": .string(conversation)])))
                }
            }
            if let start = heldStart {
                heldStart = nil
                out.append(Self.start(start, metadata: object))
            } else {
                if heldMetadata != nil { flush(into: &out) }
                heldMetadata = object
            }
        case .finish(let reason, let rawReason):
            let metadata = heldMetadata
            heldMetadata = nil
            flush(into: &out)
            var object = JSONObject()
            object["type"] = "finish"
            if let name = reason?.rawValue ?? rawReason { object["finishReason"] = .string(name) }
            if let metadata { object["messageMetadata"] = metadata }
            out.append(.object(object))
        case .done:
            flush(into: &out)
            isDone = true
            out.append(nil)
        default:
            flush(into: &out)
            if let chunk = Self.chunk(for: event) { out.append(chunk) }
        }
        return out
    }

    /// Writes what is held, each in its own chunk.
    private mutating func flush(into out: inout [JSONTree?]) {
        if let start = heldStart {
            heldStart = nil
            out.append(Self.start(start, metadata: nil))
        }
        if let conversation = heldConversation {
            heldConversation = nil
            out.append(Self.chunk("message-metadata", ("messageMetadata", ["conversationId": .string(conversation)])))
        }
        if let metadata = heldMetadata {
            heldMetadata = nil
            out.append(Self.chunk("message-metadata", ("messageMetadata", metadata)))
        }
    }

    private mutating func closeRefusal(into out: inout [JSONTree?]) {
        guard let id = openRefusal else { return }
        openRefusal = nil
        out.append(Self.chunk("text-end", ("id", .string(id))))
    }

    private static func start(_ id: String?, metadata: JSONTree?) -> JSONTree {
        var object = JSONObject()
        object["type"] = "start"
        if let id { object["messageId"] = .string(id) }
        if let metadata { object["messageMetadata"] = metadata }
        return .object(object)
    }

    /// Metadata without the object it came in, as one.
    private static func object(of metadata: StreamMetadata) -> JSONTree {
        var object = JSONObject()
        if let value = metadata.messageId { object["messageId"] = .string(value) }
        if let value = metadata.userMessageId { object["userMessageId"] = .string(value) }
        if let value = metadata.conversationId { object["conversationId"] = .string(value) }
        if let value = metadata.userId { object["userId"] = .string(value) }
        if let value = metadata.usage { object["usage"] = value }
        return .object(object)
    }

    private static func chunk(_ type: String, _ members: (String, JSONTree)...) -> JSONTree {
        var object = JSONObject()
        object["type"] = .string(type)
        for (key, value) in members { object[key] = value }
        return .object(object)
    }

    /// The one chunk of an event that needs no merging; nil for one that has none.
    private static func chunk(for event: StreamEvent) -> JSONTree? {
        switch event {
        case .textStart(let id): return chunk("text-start", ("id", .string(id)))
        case .textDelta(let id, let delta): return chunk("text-delta", ("id", .string(id)), ("delta", .string(delta)))
        case .textEnd(let id): return chunk("text-end", ("id", .string(id)))
        case .reasoningStart(let id): return chunk("reasoning-start", ("id", .string(id)))
        case .reasoningDelta(let id, let delta):
            return chunk("reasoning-delta", ("id", .string(id)), ("delta", .string(delta)))
        case .reasoningEnd(let id): return chunk("reasoning-end", ("id", .string(id)))
        case .toolCallStart(let id, let name, let providerExecuted):
            var object = chunk("tool-input-start", ("toolCallId", .string(id)), ("toolName", .string(name)))
            if providerExecuted { object = adding("providerExecuted", true, to: object) }
            return object
        case .toolInputDelta(let id, let delta):
            return chunk("tool-input-delta", ("toolCallId", .string(id)), ("inputTextDelta", .string(delta)))
        case .toolInputAvailable(let id, let name, let input):
            return chunk(
                "tool-input-available", ("toolCallId", .string(id)), ("toolName", .string(name)), ("input", input))
        case .toolInputError(let id, let name, let errorText):
            var object = chunk("tool-input-error", ("toolCallId", .string(id)))
            if let name { object = adding("toolName", .string(name), to: object) }
            return adding("errorText", .string(errorText), to: object)
        case .toolResult(let id, let name, let output, let preliminary):
            var object = chunk("tool-output-available", ("toolCallId", .string(id)))
            if let name { object = adding("toolName", .string(name), to: object) }
            object = adding("output", output, to: object)
            if preliminary { object = adding("preliminary", true, to: object) }
            return object
        case .toolOutputError(let id, let errorText):
            return chunk("tool-output-error", ("toolCallId", .string(id)), ("errorText", .string(errorText)))
        case .source(let source):
            if let url = source.url {
                var object = chunk("source-url", ("sourceId", .string(source.id)), ("url", .string(url)))
                if let title = source.title { object = adding("title", .string(title), to: object) }
                return object
            }
            var object = chunk("source-document", ("sourceId", .string(source.id)))
            if let title = source.title { object = adding("title", .string(title), to: object) }
            if let mediaType = source.mediaType { object = adding("mediaType", .string(mediaType), to: object) }
            if let filename = source.filename { object = adding("filename", .string(filename), to: object) }
            return object
        case .file(let url, let mediaType):
            return chunk("file", ("url", .string(url)), ("mediaType", .string(mediaType)))
        case .data(let name, let id, let data, let transient):
            var object = chunk("data-" + name)
            if let id { object = adding("id", .string(id), to: object) }
            object = adding("data", data, to: object)
            if transient { object = adding("transient", true, to: object) }
            return object
        case .unknown(let type, let raw):
            // Passed on as it came, as a chunk of its own kind: with its `type` first when it had
            // none (as ``AssembledPart/jsonValue`` keeps it). A kind the stream defines, or one
            // with no name, goes under `unknown` so it is never read as that kind.
            let usable = !type.isEmpty && !knownChunkTypes.contains(type) && !type.hasPrefix("data-")
            if usable, raw["type"]?.stringValue == type { return raw }
            if usable, case .object(let object) = raw, object["type"] == nil {
                return .object(JSONObject([("type", .string(type))] + object.map { ($0.key, $0.value) }))
            }
            return chunk(usable ? type : "unknown", ("unknownType", .string(type)), ("raw", raw))
        case .stepStart: return chunk("start-step")
        case .stepFinish: return chunk("finish-step")
        case .error(let info):
            if info.code == "ABORTED" { return chunk("abort", ("reason", .string(info.message))) }
            if let code = info.code {
                return chunk("error", ("errorText", .string(info.message)), ("code", .string(code)))
            }
            return chunk("error", ("errorText", .string(info.message)))
        case .messageStart, .conversationAssigned, .metadata, .finish, .done, .choice, .refusalDelta: return nil
        }
    }

    private static func adding(_ key: String, _ value: JSONTree, to chunk: JSONTree) -> JSONTree {
        guard case .object(var object) = chunk else { return chunk }
        object[key] = value
        return .object(object)
    }

    /// The chunk types the UI message stream defines (an unknown part never takes one of them).
    static let knownChunkTypes: Set<String> = [
        "start", "finish", "start-step", "finish-step", "message-metadata", "text-start", "text-delta", "text-end",
        "reasoning-start", "reasoning-delta", "reasoning-end", "tool-input-start", "tool-input-delta",
        "tool-input-available", "tool-input-error", "tool-output-available", "tool-output-error",
        "tool-output-denied", "tool-approval-request", "tool-approval-response", "error", "abort", "source-url",
        "source-document", "file", "reset-step", "unknown",
    ]
}
