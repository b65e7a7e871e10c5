// GeminiDialect: Gemini `streamGenerateContent` (without `alt=sse`) as StreamEvents.
//
// The response is one JSON array streamed element by element; framing hands over each element:
// `{"candidates":[{"content":{"role","parts":[...]},"finishReason"?}],"usageMetadata"?,"responseId"?}`
//
// | wire | events |
// |---|---|
// | first element | `.messageStart(id: responseId)` |
// | part `{text}` | `.textStart` once, `.textDelta` |
// | part `{thought: true, text}` | `.reasoningStart` once, `.reasoningDelta` |
// | part `{functionCall:{id?, name, args}}` | `.toolCallStart`, one `.toolInputDelta`, `.toolInputAvailable` (IDs `call-0`, ... when absent) |
// | part `{functionCall:{name, willContinue: true}}`, then `{functionCall:{partialArgs, willContinue?}}` | one call: `.toolCallStart`, `.toolInputDelta` per argument piece, `.toolInputAvailable` when `willContinue` stops (GeminiDialect+StreamedArguments) |
// | part `{inlineData:{mimeType, data}}` | `.file(url: a data URL)` |
// | `usageMetadata` (when it changed) | `.metadata(usage)` |
// | `candidates[0].finishReason` | held; at the end of the array parts end, then one `.finish` |
// | `promptFeedback.blockReason` | `.finish(content-filter)`, likewise at the end |
// | `{"error":{code, message, status}}` | `.error(code: status or code, message)` |
// | end of the array (``finish(into:)``) | `.finish`, `.done` when a finish reason came; else truncated |
//
// Integer enums, unknown reasons, repeated reasons and `STOP` after function calls: see
// `GeminiDialect.variants` (GeminiDialect+Variants.swift).
//
// Only candidate 0 is read. Gemini has no part ends: a part ends when the other kind begins, at
// a function call, and at the finish reason. Other part kinds (`executableCode`,
// `codeExecutionResult`, `thoughtSignature` alone) are counted and kept whole (`.unknown`). A
// text part goes to the sink as the bytes of its text.

import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

/// Decodes Gemini's streamed JSON array (`streamGenerateContent`).
///
/// ```swift
/// var dialect = GeminiDialect(configuration: StreamDecoderConfiguration())
/// try dialect.decode(unit, textDelta: textDelta, emit: emit)   // one array element per unit
/// try dialect.finish(textDelta: textDelta, emit: emit)           // .done after a finishReason
/// ```
public struct GeminiDialect: StreamDialect {
    /// Gemini streams a JSON array.
    public typealias Framer = JSONArrayElementFramer

    /// How many parts of unknown kinds came (each kept whole as `.unknown`).
    public internal(set) var unknownUnitCount = 0

    let parser: UnitParser
    let inputParser: JSONParser
    var parts = SequentialParts()
    var started = false
    /// The last finish reason given (raw) and what it means, held for the end of the array so
    /// the one `finish` comes after all content however often the elements repeat it.
    private var finishRaw: String?
    private var finishReason: StreamFinishReason?
    private var sawError = false
    var toolCallCount = 0
    /// The function call whose arguments stream (`partialArgs`), until an element's call stops
    /// saying `willContinue` (GeminiDialect+StreamedArguments).
    var streamedCall: StreamedCall?
    private var lastUsage: JSONTree? {
        didSet {
            lastUsageBytes = lastUsage?.jsonBytes ?? []
            repeatedElement.clear()
        }
    }
    /// `lastUsage` as compact JSON text: an element whose `usageMetadata` is these bytes repeats
    /// it (what the elements read by position compare).
    private(set) var lastUsageBytes: [UInt8] = []
    /// The last element read by position, as the bytes around its text: the next element of that
    /// shape is read through it (GeminiDialect+ElementsByPosition). Forgotten when the last usage
    /// changes, which that read compares.
    var repeatedElement = JSONScan.RepeatedShape()

    /// A decoder using the configuration's JSON limits.
    public init(configuration: StreamDecoderConfiguration) {
        parser = UnitParser(configuration: configuration.json)
        inputParser = JSONParser(configuration: configuration.json)
    }

