/// One row of a dialect's table of vendor variants: a field, the shapes it is accepted in, and
/// what each becomes. Each dialect keeps its table as a static `variants`, and an article prints
/// every table (ChatStream.docc/VendorVariants.md; a test checks that each row is there).
public struct DialectVariant: Sendable, Hashable {
    /// The wire field, as a path (`choices[].delta.content`).
    public let field: String
    /// The shapes accepted, with the vendors seen sending them.
    public let shapes: String
    /// What the dialect makes of them.
    public let becomes: String

    /// A row of a variant table.
    public init(field: String, shapes: String, becomes: String) {
        self.field = field
        self.shapes = shapes
        self.becomes = becomes
    }

    /// The row as a Markdown table row: `| field | shapes | becomes |` (the field in code
    /// style unless it quotes code itself).
    public var markdownRow: String {
        "| \(field.contains("`") ? field : "`\(field)`") | \(shapes) | \(becomes) |"
    }
}

extension StreamFormat {
    /// The vendor variants the format's dialect reads (its table in the VendorVariants article).
    public var variants: [DialectVariant] { dialect.variants }
}

extension DialectVariant {
    /// The row every table has: a provider's JSON error answer where a stream was expected
    /// (APIErrorBody.swift), with the providers that answer so.
    static func errorBody(_ shapes: String) -> DialectVariant {
        DialectVariant(
            field: "the whole body", shapes: "one JSON error object instead of a stream: " + shapes,
            becomes: "one `error` with the provider's code and message (a remote error: exit 1); another JSON "
                + "object is malformed, saying so")
    }
}
