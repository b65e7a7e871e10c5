// The home protocol: the AI SDK UI message stream (v1) as Chatbase speaks it.
//
// SSE events whose data is one JSON object with a `type`, ended by `data: [DONE]`.
// Chatbase's variants are accepted too: `text-delta` without an `id` (the part is then
// "text-0"), `finish.messageMetadata`, `message-metadata`, and errors as `{errorText}` or as
// `{error:{code,message}}`. The conversation ID is announced once, from whichever of `start`,
// `message-metadata` or `finish` metadata reveals it first. Unknown chunk types are counted and
// kept whole (`.unknown`).

import ChatStreamFraming
import ChatStreamJSON

/// Decodes the AI SDK UI message stream (Chatbase's streamed replies) into ``StreamEvent``s.
public struct UIMessageStreamDialect: StreamDialect {
    public typealias Framer = ServerSentEventDecoder

    let parser: UnitParser
    var partIDs = RepeatedStringCache()
    /// The tool call ID of the last tool-input delta read by position.
    var toolCallIDs = RepeatedStringCache()
    private var conversationAnnounced = false
    private var sawTerminator = false
    /// The `finish` chunk's event, held until `[DONE]` or the end of the input.
    private var heldFinish: StreamEvent?
    private var sawError = false
    public private(set) var unknownUnitCount = 0

    /// The part ID used for `text-delta` chunks that carry none (older servers).
    public static let defaultTextPartID = "text-0"

    public init(configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()) {
        parser = UnitParser(configuration: configuration.json)
    }

    /// Decodes one SSE event: a chunk or `[DONE]`: text deltas to `textDelta` (their text lent), every other event to `emit`.
    @_spi(Dialects)
    public mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws {
        // Past `[DONE]` nothing is read (counted), so the one finish stays after all content.
        if sawTerminator {
            unknownUnitCount += 1
            return
        }
        if unit.dataEquals("[DONE]") {
            sawTerminator = true
            try emitHeldFinish(textDelta: textDelta, emit: emit)
            try emit(.done)
            return
        }
        if try decodeDeltaByPosition(unit, textDelta: textDelta, emit: emit) { return }
        let offset = unit.streamOffset
        try parser.lent.parse(unit, eventType: nil) { root in
            // The usual chunk, `{"type":"text-delta","id":…,"delta":"…"}`, read by position;
            // any other shape (or a delta that is not a string) goes the general way below.
            if let (type, id, delta) = root.scalarMembersInOrder("type", "id", "delta"), type.isString("text-delta") {
                // Handed over only when both are strings.
                if let partID = partIDs.string(id),
                    try delta.withUTF8({ try textDelta(partID, CheckedUTF8(unchecked: $0)) }) != nil
                {
                    return
                }
            }
            // One pass finds the fields of the hot path (nils when the chunk is not an object).
            let (typeElement, idElement, deltaElement) = root.members("type", "id", "delta")
            guard let type = typeElement else {
                guard root.kind == .object else {
                    throw StreamError(.malformed, message: "a chunk must be a JSON object", byteOffset: offset)
                }
                throw StreamError(
                    .malformed, message: "a chunk needs a \"type\"", byteOffset: offset, field: "type")
            }
            if type.isString("text-delta") {
                // The hot path: handed over straight from here, no optional event to copy and destroy.
                let handed: Void? = try deltaElement?.withUTF8 { text in
                    try textDelta(
                        partIDs.string(idElement) ?? Self.defaultTextPartID, CheckedUTF8(unchecked: text))
                }
                guard handed != nil else {
                    throw StreamError.missingString("delta", eventType: "text-delta", offset: offset)
                }
            } else {
                try decodeOther(root, type: type, offset: offset, textDelta: textDelta, emit: emit)
            }
        }
    }

