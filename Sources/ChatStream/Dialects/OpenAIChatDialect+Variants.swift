// The shapes OpenAI-compatible vendors put in a chunk besides OpenAI's own, and what each becomes.
// `OpenAIChatDialect.variants` is the table (the VendorVariants article prints it);
// the readers below are the code behind each row.

import ChatStreamJSON

extension OpenAIChatDialect: RegisteredDialect {
    /// ``StreamFormat/openAIChat``'s raw value, which error messages name.
    public static var formatName: String { StreamFormat.openAIChat.rawValue }

    /// The vendor variants this dialect reads: which field, which shapes, what each becomes.
    public static let variants: [DialectVariant] = [
        DialectVariant(
            field: "choices[].delta.content", shapes: "string",
            becomes: "text (an empty string is nothing; null is nothing)"),
        DialectVariant(
            field: "choices[].delta.content", shapes: "array of parts (Mistral)",
            becomes:
                "`{\"type\":\"text\",\"text\"}` text; `{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\"}]}` "
                + "(or a string `thinking`) reasoning; other part types kept as `unknown` parts (and counted)"),
        DialectVariant(
            field: "choices[].delta.reasoning_content", shapes: "string (DeepSeek, xAI, Z.ai)", becomes: "reasoning"),
        DialectVariant(
            field: "choices[].delta.reasoning", shapes: "string (OpenRouter, Groq, Together)",
            becomes: "reasoning, when `reasoning_content` is absent, null or empty"),
        DialectVariant(
            field: "choices[].delta.reasoning_details[]",
            shapes: "`{\"type\":\"reasoning.text\",\"text\"}`, `{\"type\":\"reasoning.summary\",\"summary\"}` "
                + "(OpenRouter, Snowflake)",
            becomes: "reasoning, when neither string field above carried any; `reasoning.encrypted` skipped"),
        DialectVariant(
            field: "any string field", shapes: "null or \"\"", becomes: "nothing (no empty part is started)"),
        DialectVariant(
            field: "choices[].finish_reason", shapes: "string, repeated on later chunks",
            becomes: "one `finish` per choice at `[DONE]` (the last reason given), after the choice's last content"),
        DialectVariant(
            field: "choices[].finish_reason", shapes: "number, object or other non-string",
            becomes: "`finish(other)` with the value's JSON text as the raw reason"),
        DialectVariant(
            field: "finish_reason (top level)", shapes: "string on a chunk whose `choices` is empty or absent",
            becomes: "the finish reason of choice 0 (or of every choice seen and not yet given one)"),
        DialectVariant(
            field: "usage", shapes: "object on a chunk with `choices: []` or no `choices`",
            becomes: "`metadata(usage)`"),
        DialectVariant(
            field: "SSE comment lines", shapes: "`: OPENROUTER PROCESSING` and other gateway keep-alives",
            becomes: "nothing (skipped by the SSE framing)"),
        DialectVariant(
            field: "`data: [DONE]`", shapes: "absent (Writer, some relays)",
            becomes: "complete (`finish`, `done`) when every choice gave a `finish_reason`; truncated when a choice "
                + "stopped without one"),
        DialectVariant.errorBody("OpenAI and its imitators: `{\"error\":{message, type, param, code}}`"),
    ]
}

extension OpenAIWire {
    /// Calls `body` with the reasoning text of a delta: `reasoning_content`, else `reasoning`,
    /// else the text of `reasoning_details[]` entries. Empty strings, nulls and values of other
    /// kinds carry none.
    static func forEachReasoningText(
        content: JSONElement?, reasoning: JSONElement?, details: JSONElement?, _ body: (String) throws -> Void
    ) rethrows {
        if isNonEmptyString(content), let text = content?.string { return try body(text) }
        if isNonEmptyString(reasoning), let text = reasoning?.string { return try body(text) }
        guard let details, details.kind == .array else { return }
        try details.forEachElement { entry in
            let text: JSONElement?
            switch entry["type"]?.string {
            case "reasoning.text": text = entry["text"]
            case "reasoning.summary": text = entry["summary"]
            default: text = nil
            }
            if isNonEmptyString(text), let text = text?.string { try body(text) }
        }
    }

    /// Calls `text` with each non-empty text of a content-part array (`{"type":"text","text"}`)
    /// and `reasoning` with each thinking text (`{"type":"thinking","thinking":[{"type":"text",
    /// "text"}]}` or a string `thinking`), in order; hands every other part to
    /// `unknown` (kept whole) and returns how many there were.
    /// A part that is not an object is a malformed-stream error naming the field.
    static func forEachContentPart(
        _ parts: JSONElement, field: @autoclosure () -> String, eventType: String, offset: Int,
        text: (JSONElement) throws -> Void, reasoning: (String) throws -> Void, unknown: (JSONElement) throws -> Void
    ) throws -> Int {
        var skipped = 0
        var position = 0
        try parts.forEachElement { part in
            defer { position += 1 }
            guard part.kind == .object else {
                throw StreamError(
                    .malformed, message: "a content part is not an object", byteOffset: offset,
                    eventType: eventType, field: "\(field())[\(position)]")
            }
            switch part["type"]?.string {
            case "text":
                if let value = part["text"], isNonEmptyString(value) { try text(value) }
            case "thinking":
                guard let thinking = part["thinking"] else { break }
                if let value = thinking.string {
                    if !value.isEmpty { try reasoning(value) }
                    break
                }
                try thinking.forEachElement { inner in
                    if inner["type"]?.string == "text", let value = inner["text"]?.string, !value.isEmpty {
                        try reasoning(value)
                    }
                }
            default:
                skipped += 1
                try unknown(part)
            }
        }
        return skipped
    }

    /// A finish reason's raw text: the string itself (nil when empty), a number's literal, or any
    /// other value's JSON text; nil for null.
    static func finishReasonText(_ element: JSONElement) -> String? {
        if element.isNull { return nil }
        if let text = element.string { return text.isEmpty ? nil : text }
        if let number = element.number { return number.text }
        return element.jsonValue.jsonText
    }
}
