// The shapes of the AI SDK v4 data stream this dialect accepts, and what each becomes (VendorVariants.md
// prints the table).

extension DataStreamV4Dialect: RegisteredDialect {
    /// ``StreamFormat/aiSDKv4``'s raw value, which error messages name.
    public static var formatName: String { StreamFormat.aiSDKv4.rawValue }

    /// The variants this dialect reads: which field, which shapes, what each becomes.
    public static let variants: [DialectVariant] = [
        DialectVariant(
            field: "`e:` then `d:`", shapes: "a finish per step, then the message's",
            becomes: "`stepFinish` per step, one `finish` at `d:`"),
        DialectVariant(
            field: "parts after `d:`", shapes: "any", becomes: "nothing (counted as unknown units)"),
        DialectVariant(
            field: "`0:` / `g:`", shapes: "\"\"", becomes: "nothing (no empty part is started)"),
        DialectVariant(
            field: "body start", shapes: "UTF-8 byte-order mark", becomes: "skipped (v4 framing)"),
        DialectVariant.errorBody("a server answering `{\"error\": ...}` instead of a stream"),
    ]
}
