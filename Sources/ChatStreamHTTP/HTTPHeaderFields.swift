// HTTPHeaderFields: HTTP header fields in order with case-insensitive lookup, the one header type
// of the client's requests and responses and the server's requests (in ChatStreamHTTP, which both
// import; the parsing core has no HTTP in it).

/// HTTP header fields in order, with case-insensitive lookup; repeated names are kept.
///
/// ```swift
/// var headers: HTTPHeaderFields = ["Accept": "text/event-stream"]
/// headers.append(name: "X-Device-Id", value: "device-1")
/// headers["accept"]                          // "text/event-stream"
/// headers.contains("Connection", token: "close")  // false
/// ```
public struct HTTPHeaderFields: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields in order; names keep their case.
    public private(set) var fields: [(name: String, value: String)]

    /// Fields from name/value pairs, in order.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// Fields from a literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (any case), or nil. Setting replaces every field of that name
    /// (nil removes them).
    public subscript(name: String) -> String? {
        get { fields.first { Self.namesEqual($0.name, name) }?.value }
        set {
            guard let newValue else {
                fields.removeAll { Self.namesEqual($0.name, name) }
                return
            }
            guard let index = fields.firstIndex(where: { Self.namesEqual($0.name, name) }) else {
                fields.append((name, newValue))
                return
            }
            fields[index].value = newValue
            var position = fields.count - 1
            while position > index {
                if Self.namesEqual(fields[position].name, name) { fields.remove(at: position) }
                position -= 1
            }
        }
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    /// Whether any field `name` holds the comma-separated token `token`, in any case (for
    /// example `Connection: keep-alive, close` holds `close`).
    public func contains(_ name: String, token: String) -> Bool {
        listElements(name).contains { Self.namesEqual($0, token) }
    }

    /// Adds a field after the existing ones (a repeated name is kept).
    public mutating func append(name: String, value: String) {
        fields.append((name, value))
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// `Name: value` lines.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Whether two header names are equal, ASCII case-insensitively (names are ASCII tokens).
    public static func namesEqual(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        let a = lhs.utf8
        let b = rhs.utf8
        guard a.count == b.count else { return false }
        // Index by index rather than through zip(a, b), whose iterator type is instantiated at run
        // time for each pair of views (about 0.25 million instructions the first time).
        var i = a.startIndex
        var j = b.startIndex
        while i != a.endIndex {
            guard lowerASCII(a[i]) == lowerASCII(b[j]) else { return false }
            a.formIndex(after: &i)
            b.formIndex(after: &j)
        }
        return true
    }

    /// The elements of the comma-separated list fields `name` hold, trimmed, empty ones dropped
    /// (`Transfer-Encoding: gzip, chunked` gives `["gzip", "chunked"]`).
    package func listElements(_ name: String) -> [Substring] {
        values(for: name).flatMap { $0.split(separator: ",") }.map(Self.trimmingSpaces).filter { !$0.isEmpty }
    }

    private static func lowerASCII(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte | 0x20 : byte
    }

    /// Whether `byte` may appear in a header field name or a method (RFC 9110's `tchar`).
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
            UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace).
    package static func trimmingSpaces(_ text: Substring) -> Substring {
        guard let start = text.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let end = text.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return text[start...end]
    }
}
