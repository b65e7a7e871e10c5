/// One row of a dialect's table of vendor variants: a field, the shapes it is accepted in, and
/// what each becomes. Each dialect keeps its table as a static `variants`, and the README prints
/// every table (a test checks that each row is there).
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
    /// The vendor variants the format's dialect reads (its table in the README).
    public var variants: [DialectVariant] { dialect.variants }
}
