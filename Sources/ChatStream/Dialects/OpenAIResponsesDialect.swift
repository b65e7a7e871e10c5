// OpenAIResponsesDialect: OpenAI Responses API streams (also Azure OpenAI and GitHub Copilot).
//
// Wire: SSE events `event: <type>` + `data: {"type": <type>, ...}`; the payload's `type` is what
// is read (some relays drop the `event:` lines). The stream ends with `response.completed`,
// `response.incomplete` or `response.failed`; a `[DONE]` after that is ignored.
//
// Mapping (output items are keyed by `output_index`, parts by `content_index` / `summary_index`,
// because some relays change `item_id` on every event; a part's ID is its item's first ID, with
// ":<index>" appended for parts after the first):
//   response.created                         -> messageStart(id: response.id)
//   output_item.added function_call          -> toolCallStart(call_id, name, providerExecuted: false)
//   function_call_arguments.delta            -> toolInputDelta
//   function_call_arguments.done / output_item.done -> toolInputAvailable (or toolInputError)
//   output_item.added web_search_call, ...   -> toolCallStart(item id, "web_search", providerExecuted: true);
//                                               at output_item.done toolInputAvailable(action) + toolResult(item)
//   output_text.delta                        -> textStart (first) + textDelta; output_text.done -> textEnd
//   refusal.delta                            -> refusalDelta
//   reasoning_summary_part.added / _text.delta / _part.done (and reasoning_text.*) -> reasoningStart/Delta/End
//   output_text.annotation.added url_citation / file_citation -> source
//   error                                    -> error(code: code ?? type, message)
//   response.completed                       -> metadata(usage), finish(stop, or tool-calls when function
//                                               calls were made), done
//   response.incomplete                      -> finish(incomplete_details.reason: max_output_tokens -> length), done
//   response.failed                          -> error (unless an `error` event came first), finish(error), done
// A `response.created` after the end starts the next response (a new messageStart).
// Completing a tool call parses its arguments with the same parser, so handlers that need it
// return a follow-up that runs after the parser is done with the unit.
// An `output_text.delta` goes to the sink as the bytes of its part ID and text (its part's
// textStart before the first).

import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

/// Decodes OpenAI Responses API streams into ``StreamEvent``s.
///
/// ```swift
/// var dialect = OpenAIResponsesDialect(configuration: StreamDecoderConfiguration())
/// try dialect.decode(unit, textDelta: textDelta, emit: emit)   // once per SSE event
/// try dialect.finish(textDelta: textDelta, emit: emit)           // at the end of the input
/// ```
public struct OpenAIResponsesDialect: StreamDialect {
    /// Responses streams are Server-Sent Events.
    public typealias Framer = ServerSentEventDecoder

    /// How many units of a type this decoder does not map were skipped.
    public internal(set) var unknownUnitCount = 0

    let parser: UnitParser
    var responseStarted = false
    var terminated = false
    var errorSeen = false
    var madeToolCalls = false
    /// Output items by `output_index`. Any change forgets `lastDeltaPart`.
    var items: [Int: Item] = [:] {
        didSet { lastDeltaPart = nil }
    }
    /// The part the last text or reasoning delta went to, used again without a lookup while
    /// `items` is unchanged (a part's deltas come in a run).
    var lastDeltaPart: (outputIndex: Int, part: Int, id: String)?
    /// The last text delta read by position, as the bytes before its text, and its indexes: the
    /// next delta of that shape is read through it (OpenAIResponsesDialect+DeltasByPosition).
    var repeatedDelta = JSONScan.RepeatedShape()
    var repeatedDeltaIndexes: (output: Int?, content: Int?) = (nil, nil)
    var sourceCount = 0
    var bytesSeen = 0

    /// One output item of the response.
    struct Item {
        enum Kind: Equatable {
            case message, reasoning, functionCall, other
            /// A tool the provider runs (web search, file search, ...), by its tool name.
            case providerTool(String)
        }
        var kind: Kind
        /// The item's ID as first seen: the base of its part IDs.
        var id: String
        /// The text or reasoning parts that are open, by content or summary index.
        var openParts: [OpenPart] = []
        var call = OpenAIToolCall()
        var done = false

        /// The ID of part `index`: the item's own ID for part 0, `ID:index` for the others. An
        /// open part's ID was made when it opened, so a delta makes no string.
        func partID(_ index: Int) -> String {
            if index == 0 { return id }
            for part in openParts where part.index == index { return part.id }
            return "\(id):\(index)"
        }

