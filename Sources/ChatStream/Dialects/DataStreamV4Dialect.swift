// DataStreamV4Dialect: the Vercel AI SDK v4 data stream (`x-vercel-ai-data-stream: v1`).
//
// One part per line, `CODE:JSON`; framing hands over the code as the unit's type.
//
// | code | JSON | events |
// |---|---|---|
// | `f` | `{messageId}` | `.messageStart(id)` (first time only), `.stepStart` |
// | `0` | `"text"` | `.textStart` once, `.textDelta` |
// | `g` | `"reasoning"` | `.reasoningStart` once, `.reasoningDelta` |
// | `b` | `{toolCallId, toolName}` | `.toolCallStart` (streaming) |
// | `c` | `{toolCallId, argsTextDelta}` | `.toolInputDelta` |
// | `9` | `{toolCallId, toolName, args}` | `.toolInputAvailable` (after `.toolCallStart` and one delta when not streamed) |
// | `a` | `{toolCallId, result}` | `.toolResult(preliminary: false)` |
// | `e` | `{finishReason, usage, isContinued}` | parts end, `.metadata(usage)`, `.stepFinish` |
// | `d` | `{finishReason, usage}` | parts end, `.metadata(usage)`, `.finish`, `.done` |
// | `3` | `"message"` | `.error(message)` |
// | `2` | `[value, ...]` | one `.data(name: "data")` per element |
// | `8` | `[annotation, ...]` | `.metadata(raw: the array)` |
// | `h` | `{id, url, title?}` | `.source` |
// | `k` | `{data, mimeType}` | `.file(url: a data URL)` |
// | `i`, `j` | redacted reasoning, reasoning signature | nothing |
//
// v4 has no part ends: a text or reasoning part ends when the other kind begins, at a tool
// call, and at a step or message finish (IDs `text-N`, `reasoning-N`). A `0:` part goes to the
// sink as the bytes of its text.

import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

/// Decodes the AI SDK v4 data stream (`0:"text"` lines and friends).
///
/// ```swift
/// var dialect = DataStreamV4Dialect(configuration: StreamDecoderConfiguration())
/// try dialect.decode(unit, textDelta: textDelta, emit: emit)   // unit.type = "0", unit.data = "\"Hi\""
/// ```
public struct DataStreamV4Dialect: StreamDialect {
    /// v4 streams are `CODE:JSON` lines.
    public typealias Framer = DataStreamV4Decoder

    /// How many parts with an unknown code were skipped.
    public private(set) var unknownUnitCount = 0

    private let parser: UnitParser
    private let inputParser: JSONParser
    private var parts = SequentialParts()
    private var started = false
    private var sawFinish = false
    private var sawError = false
    /// Tool calls begun (by `b` or `9`) whose input is not yet available: ID -> name.
    private var pendingTools: [String: String] = [:]
    /// Names of every tool call seen, for results.
    private var toolNames: [String: String] = [:]

    /// A decoder using the configuration's JSON limits.
    public init(configuration: StreamDecoderConfiguration) {
        parser = UnitParser(configuration: configuration.json)
        inputParser = JSONParser(configuration: configuration.json)
    }

