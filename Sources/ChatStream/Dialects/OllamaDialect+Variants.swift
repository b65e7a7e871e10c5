// The shapes of Ollama's NDJSON this dialect accepts, and what each becomes (VendorVariants.md prints
// the table).

extension OllamaDialect: RegisteredDialect {
    /// ``StreamFormat/ndjson``'s raw value, which error messages name.
    public static var formatName: String { StreamFormat.ndjson.rawValue }

    /// The variants this dialect reads: which field, which shapes, what each becomes.
    public static let variants: [DialectVariant] = [
        DialectVariant(
            field: "message.thinking", shapes: "string (reasoning models)", becomes: "reasoning; \"\" is nothing"),
        DialectVariant(
            field: "message.content", shapes: "string; \"\" or absent on thinking and tool-call lines",
            becomes: "text; \"\" is nothing"),
        DialectVariant(
            field: "done_reason", shapes: "`stop`, `length`, `load`, any other string, or absent",
            becomes: "`finish` with it as the raw reason (unknown ones `other`)"),
        DialectVariant(
            field: "lines after `\"done\": true`", shapes: "any", becomes: "nothing (counted as unknown units)"),
        DialectVariant(
            field: "body start", shapes: "UTF-8 byte-order mark", becomes: "skipped (NDJSON framing)"),
        DialectVariant(
            field: "error", shapes: "a string (Ollama), or another provider's error object on one line",
            becomes: "`error` with the provider's code and message; the stream is complete"),
        DialectVariant.errorBody("an error object spread over lines (Gemini's pretty-printed answer)"),
    ]
}
