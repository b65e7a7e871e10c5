/// Request header fields in arrival order, with case-insensitive lookup.
///
/// ```swift
/// let type = request.headers["content-type"]      // first value, any case
/// let all = request.headers.values(for: "Accept")  // every value, in order
/// ```
struct HTTPServerHeaders: Sendable, Sequence, CustomStringConvertible {
    /// The fields as received: names keep their original case.
    private(set) var fields: [(name: String, value: String)]

    /// Headers from name/value pairs, kept in order.
    init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// The first value of the field called `name` (compared case-insensitively), or nil.
    subscript(name: String) -> String? {
        fields.first { Self.equal($0.name, name) }?.value
    }

    /// Every value of the field called `name`, in order.
    func values(for name: String) -> [String] {
        fields.filter { Self.equal($0.name, name) }.map(\.value)
    }

    /// Whether any field `name` holds the comma-separated token `token` (e.g. `Connection: close`).
    func contains(_ name: String, token: String) -> Bool {
        values(for: name).contains { value in
            value.split(separator: ",").contains { Self.equal(trimmed($0), token) }
        }
    }

    /// Appends a field.
    mutating func append(name: String, value: String) {
        fields.append((name, value))
    }

    /// The number of fields.
    var count: Int { fields.count }

    /// Iterates the fields in order.
    func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// `Name: value` lines.
    var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// ASCII case-insensitive comparison (header names are ASCII tokens).
    static func equal(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        let a = lhs.utf8, b = rhs.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lowerASCII($0) == lowerASCII($1) }
    }

    private static func lowerASCII(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte | 0x20 : byte
    }
}

/// The text without leading and trailing spaces and tabs.
func trimmed(_ text: some StringProtocol) -> Substring {
    let value = Substring(text)
    guard let start = value.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
    let end = value.lastIndex(where: { $0 != " " && $0 != "\t" })!
    return value[start...end]
}