    /// Decodes one `CODE:JSON` part: text deltas to `textDelta` (their text lent), every other event to `emit`.
    @_spi(Dialects)
    public mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        // A part after the finish message (`d:`) is past the message's one finish, and a part of
        // an unknown code is not read: both counted.
        guard unit.type.count == 1, let code = unit.type.first, !sawFinish else {
            unknownUnitCount += 1
            return
        }
        let offset = unit.streamOffset
        // The part's name (`0:`) is made only for an error: a `String` per part would cost more
        // than the rest of a short part's decoding.
        func eventType() -> String { String(UnicodeScalar(code)) + ":" }
        if code == UInt8(ascii: "0"), let text = parser.plainTextPart(unit) {
            // The usual text part, `0:"Hi"`, read by position (no `\u` escape in it).
            if !text.raw.isEmpty { try text.withDecoded { try parts.text($0, textDelta: textDelta, emit: emit) } }
            return
        }
        try parser.lent.parse(unit, eventType: eventType()) { root in
            func required(_ key: StaticString) throws -> String {
                try root.requiredString(key, eventType: eventType(), offset: offset)
            }
            func notAString() -> StreamError {
                StreamError(
                    .malformed, message: "expected a JSON string", byteOffset: offset, eventType: eventType())
            }
            func text() throws -> String {
                guard let text = root.string else { throw notAString() }
                return text
            }
            switch code {
            case UInt8(ascii: "0"):
                let handed: Void? = try root.withUTF8 {
                    if !$0.isEmpty { try parts.text($0, textDelta: textDelta, emit: emit) }
                }
                if handed == nil { throw notAString() }
            case UInt8(ascii: "g"):
                let delta = try text()
                if !delta.isEmpty { try parts.reasoning(delta, textDelta: textDelta, emit: emit) }
            case UInt8(ascii: "f"):
                if !started {
                    started = true
                    try emit(.messageStart(id: root["messageId"]?.string))
                }
                try emit(.stepStart)
            case UInt8(ascii: "b"):
                let id = try required("toolCallId")
                let toolName = try required("toolName")
                try parts.closeAll(textDelta: textDelta, emit: emit)
                pendingTools[id] = toolName
                toolNames[id] = toolName
                try emit(.toolCallStart(id: id, name: toolName, providerExecuted: false))
            case UInt8(ascii: "c"):
                let id = try required("toolCallId")
                guard pendingTools[id] != nil else {
                    throw StreamError(
                        .malformed, message: "tool call delta for \(id), which did not start", byteOffset: offset,
                        eventType: "c:", field: "toolCallId")
                }
                let delta = try required("argsTextDelta")
                if !delta.isEmpty { try emit(.toolInputDelta(id: id, delta: delta)) }
            case UInt8(ascii: "9"):
                let id = try required("toolCallId")
                let toolName = try required("toolName")
                try parts.closeAll(textDelta: textDelta, emit: emit)
                if pendingTools.removeValue(forKey: id) != nil {
                    try emit(
                        .toolInputAvailable(
                            id: id, name: toolName, input: root["args"]?.jsonValue ?? .object(JSONObject())))
                } else {
                    try emit(.toolCallStart(id: id, name: toolName, providerExecuted: false))
                    try emitWholeToolInput(
                        id: id, name: toolName, arguments: root["args"], parser: inputParser, textDelta: textDelta,
                        emit: emit)
                }
                toolNames[id] = toolName
            case UInt8(ascii: "a"):
                let id = try required("toolCallId")
                try emit(
                    .toolResult(
                        id: id, name: toolNames[id], output: root["result"]?.jsonValue ?? .null, preliminary: false)
                )
            case UInt8(ascii: "e"):
                try parts.closeAll(textDelta: textDelta, emit: emit)
                try emitUsage(root, textDelta: textDelta, emit: emit)
                try emit(.stepFinish)
            case UInt8(ascii: "d"):
                try parts.closeAll(textDelta: textDelta, emit: emit)
                try emitUsage(root, textDelta: textDelta, emit: emit)
                let raw = root["finishReason"]?.string
                try emit(.finish(reason: raw.map(StreamFinishReason.init(normalizing:)), rawReason: raw))
                sawFinish = true
                try emit(.done)
            case UInt8(ascii: "3"):
                sawError = true
                try emit(.error(StreamErrorInfo(message: root.string ?? root.jsonValue.jsonText)))
            case UInt8(ascii: "2"):
                try root.forEachElement {
                    try emit(.data(name: "data", id: nil, data: $0.jsonValue, transient: false))
                }
            case UInt8(ascii: "8"):
                try emit(.metadata(StreamMetadata(raw: root.jsonValue)))
            case UInt8(ascii: "h"):
                let id = try required("id")
                try emit(.source(StreamSource(id: id, url: root["url"]?.string, title: root["title"]?.string)))
            case UInt8(ascii: "k"):
                let mediaType = try required("mimeType")
                try emit(.file(url: "data:\(mediaType);base64,\(try required("data"))", mediaType: mediaType))
            case UInt8(ascii: "i"), UInt8(ascii: "j"):
                return
            default:
                unknownUnitCount += 1
            }
        }
    }

    /// Ends open parts; throws ``StreamError/Kind/truncated`` unless a `d:` part or an error came.
    @_spi(Dialects)
    public mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        try parts.closeAll(textDelta: textDelta, emit: emit)
        if sawFinish || sawError { return }
        throw StreamError(.truncated, message: "the stream ended before its finish message (d:)", eventType: "d:")
    }

    private func emitUsage(_ root: JSONElement, textDelta: TextDeltaSink, emit: EventSink) throws {
        if let usage = root["usage"], usage.kind == .object {
            try emit(.metadata(StreamMetadata(usage: usage.jsonValue)))
        }
    }
}

extension UnitParser {
    /// The text of a part's data that is exactly a JSON string without `\u` escapes (well-formed
    /// UTF-8, no control character, nothing around it, within the JSON limits), scanned; nil
    /// otherwise, and the part is parsed the general way, which reads the same text (or reports
    /// the error).
    func plainTextPart(_ unit: FramedUnit) -> JSONScan.StringContent? {
        guard var scan = scan(unit, depth: 0), scan.literal("\""), let text = scan.stringContent(), scan.isAtEnd
        else { return nil }
        return text
    }
}
