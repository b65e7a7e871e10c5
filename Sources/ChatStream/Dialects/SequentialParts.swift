// SequentialParts and whole tool inputs: shared by the formats that send no part ends and whole
// tool calls (AI SDK v4, Ollama, Gemini).

/// Tracks the one open text or reasoning part of a format that sends no part ends: a part ends
/// when the other kind begins, at a tool call, and at the finish. IDs are `text-N` and
/// `reasoning-N`, N counting parts in order.
struct SequentialParts {
    private(set) var textId: String?
    private(set) var reasoningId: String?
    private var count = 0

    /// A text delta: `.textDelta` of the open text part, a text part started first when none is
    /// open. `delta` is consumed: moved into the event, with no retain and release of its storage.
    mutating func text(_ delta: consuming String, emit: (StreamEvent) throws -> Void) throws {
        try emit(.textDelta(id: openText(emit: emit), delta: delta))
    }

    /// ``text(_:emit:)`` for the byte path: the same events, except that the delta goes to
    /// `textDelta` as the UTF-8 of the part ID and of `delta`.
    mutating func text(
        _ delta: UnsafeRawBufferPointer, textDelta: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void,
        emit: (StreamEvent) throws -> Void
    ) throws {
        var id = try openText(emit: emit)
        try id.withUTF8 { try textDelta(UnsafeRawBufferPointer($0), delta) }
    }

    /// The open text part's ID; a text part is started first when none is open.
    @inline(__always)
    private mutating func openText(emit: (StreamEvent) throws -> Void) throws -> String {
        if let id = textId { return id }
        return try startText(emit: emit)
    }

    /// Ends the open part and starts text part `text-N`.
    @inline(never)
    private mutating func startText(emit: (StreamEvent) throws -> Void) throws -> String {
        try closeAll(emit: emit)
        let id = "text-\(count)"
        textId = id
        count += 1
        try emit(.textStart(id: id))
        return id
    }

    /// A reasoning delta, as ``text(_:emit:)`` is for text.
    mutating func reasoning(_ delta: consuming String, emit: (StreamEvent) throws -> Void) throws {
        if reasoningId == nil {
            try closeAll(emit: emit)
            reasoningId = "reasoning-\(count)"
            count += 1
            try emit(.reasoningStart(id: reasoningId!))
        }
        try emit(.reasoningDelta(id: reasoningId!, delta: delta))
    }

    /// Ends the open text or reasoning part, if any.
    mutating func closeAll(emit: (StreamEvent) throws -> Void) throws {
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
    id: String, name: String, arguments: JSONElement?, parser: JSONParser?, emit: (StreamEvent) throws -> Void
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
            let input = try (parser ?? JSONParser()).parseValue(text)
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
