/// HTTP header fields in order, with case-insensitive lookup; repeated names are kept.
///
/// ```swift
/// var headers: HTTPHeaderFields = ["Accept": "text/event-stream"]
/// headers.append(name: "X-Device-Id", value: id)
/// headers["accept"]  // "text/event-stream"
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
        get { fields.first { Self.equal($0.name, name) }?.value }
        set {
            guard let newValue else {
                fields.removeAll { Self.equal($0.name, name) }
                return
            }
            guard let index = fields.firstIndex(where: { Self.equal($0.name, name) }) else {
                fields.append((name, newValue))
                return
            }
            fields[index].value = newValue
            var position = fields.count - 1
            while position > index {
                if Self.equal(fields[position].name, name) { fields.remove(at: position) }
                position -= 1
            }
        }
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equal($0.name, name) }.map(\.value)
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

    private static func equal(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && lhs.lowercased() == rhs.lowercased()
    }
}
