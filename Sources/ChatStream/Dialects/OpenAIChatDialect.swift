// OpenAIChatDialect: OpenAI Chat Completions streams, and the vendors that copy them
// (Azure, DeepSeek, Groq, Mistral, xAI, Anthropic's compatible endpoint, ...).
//
// Wire: SSE `data:` chunks
//   {id, object:"chat.completion.chunk", choices:[{index, delta:{role?, content?, refusal?,
//    reasoning_content?, tool_calls?:[{index, id?, type?, function:{name?, arguments?}}]}, finish_reason}], usage?}
// then `data: [DONE]`. Errors may arrive as `data: {"error":{code?, type?, message}}`.
//
// Mapping, per choice k (choice 0 needs no marker; `.choice(index: k)` precedes events of
// another choice whenever the current one changes):
//   first chunk                    -> messageStart(id: chunk id)
//   delta.reasoning_content (or reasoning) -> reasoningStart/Delta("reasoning-k"), ended when text,
//                                     a tool call or the finish follows
//   delta.content                  -> textStart/Delta("text-k"); textEnd at the choice's finish
//   delta.refusal                  -> refusalDelta("refusal-k")
//   delta.tool_calls[i]            -> keyed by `index` (which may start at 1); id and name arrive once
//                                     (a later empty name never overwrites); toolCallStart when the name
//                                     is known, then toolInputDelta per piece of `arguments`
//   finish_reason                  -> held (the last one given wins); at [DONE] the choice's tool calls
//                                     are completed (toolInputAvailable / toolInputError), its parts
//                                     ended, and its one finish(reason:rawReason:) emitted
//   usage (object)                 -> metadata(usage:), after the chunk's choices
//   {"error":{...}}                -> error(code: code ?? type, message)
//   [DONE]                         -> every choice finished as above (with a nil reason when none came),
//                                     then done
//   end of input without [DONE]    -> the same when every choice gave a finish_reason (Writer and other
//                                     servers send no [DONE]); otherwise truncated
// The vendor variants (content-part arrays, reasoning fields, odd finish reasons) are listed in
// `OpenAIChatDialect.variants` (OpenAIChatDialect+Variants.swift).
// Finishing a choice parses its tool arguments with the same parser, which is why it waits for
// `[DONE]` (never parsed) or the end of the input.

import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

/// Decodes OpenAI Chat Completions streams (`chat.completion.chunk` events) into ``StreamEvent``s.
///
/// ```swift
/// var dialect = OpenAIChatDialect(configuration: StreamDecoderConfiguration())
/// try dialect.decode(unit, textDelta: textDelta, emit: emit)   // once per SSE event
/// try dialect.finish(textDelta: textDelta, emit: emit)           // at the end of the input
/// ```
public struct OpenAIChatDialect: StreamDialect {
    /// Chat Completions streams are Server-Sent Events.
    public typealias Framer = ServerSentEventDecoder

    /// How many units were skipped because nothing in them was understood, plus the content
    /// parts of kinds this dialect does not read (see ``variants``).
    public private(set) var unknownUnitCount = 0

    /// The highest choice index accepted; larger ones are malformed (they would size the state).
    static let maxChoiceIndex = 1023
    static let eventType = "chat.completion.chunk"

    let parser: UnitParser
    var messageStarted = false
    private var terminated = false
    private var errorSeen = false
    private var currentChoice = 0
    var choices: [Choice] = []
    private var bytesSeen = 0
    /// The last chunk read by position, as bytes around its text or arguments, and its choice and
    /// tool call (nil for text): the next chunk of that shape is read through it
    /// (OpenAIChatDialect+ChunksByPosition).
    var repeatedChunk = JSONScan.RepeatedShape()
    var repeatedChunkRead: (choice: Int, toolCall: Int?) = (0, nil)

    /// What is open in one choice.
    struct Choice {
        var seen = false
        var textOpen = false
        var reasoningOpen = false
        var finished = false
        /// The last finish reason the wire gave, held until `[DONE]` (or the end of the input), so
        /// the choice's one `finish` comes after all of its content however often it repeats.
        var finishRaw: String?
        /// The text part's ID ("text-k"), made once.
        var textID = ""
        /// Calls by their wire `index`, in the order they first appeared.
        var toolCalls: [(index: Int, call: OpenAIToolCall)] = []
    }

    /// A decoder with the configuration's JSON limits.
    public init(configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()) {
        parser = UnitParser(configuration: configuration.json)
    }

