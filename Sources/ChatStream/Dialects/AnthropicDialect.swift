// AnthropicDialect: the Anthropic Messages streaming API (SSE) as StreamEvents.
//
// Units are SSE events. The `event:` name is not trusted (recorded streams often lack it);
// every unit is dispatched on its JSON `type`:
//
// | wire | events |
// |---|---|
// | `message_start {message:{id, usage, stop_reason?, content?}}` | `.messageStart(id)`; whole blocks already in `content` (programmatic tool calling) are emitted at once |
// | `content_block_start` `text` / `thinking` | `.textStart` / `.reasoningStart` (part id `"<message>-<index>"`) |
// | `content_block_start` `tool_use` / `server_tool_use` / `mcp_tool_use` | `.toolCallStart(id, name, providerExecuted: type != tool_use)` |
// | `content_block_start` `*_tool_result {tool_use_id, content}` | `.toolResult(tool_use_id, name of the server tool, content, preliminary: false)` |
// | `content_block_delta` `text_delta` / `thinking_delta` / `input_json_delta` | `.textDelta` / `.reasoningDelta` / `.toolInputDelta` |
// | `content_block_delta` `citations_delta` with a URL | `.source` |
// | `content_block_stop` | `.textEnd` / `.reasoningEnd` / `.toolInputAvailable` (or `.toolInputError` when the input is not JSON) |
// | `message_delta {delta:{stop_reason}, usage}` | `.metadata(usage: message_start usage merged with this one)`; the stop reason is held |
// | `message_stop` | `.finish` (the last stop reason held), `.done` |
// | `error {error:{type, message}}` | `.error(code: type, message)` |
// | `content_block_start` of another kind (`compaction`, `redacted_thinking`, `fallback`, new kinds) | `.unknown(type, the block with its deltas' members joined)` at its stop |
// | `ping`, `signature_delta` | nothing |
//
// Policies:
// - A block still open at `message_delta`, `message_stop`, a new `message_start` or the end of
//   the stream is closed there (a tool input cut off by `max_tokens` becomes `.toolInputError`).
// - A second `message_start` with the same ID before any content block is a duplicate and is
//   ignored. Any other `message_start` begins a new message: open blocks are closed and
//   `.messageStart` is emitted again; part IDs carry the message's ordinal, so they stay unique.
//   A stream may hold several whole messages (programmatic tool calling sends
//   `message_start`...`message_stop` runs back to back): each run ends in its own `.done`.
// - `content_block_delta` or `content_block_stop` for an index with no open block is malformed.
// - The stream is complete when the last message reached `message_stop`, or an `error` arrived.

import ChatStreamFraming
import ChatStreamJSON

/// Decodes the Anthropic Messages streaming format (`content_block_delta` and friends).
///
/// ```swift
/// var dialect = AnthropicDialect(configuration: StreamDecoderConfiguration())
/// try dialect.decode(unit, textDelta: textDelta, emit: emit)   // one SSE event per unit
/// try dialect.finish(textDelta: textDelta, emit: emit)           // finishes each message
/// ```
public struct AnthropicDialect: StreamDialect {
    /// Anthropic streams are Server-Sent Events.
    public typealias Framer = ServerSentEventDecoder

    /// How many units (or content blocks and deltas) of unknown type were skipped.
    public private(set) var unknownUnitCount = 0

    enum Block {
        case text(id: String)
        case reasoning(id: String)
        case tool(id: String, name: String)
        case ignored
    }

    let parser: UnitParser
    let inputParser: JSONParser

    /// The ordinal of the current message (-1 before the first).
    var messageIndex = -1
    var messageId: String?
    var messageOpen = false
    var blocksStartedInMessage = 0
    /// Open content blocks by index. Any change forgets `lastDeltaBlock`.
    var blocks: [Int: Block] = [:] {
        didSet { lastDeltaBlock = nil }
    }
    /// The block the last delta went to, read again without hashing while `blocks` is unchanged
    /// (a block's deltas come in a run).
    var lastDeltaBlock: (index: Int, block: Block)?
    /// Streamed tool input by block index, but for the block the last input went to, whose input
    /// is in `lastToolInput`: appended to there without hashing (a block's deltas come in a run).
    var toolInputs: [Int: [UInt8]] = [:]
    var lastToolInput: (index: Int, bytes: [UInt8])?
    var wholeInputs: [Int: JSONTree] = [:]
    /// Blocks of kinds no event stands for (`compaction`, `redacted_thinking`, new kinds), by
    /// index: the block as it started, each delta's members joined in (strings appended, other
    /// values replaced), emitted whole as `.unknown` when the block stops. Such a block is
    /// `.ignored` in `blocks`.
    var keptBlocks: [Int: (type: String, raw: JSONObject)] = [:]
    var serverToolNames: [String: String] = [:]
    var startUsage: JSONTree?
    var startStopReason: String?
    var finishEmitted = false
    /// The last `message_delta` stop reason of the open message, held for `message_stop`.
    var heldStopReason: String?
    var sawTerminator = false
    var sawError = false
    var sourceCount = 0