        /// Where part `index` is in `openParts`.
        func openPosition(_ index: Int) -> Int? { openParts.firstIndex { $0.index == index } }
    }

    /// An open part: its content or summary index and its ID.
    struct OpenPart {
        var index: Int
        var id: String
    }

    /// Work that needs the parser after it has finished reading a unit.
    enum FollowUp {
        case none
        case completeCall(outputIndex: Int)
        case endResponse(ResponseEnd)
    }

    struct ResponseEnd {
        var usage: JSONTree?
        var reason: StreamFinishReason
        var rawReason: String
        var error: StreamErrorInfo?
    }

    /// A decoder with the configuration's JSON limits.
    public init(configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()) {
        parser = UnitParser(configuration: configuration.json)
    }

    /// Decodes one SSE event: text deltas to `textDelta` (their text lent), every other event to `emit`.
    @_spi(Dialects)
    public mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        bytesSeen = max(bytesSeen, unit.streamOffset + unit.data.count)
        if unit.dataEquals("[DONE]") { return }
        if let last = lastDeltaPart, !terminated,
            try decodeTextDeltaByPosition(unit, to: last, textDelta: textDelta)
        {
            return
        }
        let followUp = try parser.lent.parse(
            unit, eventType: unit.type.isEmpty || unit.typeEquals("message") ? nil : unit.typeString
        ) { root in
            try read(root, offset: unit.streamOffset, textDelta: textDelta, emit: emit)
        }
        switch followUp {
        case .none:
            break
        case .completeCall(let outputIndex):
            try completeCall(outputIndex, textDelta: textDelta, emit: emit)
        case .endResponse(let end):
            try endResponse(end, textDelta: textDelta, emit: emit)
        }
    }

    /// Completes open tool calls and parts; throws ``StreamError/Kind/truncated`` unless the
    /// response ended or an error event arrived.
    @_spi(Dialects)
    public mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        guard !terminated else { return }
        try closeAll(textDelta: textDelta, emit: emit)
        guard !errorSeen else { return }
        throw StreamError(
            .truncated, message: "the stream ended before response.completed", byteOffset: bytesSeen)
    }

    // MARK: - Dispatch (the parser's element is valid only here)

    private mutating func read(
        _ root: JSONElement, offset: Int,
        textDelta: TextDeltaSink, emit: EventSink
    ) throws -> FollowUp {
        guard root.kind == .object else {
            throw StreamError(.malformed, message: "an event must be a JSON object", byteOffset: offset)
        }
        guard let type = root["type"], type.kind == .string else {
            throw StreamError.missingString("type", eventType: nil, offset: offset)
        }
        let context = Context(root: root, type: type, offset: offset)
        if terminated && !type.isString("response.created") {
            unknownUnitCount += 1
            return .none
        }
        if type.isString("response.output_text.delta") {
            try self.textDelta(context, textDelta: textDelta, emit: emit)
        } else if type.isString("response.function_call_arguments.delta") {
            try argumentsDelta(context, textDelta: textDelta, emit: emit)
        } else if type.isString("response.reasoning_summary_text.delta") {
            try reasoningDelta(context, indexKey: "summary_index", textDelta: textDelta, emit: emit)
        } else if type.isString("response.reasoning_text.delta") {
            try reasoningDelta(context, indexKey: "content_index", textDelta: textDelta, emit: emit)
        } else if type.isString("response.refusal.delta") {
            try refusalDelta(context, textDelta: textDelta, emit: emit)
        } else if type.isString("response.output_item.added") {
            try itemAdded(context, textDelta: textDelta, emit: emit)
        } else if type.isString("response.output_item.done") {
            return try itemDone(context, textDelta: textDelta, emit: emit)
        } else if type.isString("response.function_call_arguments.done") {
            return try argumentsDone(context, textDelta: textDelta, emit: emit)
        } else if type.isString("response.output_text.done") || type.isString("response.content_part.done") {
            try closePart(context, indexKey: "content_index", textDelta: textDelta, emit: emit)
        } else if type.isString("response.reasoning_summary_part.added") {
            try reasoningPartAdded(context, textDelta: textDelta, emit: emit)
        } else if type.isString("response.reasoning_summary_part.done")
            || type.isString("response.reasoning_summary_text.done")
        {
            try closePart(context, indexKey: "summary_index", textDelta: textDelta, emit: emit)
        } else if type.isString("response.reasoning_text.done") {
            try closePart(context, indexKey: "content_index", textDelta: textDelta, emit: emit)
        } else if type.isString("response.output_text.annotation.added") {
            try annotationAdded(context, textDelta: textDelta, emit: emit)
        } else if type.isString("response.created") || type.isString("response.in_progress")
            || type.isString("response.queued")
        {
            if terminated { resetForNextResponse() }
            try startMessage(id: root["response"]?["id"]?.string, textDelta: textDelta, emit: emit)
        } else if type.isString("response.completed") {
            return .endResponse(
                ResponseEnd(
                    usage: usage(root), reason: madeToolCalls ? .toolCalls : .stop, rawReason: "completed", error: nil))
        } else if type.isString("response.incomplete") {
            let raw = root["response"]?["incomplete_details"]?["reason"]?.string ?? "incomplete"
            return .endResponse(
                ResponseEnd(
                    usage: usage(root), reason: StreamFinishReason(normalizing: raw), rawReason: raw, error: nil))
        } else if type.isString("response.failed") {
            var error: StreamErrorInfo? = nil
            if !errorSeen {
                if let info = root["response"]?["error"], info.kind == .object || info.kind == .string {
                    error = OpenAIWire.errorInfo(info)
                } else {
                    error = StreamErrorInfo(code: nil, message: "the response failed")
                }
            }
            return .endResponse(ResponseEnd(usage: usage(root), reason: .error, rawReason: "failed", error: error))
        } else if type.isString("error") {
            errorSeen = true
            if let nested = root["error"], nested.kind == .object {
                try emit(.error(OpenAIWire.errorInfo(nested)))
            } else {
                try emit(
                    .error(
                        StreamErrorInfo(
                            code: OpenAIWire.scalarText(root["code"]),
                            message: root["message"]?.string ?? "the server reported an error")))
            }
        } else if type.isString("response.content_part.added") || type.isString("response.refusal.done") {
            // Parts start with their first delta; refusals have no end event.
        } else if Self.isBuiltInToolProgress(type) {
            // A built-in tool's progress and its input's pieces: the finished item carries the
            // whole input (OpenAIResponsesDialect+Items, providerToolInput).
        } else {
            unknownUnitCount += 1
        }
        return .none
    }

    private func usage(_ root: JSONElement) -> JSONTree? {
        guard let usage = root["response"]?["usage"], usage.kind == .object else { return nil }
        return usage.jsonValue
    }

    // MARK: - Response boundaries (the parser is free again here)

    mutating func startMessage(id: String?, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard !responseStarted else { return }
        responseStarted = true
        try emit(.messageStart(id: id))
    }

    private mutating func resetForNextResponse() {
        responseStarted = false
        terminated = false
        errorSeen = false
        madeToolCalls = false
        items.removeAll()
    }

    private mutating func completeCall(_ outputIndex: Int, textDelta: TextDeltaSink, emit: EventSink) throws {
        guard let item = items[outputIndex], item.kind == .functionCall else { return }
        try items[outputIndex]!.call.complete(
            fallbackID: item.id, parser: parser.json, textDelta: textDelta, emit: emit)
    }

    /// Completes every tool call and ends every open part, in output order.
    private mutating func closeAll(textDelta: TextDeltaSink, emit: EventSink) throws {
        for outputIndex in items.keys.sorted() {
            if items[outputIndex]!.kind == .functionCall {
                try completeCall(outputIndex, textDelta: textDelta, emit: emit)
            }
            try closeParts(outputIndex, textDelta: textDelta, emit: emit)
        }
    }

    private mutating func endResponse(_ end: ResponseEnd, textDelta: TextDeltaSink, emit: EventSink) throws {
        try startMessage(id: nil, textDelta: textDelta, emit: emit)
        try closeAll(textDelta: textDelta, emit: emit)
        if let error = end.error {
            errorSeen = true
            try emit(.error(error))
        }
        if let usage = end.usage {
            try emit(.metadata(StreamMetadata(usage: usage)))
        }
        try emit(.finish(reason: end.reason, rawReason: end.rawReason))
        terminated = true
        try emit(.done)
    }
}

/// What every handler needs to know about the unit it reads.
struct ResponsesEventContext {
    var root: JSONElement
    var type: JSONElement
    var offset: Int

    /// The event type, for errors.
    var typeName: String { type.string ?? "" }

    func malformed(_ message: String, field: String) -> StreamError {
        .malformedUnit(message, byteOffset: offset, eventType: typeName, field: field)
    }
}

extension OpenAIResponsesDialect {
    typealias Context = ResponsesEventContext
}