    /// Decodes one element of the response array: text deltas to `textDelta` (their text lent), every other event to `emit`.
    @_spi(Dialects)
    public mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        if started, streamedCall == nil, try decodeTextElementByPosition(unit, textDelta: textDelta, emit: emit) {
            return
        }
        let offset = unit.streamOffset
        try parser.lent.parse(unit, eventType: "GenerateContentResponse") { root in
            guard root.kind == .object else {
                throw StreamError(
                    .malformed, message: "an array element that is not an object", byteOffset: offset,
                    eventType: "GenerateContentResponse")
            }
            // One pass over the element for the members read on every element.
            let (errorElement, candidatesElement, usageElement) = root.members(
                "error", "candidates", "usageMetadata")
            if let error = errorElement {
                sawError = true
                try parts.closeAll(textDelta: textDelta, emit: emit)
                let code = error["status"]?.string ?? error["code"]?.number?.text
                let message = error["message"]?.string ?? error.jsonValue.jsonText
                try emit(.error(StreamErrorInfo(code: code, message: message)))
                return
            }
            if !started {
                started = true
                try emit(.messageStart(id: root["responseId"]?.string))
            }
            let candidate = candidatesElement?[0]
            if let candidates = candidatesElement, candidates.kind != .array {
                throw StreamError(
                    .malformed, message: "\"candidates\" is not an array", byteOffset: offset,
                    eventType: "GenerateContentResponse", field: "candidates")
            }
            try candidate?["content"]?["parts"]?.forEachElement { part in
                try self.part(part, offset: offset, textDelta: textDelta, emit: emit)
            }
            var raw = Self.enumName(candidate?["finishReason"], names: Self.finishReasonNames)
            var blocked = false
            if raw == nil, let feedback = root["promptFeedback"],
                let reason = Self.enumName(feedback["blockReason"], names: Self.blockReasonNames)
            {
                raw = reason
                blocked = candidate == nil
            }
            // Usage repeats on every element: emitted when it changes, compared without a tree
            // while it stays the same.
            if let usage = usageElement, usage.kind == .object, lastUsage.map(usage.surelyEquals) != true {
                let value = usage.jsonValue
                if value != lastUsage {
                    lastUsage = value
                    try emit(.metadata(StreamMetadata(usage: value)))
                }
            }
            if let raw {
                finishRaw = raw
                finishReason = blocked ? .contentFilter : StreamFinishReason(normalizing: raw)
            }
        }
    }

    private mutating func part(
        _ part: JSONElement, offset: Int,
        textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        if let text = part["text"], text.kind == .string {
            // An empty text is nothing (no part is started for it); other content ends a call
            // whose arguments streamed.
            if streamedCall != nil, text.withUTF8({ !$0.isEmpty }) == true { try endStreamedCall(emit: emit) }
            if part["thought"]?.bool == true {
                if let reasoning = text.string, !reasoning.isEmpty {
                    try parts.reasoning(reasoning, textDelta: textDelta, emit: emit)
                }
            } else {
                try text.withUTF8 { if !$0.isEmpty { try parts.text($0, textDelta: textDelta, emit: emit) } }
            }
        } else if let call = part["functionCall"] {
            try functionCall(call, offset: offset, textDelta: textDelta, emit: emit)
        } else if let data = part["inlineData"], let mediaType = data["mimeType"]?.string,
            let base64 = data["data"]?.string
        {
            try emit(.file(url: "data:\(mediaType);base64,\(base64)", mediaType: mediaType))
        } else if let text = part["text"], text.isNull {
            // `{"text": null}` is nothing, as "" is.
        } else {
            // Kept whole, named by its first member (`executableCode`, `codeExecutionResult`,
            // `thoughtSignature` alone, ...).
            unknownUnitCount += 1
            var kind = "part"
            part.forEachMember { key, _ in if kind == "part", let name = key.string { kind = name } }
            try emit(.unknown(type: kind, raw: part.jsonValue))
        }
    }

    /// At the end of the array: ends open parts, then emits the one `.finish` and `.done` when a
    /// finish reason came (`tool-calls` for `STOP` after function calls); throws
    /// ``StreamError/Kind/truncated`` when neither a finish reason nor an error came.
    @_spi(Dialects)
    public mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        try parts.closeAll(textDelta: textDelta, emit: emit)
        // A call still streaming ends with what came when the reply finished; cut short, it stays
        // streaming (the assembler keeps its partial input) and the stream is truncated.
        if streamedCall != nil, finishRaw != nil { try endStreamedCall(emit: emit) }
        if let raw = finishRaw, var reason = finishReason {
            if reason == .stop && toolCallCount > 0 { reason = .toolCalls }
            finishRaw = nil
            try emit(.finish(reason: reason, rawReason: raw))
            return try emit(.done)
        }
        if sawError { return }
        throw StreamError(
            .truncated, message: "the stream ended before a candidate's finishReason", field: "finishReason")
    }
}
