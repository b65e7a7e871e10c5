// The shapes of OpenAI Responses streams this dialect accepts from OpenAI and the vendors that
// copy it, and what each becomes (the README prints the table).

extension OpenAIResponsesDialect: RegisteredDialect {
    /// The variants this dialect reads: which field, which shapes, what each becomes.
    public static let variants: [DialectVariant] = [
        DialectVariant(
            field: "item_id", shapes: "changing on every event (GitHub Copilot)",
            becomes: "parts keyed by `output_index` / `content_index`"),
        DialectVariant(
            field: "event:", shapes: "present, or dropped by a relay", becomes: "ignored: the payload's `type` is read"),
        DialectVariant(
            field: "response.reasoning_text.delta", shapes: "raw chain of thought (OpenRouter, DeepSeek)",
            becomes: "reasoning"),
        DialectVariant(
            field: "`[DONE]` after the end", shapes: "present or absent", becomes: "ignored"),
        DialectVariant(
            field: "response.completed", shapes: "after function calls", becomes: "`finish(tool-calls)`"),
    ]
}