    /// Every chunk type but `text-delta`.
    private mutating func decodeOther(
        _ root: JSONElement, type: JSONElement, offset: Int, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        var event: StreamEvent? = nil
        var extra: [StreamEvent] = []
        var unknown = false
        if type.isString("reasoning-delta") {
            event = .reasoningDelta(
                id: partIDs.string(root["id"]) ?? "reasoning-0",
                delta: try root.requiredString("delta", eventType: "reasoning-delta", offset: offset))
        } else if type.isString("tool-input-delta") {
            event = .toolInputDelta(
                id: try root.requiredString("toolCallId", eventType: "tool-input-delta", offset: offset),
                delta: try root.requiredString("inputTextDelta", eventType: "tool-input-delta", offset: offset))
        } else if type.isString("text-start") {
            event = .textStart(id: root["id"]?.string ?? Self.defaultTextPartID)
        } else if type.isString("text-end") {
            event = .textEnd(id: root["id"]?.string ?? Self.defaultTextPartID)
        } else if type.isString("reasoning-start") {
            event = .reasoningStart(id: root["id"]?.string ?? "reasoning-0")
        } else if type.isString("reasoning-end") {
            event = .reasoningEnd(id: root["id"]?.string ?? "reasoning-0")
        } else if type.isString("start") {
            event = .messageStart(id: root["messageId"]?.string)
            if let metadata = root["messageMetadata"] { extra = metadataEvents(metadata) }
        } else if type.isString("start-step") {
            event = .stepStart
        } else if type.isString("finish-step") {
            event = .stepFinish
        } else if type.isString("message-metadata") {
            if let metadata = root["messageMetadata"] { extra = metadataEvents(metadata) }
        } else if type.isString("finish") {
            var raw = root["finishReason"]?.string
            if let metadata = root["messageMetadata"] {
                extra = metadataEvents(metadata)
                raw = raw ?? metadata["finishReason"]?.string
            }
            // Held for `[DONE]` (or the end of the input): a repeated `finish` replaces it, and
            // content after it still comes before it.
            heldFinish = .finish(reason: raw.map(StreamFinishReason.init(normalizing:)), rawReason: raw)
        } else if type.isString("tool-input-start") {
            let name = "tool-input-start"
            event = .toolCallStart(
                id: try root.requiredString("toolCallId", eventType: name, offset: offset),
                name: try root.requiredString("toolName", eventType: name, offset: offset),
                providerExecuted: root["providerExecuted"]?.bool ?? false)
        } else if type.isString("tool-input-available") {
            let name = "tool-input-available"
            let id = try root.requiredString("toolCallId", eventType: name, offset: offset)
            let toolName = try root.requiredString("toolName", eventType: name, offset: offset)
            // `providerExecuted` may come here only (no `tool-input-start`, or one without it):
            // announced as a start that says so, which the assembler merges into the call.
            if root["providerExecuted"]?.bool == true {
                try emit(.toolCallStart(id: id, name: toolName, providerExecuted: true))
            }
            event = .toolInputAvailable(
                id: id, name: toolName, input: root["input"]?.jsonValue ?? .object(JSONObject()))
        } else if type.isString("tool-input-error") {
            let name = "tool-input-error"
            event = .toolInputError(
                id: try root.requiredString("toolCallId", eventType: name, offset: offset),
                name: root["toolName"]?.string,
                errorText: root["errorText"]?.string ?? "invalid tool input")
        } else if type.isString("tool-output-available") {
            event = .toolResult(
                id: try root.requiredString("toolCallId", eventType: "tool-output-available", offset: offset),
                name: root["toolName"]?.string, output: root["output"]?.jsonValue ?? .null,
                preliminary: root["preliminary"]?.bool ?? false)
        } else if type.isString("tool-output-error") {
            event = .toolOutputError(
                id: try root.requiredString("toolCallId", eventType: "tool-output-error", offset: offset),
                errorText: root["errorText"]?.string ?? "tool failed")
        } else if type.isString("tool-output-denied") {
            event = .toolOutputError(
                id: try root.requiredString("toolCallId", eventType: "tool-output-denied", offset: offset),
                errorText: "tool execution denied")
        } else if type.isString("error") {
            event = .error(errorInfo(root))
        } else if type.isString("abort") {
            event = .error(
                StreamErrorInfo(code: "ABORTED", message: root["reason"]?.string ?? "the stream was aborted"))
        } else if type.isString("source-url") {
            event = .source(
                StreamSource(
                    id: root["sourceId"]?.string ?? "",
                    url: try root.requiredString("url", eventType: "source-url", offset: offset),
                    title: root["title"]?.string))
        } else if type.isString("source-document") {
            event = .source(
                StreamSource(
                    id: root["sourceId"]?.string ?? "", title: root["title"]?.string,
                    mediaType: root["mediaType"]?.string, filename: root["filename"]?.string))
        } else if type.isString("file") {
            event = .file(
                url: try root.requiredString("url", eventType: "file", offset: offset),
                mediaType: root["mediaType"]?.string ?? "application/octet-stream")
        } else if let name = type.withUTF8({
            $0.starts(with: "data-".utf8) ? String(decoding: $0.dropFirst(5), as: UTF8.self) : nil
        }) ?? nil {
            event = .data(
                name: name, id: root["id"]?.string, data: root["data"]?.jsonValue ?? .null,
                transient: root["transient"]?.bool ?? false)
        } else if type.isString("reset-step") || type.isString("tool-approval-request")
            || type.isString("tool-approval-response")
        {
            // Known, and nothing a message keeps.
        } else {
            unknown = true
        }
        if unknown {
            // Kept whole: a chunk type this version does not read still reaches the app.
            unknownUnitCount += 1
            try emit(.unknown(type: type.string ?? "", raw: root.jsonValue))
        }
        if let event {
            if case .error = event { sawError = true }
            try emit(event)
        }
        for event in extra { try emit(event) }
    }