    /// A decoder using the configuration's JSON limits.
    public init(configuration: StreamDecoderConfiguration) {
        parser = UnitParser(configuration: configuration.json)
        inputParser = JSONParser(configuration: configuration.json)
    }

    /// Decodes one SSE event: text deltas to `textDelta` (their text lent), every other event to `emit`.
    @_spi(Dialects)
    public mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        if try decodeBlockDeltaByPosition(unit, textDelta: textDelta, emit: emit) { return }
        let offset = unit.streamOffset
        try parser.lent.parse(unit, eventType: unit.type.isEmpty ? nil : unit.typeString) { root in
            // One pass finds the fields of the hot path (a delta's type, index and delta).
            let (typeElement, indexElement, deltaElement) = root.members("type", "index", "delta")
            guard let type = typeElement else {
                throw Self.malformed(
                    "missing field \"type\"", offset, unit.type.isEmpty ? nil : unit.typeString, "type")
            }
            if type.isString("content_block_delta") {
                try blockDelta(
                    index: indexElement, delta: deltaElement, offset: offset,
                    textDelta: textDelta, emit: emit)
            } else if type.isString("content_block_start") {
                try blockStart(root, offset: offset, textDelta: textDelta, emit: emit)
            } else if type.isString("content_block_stop") {
                let index = try Self.index(root, "content_block_stop", offset)
                guard let block = blocks.removeValue(forKey: index) else {
                    throw Self.malformed(
                        "content_block_stop for index \(index), which has no open content block", offset,
                        "content_block_stop", "index")
                }
                try close(block, index: index, textDelta: textDelta, emit: emit)
            } else if type.isString("ping") {
                return
            } else if type.isString("message_start") {
                try messageStart(root, offset: offset, textDelta: textDelta, emit: emit)
            } else if type.isString("message_delta") {
                try messageDelta(root, textDelta: textDelta, emit: emit)
            } else if type.isString("message_stop") {
                try closeOpenBlocks(textDelta: textDelta, emit: emit)
                if heldStopReason == nil { heldStopReason = startStopReason }
                try emitHeldFinish(textDelta: textDelta, emit: emit)
                finishEmitted = true
                messageOpen = false
                sawTerminator = true
                try emit(.done)
            } else if type.isString("error") {
                let error = root["error"]
                let message: String = error?["message"]?.string ?? root["message"]?.string ?? "stream error"
                sawError = true
                try emit(.error(StreamErrorInfo(code: error?["type"]?.string, message: message)))
            } else {
                unknownUnitCount += 1
            }
        }
    }

    /// Closes open blocks; throws ``StreamError/Kind/truncated`` unless the last message reached
    /// `message_stop` or the stream carried an error.
    @_spi(Dialects)
    public mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        try closeOpenBlocks(textDelta: textDelta, emit: emit)
        try emitHeldFinish(textDelta: textDelta, emit: emit)
        if sawError || (sawTerminator && !messageOpen) { return }
        throw StreamError(
            .truncated,
            message: messageIndex < 0
                ? "the stream ended before message_start" : "the stream ended before message_stop",
            eventType: "message_stop")
    }

    // MARK: - Messages

    /// Emits the message's held stop reason as its one `finish`, unless one was emitted.
    private mutating func emitHeldFinish(textDelta: TextDeltaSink, emit: EventSink) throws {
        guard let raw = heldStopReason else { return }
        heldStopReason = nil
        guard !finishEmitted else { return }
        finishEmitted = true
        try emit(.finish(reason: StreamFinishReason(normalizing: raw), rawReason: raw))
    }

    private mutating func messageStart(_ root: JSONElement, offset: Int, textDelta: TextDeltaSink, emit: EventSink)
        throws
    {
        guard let message = root["message"], message.kind == .object else {
            throw Self.malformed("missing object field \"message\"", offset, "message_start", "message")
        }
        let id = message["id"]?.string
        if messageOpen && blocksStartedInMessage == 0 && id == messageId && !finishEmitted {
            return  // a duplicated message_start (proxy glitch): nothing to restart
        }
        try closeOpenBlocks(textDelta: textDelta, emit: emit)
        try emitHeldFinish(textDelta: textDelta, emit: emit)  // the previous message's, when it had no message_stop
        messageIndex += 1
        messageId = id
        messageOpen = true
        blocksStartedInMessage = 0
        finishEmitted = false
        sawTerminator = false
        startUsage = message["usage"]?.jsonValue
        startStopReason = message["stop_reason"]?.string
        serverToolNames.removeAll(keepingCapacity: true)
        try emit(.messageStart(id: id))
        // Blocks delivered whole inside message_start (programmatic tool calling).
        var position = 0
        try message["content"]?.forEachElement { block in
            defer { position += 1 }
            let partId = "\(messageIndex)-m\(position)"
            guard let type = block["type"] else { return }
            if type.isString("text"), let text = block["text"]?.string {
                try emit(.textStart(id: partId))
                if !text.isEmpty { try CheckedUTF8.lending(text) { try textDelta(partId, $0) } }
                try emit(.textEnd(id: partId))
            } else if let (id, name, provider) = try Self.toolHeader(block, type, offset) {
                try emit(.toolCallStart(id: id, name: name, providerExecuted: provider))
                let input = block["input"]?.jsonValue ?? .object(JSONObject())
                try emit(.toolInputDelta(id: id, delta: input.jsonText))
                try emit(.toolInputAvailable(id: id, name: name, input: input))
            } else {
                unknownUnitCount += 1
                try emit(.unknown(type: type.string ?? "", raw: block.jsonValue))
            }
        }
    }

    private mutating func messageDelta(_ root: JSONElement, textDelta: TextDeltaSink, emit: EventSink) throws {
        try closeOpenBlocks(textDelta: textDelta, emit: emit)
        if let usage = root["usage"], usage.kind == .object {
            var merged = startUsage?.objectValue ?? JSONObject()
            usage.forEachMember { key, value in
                if let key = key.string { merged[key] = value.jsonValue }
            }
            try emit(.metadata(StreamMetadata(messageId: messageId, usage: .object(merged))))
        }
        // Held for `message_stop` (the last one given wins), so a repeated `message_delta` or a
        // block after it still comes before the message's one finish.
        if let raw = root["delta"]?["stop_reason"]?.string { heldStopReason = raw }
    }

    // MARK: - Content blocks

    private mutating func blockStart(_ root: JSONElement, offset: Int, textDelta: TextDeltaSink, emit: EventSink) throws
    {
        let index = try Self.index(root, "content_block_start", offset)
        guard let block = root["content_block"], let type = block["type"] else {
            throw Self.malformed(
                "missing field \"content_block.type\"", offset, "content_block_start", "content_block.type")
        }
        if let previous = blocks.removeValue(forKey: index) {
            // Restarted without a stop: close the old one.
            try close(previous, index: index, textDelta: textDelta, emit: emit)
        }
        blocksStartedInMessage += 1
        let partId = "\(max(messageIndex, 0))-\(index)"
        if type.isString("text") {
            blocks[index] = .text(id: partId)
            try emit(.textStart(id: partId))
            if let text = block["text"]?.string, !text.isEmpty {
                try CheckedUTF8.lending(text) { try textDelta(partId, $0) }
            }
        } else if type.isString("thinking") {
            blocks[index] = .reasoning(id: partId)
            try emit(.reasoningStart(id: partId))
            if let text = block["thinking"]?.string, !text.isEmpty {
                try emit(.reasoningDelta(id: partId, delta: text))
            }
        } else if let (id, name, provider) = try Self.toolHeader(block, type, offset) {
            blocks[index] = .tool(id: id, name: name)
            if provider { serverToolNames[id] = name }
            if let input = block["input"], input.count ?? 0 > 0 { wholeInputs[index] = input.jsonValue }
            try emit(.toolCallStart(id: id, name: name, providerExecuted: provider))
        } else if let toolUseId = block["tool_use_id"]?.string {
            // web_search_tool_result, code_execution_tool_result, advisor_tool_result, mcp_tool_result, ...
            blocks[index] = .ignored
            let name = serverToolNames[toolUseId] ?? type.string.map(Self.toolName(ofResultType:))
            let output = block["content"]?.jsonValue ?? .null
            try emit(.toolResult(id: toolUseId, name: name, output: output, preliminary: false))
        } else {
            blocks[index] = .ignored
            if !(type.isString("redacted_thinking") || type.isString("compaction") || type.isString("fallback")) {
                unknownUnitCount += 1
            }
            keptBlocks[index] = (type.string ?? "", block.jsonValue.objectValue ?? JSONObject())
        }
    }

    private mutating func blockDelta(
        index indexElement: JSONElement?, delta deltaElement: JSONElement?, offset: Int,
        textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        let index = try Self.index(indexElement, "content_block_delta", offset)
        guard let delta = deltaElement, let type = delta["type"] else {
            throw Self.malformed("missing field \"delta.type\"", offset, "content_block_delta", "delta.type")
        }
        let block: Block
        if let last = lastDeltaBlock, last.index == index {
            block = last.block
        } else {
            guard let found = blocks[index] else {
                throw Self.malformed(
                    "content_block_delta for index \(index), which has no open content block", offset,
                    "content_block_delta", "index")
            }
            block = found
            lastDeltaBlock = (index, found)
        }
        switch block {
        case .text(let id):
            if type.isString("text_delta") {
                let text = try Self.stringElement(delta, "text", offset)
                try text.withUTF8 { text in
                    if !text.isEmpty { try textDelta(id, CheckedUTF8(unchecked: text)) }
                }
            } else if type.isString("citations_delta") {
                if let citation = delta["citation"], let url = citation["url"]?.string {
                    sourceCount += 1
                    try emit(
                        .source(StreamSource(id: "\(id)-s\(sourceCount)", url: url, title: citation["title"]?.string)))
                }
            } else {
                try mismatch(type, index, "text", offset)
            }
        case .reasoning(let id):
            if type.isString("thinking_delta") {
                let text = try Self.string(delta, "thinking", offset)
                if !text.isEmpty { try emit(.reasoningDelta(id: id, delta: text)) }
            } else if !type.isString("signature_delta") {
                try mismatch(type, index, "thinking", offset)
            }
        case .tool(let id, _):
            guard type.isString("input_json_delta") else { return try mismatch(type, index, "tool use", offset) }
            let text = try Self.string(delta, "partial_json", offset)
            if !text.isEmpty {
                appendToolInput(text, index: index)
                try emit(.toolInputDelta(id: id, delta: text))
            }
        case .ignored:
            guard var kept = keptBlocks[index] else { return }
            delta.forEachMember { key, value in
                guard let key = key.string, key != "type" else { return }
                let piece = value.jsonValue
                if case .string(let more) = piece, case .string(let text)? = kept.raw[key] {
                    kept.raw[key] = .string(text + more)
                } else if !piece.isNull || kept.raw[key] == nil {
                    kept.raw[key] = piece
                }
            }
            keptBlocks[index] = kept
        }
    }

    /// Adds a piece of the streamed input of the tool-use block at `index`.
    @inline(__always)
    mutating func appendToolInput(_ text: String, index: Int) {
        if lastToolInput?.index != index {
            if let last = lastToolInput { toolInputs[last.index] = last.bytes }
            lastToolInput = (index, toolInputs.removeValue(forKey: index) ?? [])
        }
        var text = text
        text.withUTF8 { lastToolInput!.bytes.append(contentsOf: $0) }
    }

    /// The streamed input of the tool-use block at `index`, forgotten here.
    private mutating func takeToolInput(_ index: Int) -> [UInt8] {
        if let last = lastToolInput, last.index == index {
            lastToolInput = nil
            return last.bytes
        }
        return toolInputs.removeValue(forKey: index) ?? []
    }

    /// A delta whose type does not fit its block: malformed when the delta type is one we know,
    /// skipped (and counted) when it is new.
    private mutating func mismatch(_ type: JSONElement, _ index: Int, _ blockKind: String, _ offset: Int) throws {
        if type.isString("text_delta") || type.isString("thinking_delta") || type.isString("input_json_delta") {
            throw Self.malformed(
                "\(type.string ?? "") for index \(index), which is a \(blockKind) block", offset, "content_block_delta",
                "delta.type")
        }
        unknownUnitCount += 1
    }

    mutating func closeOpenBlocks(textDelta: TextDeltaSink, emit: EventSink) throws {
        guard !blocks.isEmpty else { return }
        for index in blocks.keys.sorted() {
            if let block = blocks.removeValue(forKey: index) {
                try close(block, index: index, textDelta: textDelta, emit: emit)
            }
        }
    }

    private mutating func close(_ block: Block, index: Int, textDelta: TextDeltaSink, emit: EventSink) throws {
        switch block {
        case .text(let id): try emit(.textEnd(id: id))
        case .reasoning(let id): try emit(.reasoningEnd(id: id))
        case .ignored:
            if let kept = keptBlocks.removeValue(forKey: index) {
                try emit(.unknown(type: kept.type, raw: .object(kept.raw)))
            }
        case .tool(let id, let name):
            let text = takeToolInput(index)
            let whole = wholeInputs.removeValue(forKey: index)
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                if let whole { try emit(.toolInputDelta(id: id, delta: whole.jsonText)) }
                try emit(.toolInputAvailable(id: id, name: name, input: whole ?? .object(JSONObject())))
                return
            }
            do {
                let input = try inputParser.parseValue(text)
                try emit(.toolInputAvailable(id: id, name: name, input: input))
            } catch let error as JSONError {
                try emit(.toolInputError(id: id, name: name, errorText: "tool input is not valid JSON: \(error)"))
            }
        }
    }
}
