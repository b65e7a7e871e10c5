// JSONTree: a JSON tree for when a tree is wanted (tool inputs, outputs, metadata).
//
// The hot paths of ChatStream never build trees: dialect decoders read the few fields they
// need from a `JSONElement` over the parser's reusable tape. A tree is made only for values
// that are handed to users whole.

/// A JSON value.
///
/// Objects keep their keys in the order they arrived (see ``JSONObject``); numbers keep
/// integers beyond 64 bits exactly (see ``JSONNumber``).
///
/// ```swift
/// let input: JSONTree = ["city": "Paris", "days": 3, "units": nil]
/// input["city"]?.stringValue   // "Paris"
/// input.jsonText               // {"city":"Paris","days":3,"units":null}
/// ```
public enum JSONTree: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONTree])
    case object(JSONObject)
}

extension JSONTree {
    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, when this is a number.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as `Int64`, when this is a number that fits exactly.
    public var int64Value: Int64? { numberValue?.int64Value }

    /// The number as `Int`, when this is a number that fits exactly.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// The number as `Double`, when this is a number.
    public var doubleValue: Double? { numberValue?.doubleValue }

    /// The elements, when this is an array.
    public var arrayValue: [JSONTree]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key`, when this is an object that has it.
    public subscript(key: String) -> JSONTree? {
        objectValue?[key]
    }

    /// The element at `index`, when this is an array long enough.
    public subscript(index: Int) -> JSONTree? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

extension JSONTree: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension JSONTree: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONTree: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
}

extension JSONTree: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
}

extension JSONTree: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONTree: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONTree...) { self = .array(elements) }
}

extension JSONTree: ExpressibleByDictionaryLiteral {
    /// Members keep the literal's order; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONTree)...) {
        var object = JSONObject()
        object.reserveCapacity(elements.count)
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