    @_spi(Dialects)
    public mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws {
        try emitHeldFinish(textDelta: textDelta, emit: emit)
        guard sawTerminator || sawError else {
            throw StreamError(.truncated, message: "the stream ended before data: [DONE]")
        }
    }

    /// Emits the `finish` chunk's event held for the end of the stream, if any.
    private mutating func emitHeldFinish(textDelta: TextDeltaSink, emit: EventSink) throws {
        guard let event = heldFinish else { return }
        heldFinish = nil
        try emit(event)
    }

    /// Events for a `messageMetadata` object: the conversation (first time only), then the metadata.
    private mutating func metadataEvents(_ metadata: JSONElement) -> [StreamEvent] {
        guard metadata.kind == .object else { return [] }
        var events: [StreamEvent] = []
        let conversationId = metadata["conversationId"]?.string
        if let conversationId, !conversationAnnounced {
            conversationAnnounced = true
            events.append(.conversationAssigned(id: conversationId))
        }
        events.append(
            .metadata(
                StreamMetadata(
                    messageId: metadata["messageId"]?.string, userMessageId: metadata["userMessageId"]?.string,
                    conversationId: conversationId, userId: metadata["userId"]?.string,
                    usage: metadata["usage"]?.jsonValue, raw: metadata.jsonValue)))
        return events
    }

    private func errorInfo(_ root: JSONElement) -> StreamErrorInfo {
        if let text = root["errorText"]?.string {
            // `code` beside it: what ChatStream's encoder sends for an error that had one.
            return StreamErrorInfo(code: root["code"]?.string, message: text)
        }
        if let error = root["error"] {
            if let text = error.string { return StreamErrorInfo(code: nil, message: text) }
            return StreamErrorInfo(
                code: error["code"]?.string, message: error["message"]?.string ?? "the server reported an error")
        }
        return StreamErrorInfo(code: nil, message: root["message"]?.string ?? "the server reported an error")
    }
}
