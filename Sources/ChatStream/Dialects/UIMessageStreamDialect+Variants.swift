// The shapes of the UI message stream this dialect accepts besides the AI SDK's own, and what each
// becomes (the README prints the table).

extension UIMessageStreamDialect: RegisteredDialect {
    /// The variants this dialect reads: which field, which shapes, what each becomes.
    public static let variants: [DialectVariant] = [
        DialectVariant(
            field: "finish", shapes: "one chunk, or repeated",
            becomes: "one `finish` at `[DONE]` (or the end of the input), the last chunk's reason"),
        DialectVariant(
            field: "finish.finishReason", shapes: "absent, or under `messageMetadata.finishReason` (Chatbase)",
            becomes: "the reason read from either place"),
        DialectVariant(
            field: "chunks after `[DONE]`", shapes: "any", becomes: "nothing (counted as unknown units)"),
        DialectVariant(
            field: "body start", shapes: "UTF-8 byte-order mark", becomes: "skipped (SSE framing)"),
    ]
}