    /// Decodes one SSE event: a chunk, an error body or `[DONE]`: text deltas to `textDelta` (their text lent), every other event to `emit`.
    @_spi(Dialects)
    public mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        bytesSeen = max(bytesSeen, unit.streamOffset + unit.data.count)
        if unit.dataEquals("[DONE]") {
            guard !terminated else { return }
            for k in choices.indices where choices[k].seen && !choices[k].finished {
                try finishChoice(k, raw: choices[k].finishRaw, textDelta: textDelta, emit: emit)
            }
            terminated = true
            try emit(.done)
            return
        }
        if terminated {
            unknownUnitCount += 1
            return
        }
        if messageStarted, try decodeContentChunkByPosition(unit, textDelta: textDelta, emit: emit) {
            return
        }
        let usage = try parser.lent.parse(unit, eventType: Self.eventType) { root in
            try readChunk(root, offset: unit.streamOffset, textDelta: textDelta, emit: emit)
        }
        if let usage {
            try emit(.metadata(StreamMetadata(usage: usage)))
        }
    }

    /// Completes open tool calls and parts; throws ``StreamError/Kind/truncated`` unless `[DONE]`
    /// or an error body arrived.
    @_spi(Dialects)
    public mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        guard !terminated else { return }
        // Servers that send no `[DONE]` (Writer's Palmyra API, some relays): a reply in which
        // every choice gave its finish reason is complete at a clean end of the input, so `done`
        // follows the finishes; a stream that stops before that is cut mid-reply (truncated).
        let complete =
            !errorSeen && choices.contains(where: \.seen)
            && choices.allSatisfy { !$0.seen || $0.finished || $0.finishRaw != nil }
        for k in choices.indices where choices[k].seen && !choices[k].finished {
            if let raw = choices[k].finishRaw {
                try finishChoice(k, raw: raw, textDelta: textDelta, emit: emit)
                continue
            }
            try select(k, textDelta: textDelta, emit: emit)
            try completeToolCalls(k, textDelta: textDelta, emit: emit)
            try closeParts(k, textDelta: textDelta, emit: emit)
            choices[k].finished = true
        }
        if complete { return try emit(.done) }
        guard !errorSeen else { return }
        throw StreamError(
            .truncated, message: "the stream ended before data: [DONE] with a choice that gave no finish_reason",
            byteOffset: bytesSeen,
            eventType: Self.eventType)
    }

    // MARK: - Reading a chunk (the parser's element is valid only here)

    /// Reads one chunk, emitting what can be emitted now; returns its usage.
    private mutating func readChunk(
        _ root: JSONElement, offset: Int,
        textDelta: TextDeltaSink, emit: EventSink
    ) throws -> JSONTree? {
        guard root.kind == .object else {
            throw StreamError(
                .malformed, message: "a chunk must be a JSON object", byteOffset: offset, eventType: Self.eventType)
        }
        // One pass over the chunk for the members read here.
        let (errorElement, choicesElement, usageElement) = root.members("error", "choices", "usage")
        if let error = errorElement, !error.isNull {
            errorSeen = true
            try emit(.error(OpenAIWire.errorInfo(error)))
            return nil
        }
        var understood = false
        if let choicesElement, !choicesElement.isNull {
            guard choicesElement.kind == .array else {
                throw malformed("choices is not an array", field: "choices", offset: offset)
            }
            understood = true
            if !messageStarted {
                messageStarted = true
                try emit(.messageStart(id: OpenAIWire.scalarText(root["id"])))
            }
            var position = 0
            try choicesElement.forEachElement { choice in
                try readChoice(
                    choice, position: position, offset: offset, textDelta: textDelta, emit: emit)
                position += 1
            }
            if position == 0 { topLevelFinish(root) }
        } else {
            topLevelFinish(root)
        }
        var usage: JSONTree? = nil
        if let usageElement, usageElement.kind == .object {
            usage = usageElement.jsonValue
            understood = true
        }
        if !understood { unknownUnitCount += 1 }
        return usage
    }

    private mutating func readChoice(
        _ choice: JSONElement, position: Int, offset: Int,
        textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        guard choice.kind == .object else {
            throw malformed("a choice is not an object", field: "choices[\(position)]", offset: offset)
        }
        var k = position
        let (indexElement, deltaElement, reasonElement) = choice.members("index", "delta", "finish_reason")
        if let indexElement {
            guard let index = indexElement.int, index >= 0, index <= Self.maxChoiceIndex else {
                throw malformed(
                    "choice index is not an integer in 0...\(Self.maxChoiceIndex)", field: "choices[\(position)].index",
                    offset: offset)
            }
            k = index
        }
        if choices.count <= k { choices.append(contentsOf: repeatElement(Choice(), count: k + 1 - choices.count)) }
        choices[k].seen = true
        if let delta = deltaElement, !delta.isNull {
            guard delta.kind == .object else {
                throw malformed("delta is not an object", field: "choices[\(position)].delta", offset: offset)
            }
            try readDelta(delta, choice: k, offset: offset, textDelta: textDelta, emit: emit)
        }
        if let reason = reasonElement, let raw = OpenAIWire.finishReasonText(reason) {
            choices[k].finishRaw = raw
        }
    }

    private mutating func readDelta(
        _ delta: JSONElement, choice k: Int, offset: Int,
        textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        // Reasoning, in one pass over the delta: see `variants` for the fields and their order.
        let (reasoningContent, reasoning, details) = delta.members(
            "reasoning_content", "reasoning", "reasoning_details")
        if reasoningContent != nil || reasoning != nil || details != nil {
            try OpenAIWire.forEachReasoningText(content: reasoningContent, reasoning: reasoning, details: details) {
                try emitReasoning($0, choice: k, textDelta: textDelta, emit: emit)
            }
        }
        if let content = delta["content"], !content.isNull {
            switch content.kind {
            case .string:
                if OpenAIWire.isNonEmptyString(content) {
                    try emitText(content, choice: k, textDelta: textDelta, emit: emit)
                }
            case .array:
                unknownUnitCount += try OpenAIWire.forEachContentPart(
                    content, field: "choices[].delta.content", eventType: Self.eventType, offset: offset,
                    text: { try self.emitText($0, choice: k, textDelta: textDelta, emit: emit) },
                    reasoning: { try self.emitReasoning($0, choice: k, textDelta: textDelta, emit: emit) },
                    unknown: { part in
                        try self.select(k, textDelta: textDelta, emit: emit)
                        try emit(.unknown(type: part["type"]?.string ?? "", raw: part.jsonValue))
                    })
            default:
                throw malformed(
                    "content is neither a string nor an array of parts", field: "choices[].delta.content",
                    offset: offset)
            }
        }
        if let refusal = try OpenAIWire.text(
            delta, "refusal", field: "choices[].delta.refusal", eventType: Self.eventType, offset: offset)
        {
            try select(k, textDelta: textDelta, emit: emit)
            try endReasoning(k, textDelta: textDelta, emit: emit)
            try emit(.refusalDelta(id: "refusal-\(k)", delta: refusal))
        }
        if let calls = delta["tool_calls"], !calls.isNull {
            guard calls.kind == .array else {
                throw malformed("tool_calls is not an array", field: "choices[].delta.tool_calls", offset: offset)
            }
            var position = 0
            try calls.forEachElement { call in
                try readToolCallDelta(
                    call, position: position, choice: k, offset: offset, textDelta: textDelta, emit: emit)
                position += 1
            }
        }
    }

    /// A piece of choice `k`'s text (a non-empty string element), started when needed.
    private mutating func emitText(
        _ text: JSONElement, choice k: Int,
        textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        let id = try openText(k, textDelta: textDelta, emit: emit)
        try text.withUTF8 { try textDelta(id, CheckedUTF8(unchecked: $0)) }
    }

    /// Choice `k`'s text part ID, after selecting the choice, ending its reasoning and starting
    /// the part as needed: what comes before each piece of its text.
    mutating func openText(_ k: Int, textDelta: TextDeltaSink, emit: EventSink) throws -> String {
        try select(k, textDelta: textDelta, emit: emit)
        try endReasoning(k, textDelta: textDelta, emit: emit)
        let id = textID(k)
        if !choices[k].textOpen {
            choices[k].textOpen = true
            try emit(.textStart(id: id))
        }
        return id
    }

    /// A piece of choice `k`'s reasoning, started when needed.
    private mutating func emitReasoning(_ text: String, choice k: Int, textDelta: TextDeltaSink, emit: EventSink) throws
    {
        try select(k, textDelta: textDelta, emit: emit)
        if !choices[k].reasoningOpen {
            choices[k].reasoningOpen = true
            try emit(.reasoningStart(id: "reasoning-\(k)"))
        }
        try emit(.reasoningDelta(id: "reasoning-\(k)", delta: text))
    }

    /// A `finish_reason` beside the choices, on a chunk whose `choices` is empty or absent: the
    /// reason of every choice seen and not given one yet, or of choice 0 when none was seen.
    private mutating func topLevelFinish(_ root: JSONElement) {
        guard let reason = root["finish_reason"], let raw = OpenAIWire.finishReasonText(reason) else { return }
        var given = false
        for k in choices.indices where choices[k].seen && !choices[k].finished && choices[k].finishRaw == nil {
            choices[k].finishRaw = raw
            given = true
        }
        if !given && choices.isEmpty {
            choices.append(Choice())
            choices[0].seen = true
            choices[0].finishRaw = raw
        }
    }

    private mutating func readToolCallDelta(
        _ entry: JSONElement, position: Int, choice k: Int, offset: Int, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        guard entry.kind == .object else {
            throw malformed(
                "a tool call is not an object", field: "choices[].delta.tool_calls[\(position)]", offset: offset)
        }
        let wireIndex = entry["index"]?.int ?? position
        let slot: Int
        if let found = choices[k].toolCalls.firstIndex(where: { $0.index == wireIndex }) {
            slot = found
        } else {
            slot = choices[k].toolCalls.count
            choices[k].toolCalls.append((wireIndex, OpenAIToolCall()))
        }
        if choices[k].toolCalls[slot].call.id == nil, OpenAIWire.isNonEmptyString(entry["id"]) {
            choices[k].toolCalls[slot].call.id = entry["id"]?.string
        }
        let function = entry["function"]
        if choices[k].toolCalls[slot].call.name == nil, OpenAIWire.isNonEmptyString(function?["name"]) {
            choices[k].toolCalls[slot].call.name = function?["name"]?.string
        }
        if !choices[k].toolCalls[slot].call.started && choices[k].toolCalls[slot].call.name != nil {
            try select(k, textDelta: textDelta, emit: emit)
            try endReasoning(k, textDelta: textDelta, emit: emit)
            // The fallback ID is formatted only when needed (an autoclosure), not on every delta.
            try choices[k].toolCalls[slot].call.start(
                fallbackID: "call-\(k)-\(wireIndex)", textDelta: textDelta, emit: emit)
        }
        guard let arguments = function?["arguments"], !arguments.isNull else { return }
        if choices[k].toolCalls[slot].call.started { try select(k, textDelta: textDelta, emit: emit) }
        switch arguments.kind {
        case .string:
            try arguments.withUTF8 { try choices[k].toolCalls[slot].call.append($0, textDelta: textDelta, emit: emit) }
        case .object:
            // A few vendors send the arguments as an object rather than as JSON text.
            try arguments.jsonValue.jsonBytes.withUnsafeBytes {
                try choices[k].toolCalls[slot].call.append($0, textDelta: textDelta, emit: emit)
            }
        default:
            throw malformed(
                "function.arguments is not a string",
                field: "choices[].delta.tool_calls[\(position)].function.arguments",
                offset: offset)
        }
    }

    // MARK: - Ending parts and choices (the parser is free again here)

    private mutating func finishChoice(_ k: Int, raw: String?, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard !choices[k].finished else { return }
        try select(k, textDelta: textDelta, emit: emit)
        try completeToolCalls(k, textDelta: textDelta, emit: emit)
        try closeParts(k, textDelta: textDelta, emit: emit)
        choices[k].finished = true
        try emit(.finish(reason: raw.map(StreamFinishReason.init(normalizing:)), rawReason: raw))
    }

    private mutating func completeToolCalls(_ k: Int, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard !choices[k].toolCalls.isEmpty else { return }
        try endReasoning(k, textDelta: textDelta, emit: emit)
        choices[k].toolCalls.sort { $0.index < $1.index }
        for slot in choices[k].toolCalls.indices {
            let fallbackID = "call-\(k)-\(choices[k].toolCalls[slot].index)"
            try choices[k].toolCalls[slot].call.complete(
                fallbackID: fallbackID, parser: parser.json, textDelta: textDelta, emit: emit)
        }
    }

    private mutating func closeParts(_ k: Int, textDelta: TextDeltaSink, emit: EventSink) throws {
        try endReasoning(k, textDelta: textDelta, emit: emit)
        if choices[k].textOpen {
            choices[k].textOpen = false
            try emit(.textEnd(id: textID(k)))
        }
    }

    private mutating func endReasoning(_ k: Int, textDelta: TextDeltaSink, emit: EventSink) throws {
        if choices[k].reasoningOpen {
            choices[k].reasoningOpen = false
            try emit(.reasoningEnd(id: "reasoning-\(k)"))
        }
    }

    /// Choice `k`'s text part ID, made the first time it is needed.
    private mutating func textID(_ k: Int) -> String {
        if choices[k].textID.isEmpty { choices[k].textID = "text-\(k)" }
        return choices[k].textID
    }

    /// Emits `.choice(index:)` when events for another choice follow.
    mutating func select(_ k: Int, textDelta: TextDeltaSink, emit: EventSink) throws {
        if k != currentChoice {
            currentChoice = k
            try emit(.choice(index: k))
        }
    }

    private func malformed(_ message: String, field: String, offset: Int) -> StreamError {
        .malformedUnit(message, byteOffset: offset, eventType: Self.eventType, field: field)
    }
}
