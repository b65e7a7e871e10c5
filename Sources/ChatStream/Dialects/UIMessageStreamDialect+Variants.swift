// The shapes of the UI message stream this dialect accepts besides the AI SDK's own, and what each
// becomes (VendorVariants.md prints the table).

extension UIMessageStreamDialect: RegisteredDialect {
    /// ``StreamFormat/uiMessageStream``'s raw value, which error messages name.
    public static var formatName: String { StreamFormat.uiMessageStream.rawValue }

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
        DialectVariant(
            field: "tool-input-available.providerExecuted", shapes: "`true`, with or without a `tool-input-start`",
            becomes: "the call is provider-executed (as when `tool-input-start` says so)"),
        DialectVariant(
            field: "type", shapes: "a chunk type this version does not read",
            becomes: "an `unknown` part with the chunk's JSON (and counted)"),
        DialectVariant.errorBody("a server answering `{\"error\": ...}` instead of a stream"),
    ]
}
