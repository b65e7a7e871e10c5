// The shapes of Anthropic Messages streams this dialect accepts besides the documented ones, and
// what each becomes (VendorVariants.md prints the table).

extension AnthropicDialect: RegisteredDialect {
    /// ``StreamFormat/anthropic``'s raw value, which error messages name.
    public static var formatName: String { StreamFormat.anthropic.rawValue }

    /// The variants this dialect reads: which field, which shapes, what each becomes.
    public static let variants: [DialectVariant] = [
        DialectVariant(
            field: "event:", shapes: "present, or dropped by a relay",
            becomes: "ignored: every event is read by its JSON `type`"),
        DialectVariant(
            field: "message_delta.delta.stop_reason", shapes: "once, or repeated",
            becomes: "one `finish` per message at `message_stop` (the last reason given), after all its blocks"),
        DialectVariant(
            field: "message_start", shapes: "repeated with the same ID before any block (proxy glitch)",
            becomes: "ignored"),
        DialectVariant(
            field: "ping, signature_delta", shapes: "any", becomes: "nothing"),
        DialectVariant(
            field: "last event", shapes: "no blank line after it", becomes: "truncated (per the SSE rules)"),
        DialectVariant(
            field: "content_block_start.content_block.type",
            shapes: "`compaction` (with `compaction_delta`s), `redacted_thinking`, any other kind",
            becomes: "an `unknown` part: the block with its deltas' string members joined"),
        DialectVariant.errorBody("Anthropic: `{\"type\":\"error\",\"error\":{type, message}}`"),
    ]
}
