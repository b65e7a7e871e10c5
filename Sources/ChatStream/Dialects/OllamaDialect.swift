// OllamaDialect: Ollama's `/api/chat` NDJSON stream as StreamEvents.
//
// One JSON object per line:
// `{"model","created_at","message":{"role","content","thinking"?,"tool_calls"?},"done":bool,
//   "done_reason"?, "total_duration"?, "prompt_eval_count"?, "eval_count"?, ...}`
//
// | wire | events |
// |---|---|
// | first line | `.messageStart(id: nil)` (Ollama names no message) |
// | `message.thinking` | `.reasoningStart` once, then `.reasoningDelta` |
// | `message.content` | `.textStart` once, then `.textDelta` |
// | `message.tool_calls[] {id?, function:{name, arguments}}` | `.toolCallStart`, one `.toolInputDelta` (the arguments as JSON text), `.toolInputAvailable`; IDs `call-0`, `call-1`, ... when the wire has none |
// | `"done": true` | parts end; `.metadata(usage: the counts and durations)`; `.finish(done_reason)`; `.done` |
// | `{"error": "..."}` | `.error(message)` |
//
// Ollama has no part ends: a part ends when another kind of part begins, and at `done`.
// Part IDs count parts in order: `reasoning-0`, `text-1`, ... A `message.content` delta goes
// to the sink as the bytes of its text.

import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

/// Decodes Ollama's `/api/chat` streaming format (NDJSON).
///
/// ```swift
/// var dialect = OllamaDialect(configuration: StreamDecoderConfiguration())
/// try dialect.decode(unit, textDelta: textDelta, emit: emit)   // one line per unit
/// ```
public struct OllamaDialect: StreamDialect {
    /// Ollama streams newline-delimited JSON.
    public typealias Framer = NDJSONDecoder

    /// Always 0: every Ollama line is a chunk.
    public private(set) var unknownUnitCount = 0

    let parser: UnitParser
    var parts = SequentialParts()
    /// The bytes of the last line read by position around its content, with a hole for its
    /// `created_at` (OllamaDialect+LinesByPosition).
    var repeatedLine = JSONScan.RepeatedShape()
    private var started = false
    private var sawDone = false
    private var sawError = false
    private var toolCallCount = 0

    /// A decoder using the configuration's JSON limits.
    public init(configuration: StreamDecoderConfiguration) {
        parser = UnitParser(configuration: configuration.json)
    }

    /// Decodes one NDJSON line: text deltas to `textDelta` (their text lent), every other event to `emit`.
    @_spi(Dialects)
    public mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        // A line after `"done": true` is past the message's one finish: counted, not read.
        if sawDone {
            unknownUnitCount += 1
            return
        }
        if started, try decodeLineByPosition(unit, textDelta: textDelta, emit: emit) { return }
        let offset = unit.streamOffset
        try parser.lent.parse(unit, eventType: "chat chunk") { root in
            guard root.kind == .object else {
                throw StreamError(.malformed, message: "a line that is not a JSON object", byteOffset: offset)
            }
            // One pass over the line for the members read on every line.
            let (errorElement, doneElement, messageElement) = root.members("error", "done", "message")
            if let error = errorElement {
                sawError = true
                try parts.closeAll(textDelta: textDelta, emit: emit)
                // Ollama's `{"error":"…"}`, or another provider's error object read as NDJSON.
                let info =
                    APIErrorBody.info(.object(JSONObject([("error", error.jsonValue)])))
                    ?? StreamErrorInfo(code: nil, message: error.jsonValue.jsonText)
                try emit(.error(info))
                return
            }
            guard let done = doneElement?.bool else {
                throw StreamError(
                    .malformed, message: "missing or non-Boolean field \"done\"", byteOffset: offset,
                    eventType: "chat chunk", field: "done")
            }
            if !started {
                started = true
                try emit(.messageStart(id: nil))
            }
            if let message = messageElement {
                let (thinkingElement, contentElement, toolCallsElement) = message.members(
                    "thinking", "content", "tool_calls")
                if let thinking = thinkingElement?.string, !thinking.isEmpty {
                    try parts.reasoning(thinking, textDelta: textDelta, emit: emit)
                }
                if let content = contentElement {
                    try content.withUTF8 {
                        if !$0.isEmpty { try parts.text($0, textDelta: textDelta, emit: emit) }
                    }
                }
                try toolCallsElement?.forEachElement { call in
                    try parts.closeAll(textDelta: textDelta, emit: emit)
                    let function = call["function"]
                    guard let name = function?["name"]?.string else {
                        throw StreamError(
                            .malformed, message: "a tool call without a function name", byteOffset: offset,
                            eventType: "chat chunk", field: "message.tool_calls.function.name")
                    }
                    let id = call["id"]?.string ?? "call-\(toolCallCount)"
                    toolCallCount += 1
                    try emitWholeToolCall(
                        id: id, name: name, arguments: function?["arguments"], textDelta: textDelta, emit: emit)
                }
            }
            if done {
                try parts.closeAll(textDelta: textDelta, emit: emit)
                var usage = JSONObject()
                root.forEachMember { key, value in
                    guard let key = key.string, key.hasSuffix("_count") || key.hasSuffix("_duration"),
                        value.kind == .number
                    else { return }
                    usage[key] = value.jsonValue
                }
                if !usage.isEmpty { try emit(.metadata(StreamMetadata(usage: .object(usage)))) }
                let raw = root["done_reason"]?.string
                try emit(.finish(reason: raw.map(StreamFinishReason.init(normalizing:)), rawReason: raw))
                sawDone = true
                try emit(.done)
            }
        }
    }

    /// Ends open parts; throws ``StreamError/Kind/truncated`` unless `"done": true` or an error came.
    @_spi(Dialects)
    public mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        try parts.closeAll(textDelta: textDelta, emit: emit)
        if sawDone || sawError { return }
        throw StreamError(.truncated, message: "the stream ended before a line with \"done\": true")
    }

    /// A tool call that arrives whole: start, its input as one delta, then the input.
    private func emitWholeToolCall(
        id: String, name: String, arguments: JSONElement?, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        try emit(.toolCallStart(id: id, name: name, providerExecuted: false))
        try emitWholeToolInput(id: id, name: name, arguments: arguments, parser: nil, textDelta: textDelta, emit: emit)
    }
}
