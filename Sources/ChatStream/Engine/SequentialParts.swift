// SequentialParts and whole tool inputs: shared by the formats that send no part ends and whole
// tool calls (AI SDK v4, Ollama, Gemini).

import ChatStreamJSON

/// Tracks the one open text or reasoning part of a format that sends no part ends: a part ends
/// when the other kind begins, at a tool call, and at the finish. IDs are `text-N` and
/// `reasoning-N`, N counting parts in order.
struct SequentialParts {
    private(set) var textId: String?
    private(set) var reasoningId: String?
    private var count = 0

    /// A text delta: lent to `textDelta` with the open text part's ID, a
    /// text part started first when none is open.
    mutating func text(_ delta: UnsafeRawBufferPointer, textDelta: TextDeltaSink, emit: EventSink) throws {
        try textDelta(try openText(textDelta: textDelta, emit: emit), CheckedUTF8(unchecked: delta))
    }

    /// The open text part's ID; a text part is started first when none is open.
    @inline(__always)
    private mutating func openText(textDelta: TextDeltaSink, emit: EventSink) throws -> String {
        if let id = textId { return id }
        return try startText(textDelta: textDelta, emit: emit)
    }

    /// Ends the open part and starts text part `text-N`.
    @inline(never)
    private mutating func startText(textDelta: TextDeltaSink, emit: EventSink) throws -> String {
        try closeAll(textDelta: textDelta, emit: emit)
        let id = "text-\(count)"
        textId = id
        count += 1
        try emit(.textStart(id: id))
        return id
    }

    /// A reasoning delta, as ``text(_:into:)`` is for text (owned: only text deltas are lent).
    mutating func reasoning(_ delta: consuming String, textDelta: TextDeltaSink, emit: EventSink) throws {
        if reasoningId == nil {
            try closeAll(textDelta: textDelta, emit: emit)
            reasoningId = "reasoning-\(count)"
            count += 1
            try emit(.reasoningStart(id: reasoningId!))
        }
        try emit(.reasoningDelta(id: reasoningId!, delta: delta))
    }

    /// Ends the open text or reasoning part, if any.
    mutating func closeAll(textDelta: TextDeltaSink, emit: EventSink) throws {
        if let id = textId {
            textId = nil
            try emit(.textEnd(id: id))
        }
        if let id = reasoningId {
            reasoningId = nil
            try emit(.reasoningEnd(id: id))
        }
    }
}

/// Emits a whole tool input: one `.toolInputDelta` with its JSON text, then `.toolInputAvailable`.
/// `arguments` may be an object (or any JSON value), or a string holding JSON text (then parsed
/// with `parser`, or a fresh one; invalid text gives `.toolInputError`). Missing means `{}`.
func emitWholeToolInput(
    id: String, name: String, arguments: JSONElement?, parser: JSONParser?, textDelta: TextDeltaSink, emit: EventSink
) throws {
    guard let arguments, !arguments.isNull else {
        try emit(.toolInputDelta(id: id, delta: "{}"))
        return try emit(.toolInputAvailable(id: id, name: name, input: .object(JSONObject())))
    }
    if let text = arguments.string {
        if !text.isEmpty { try emit(.toolInputDelta(id: id, delta: text)) }
        if text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return try emit(.toolInputAvailable(id: id, name: name, input: .object(JSONObject())))
        }
        do {
            let input = try (parser ?? JSONParser()).parseValue(text.utf8)
            try emit(.toolInputAvailable(id: id, name: name, input: input))
        } catch let error as JSONError {
            try emit(.toolInputError(id: id, name: name, errorText: "tool input is not valid JSON: \(error)"))
        }
        return
    }
    let input = arguments.jsonValue
    try emit(.toolInputDelta(id: id, delta: input.jsonText))
    try emit(.toolInputAvailable(id: id, name: name, input: input))
}
