// JSONValue: the Chatbase SDK's JSON type for tool input and output, as its docs define it.
// ChatStream's core keeps its own exact tree (JSONTree: exact numbers, key order); the two
// convert in JSONValue+JSONTree.swift.

import ChatStream

/// Any JSON value, in the shape the Chatbase iOS SDK documents: what a tool handler receives and
/// returns, and what ``ToolCallInfo/input`` and ``ToolResultInfo/output`` hold.
///
/// An integer literal in the JSON (`9`) is ``int(_:)``; a number with a fraction or an exponent
/// (`9.0`, `1e3`) is ``number(_:)``, so `intValue` of `9.0` is nil.
///
/// ```swift
/// client.tool("lookup_order") { input in
///     guard let id = input["order_id"]?.stringValue else {
///         return .object(["error": .string("Missing order_id")])
///     }
///     return .object(["status": .string("shipped"), "items": .int(2)])
/// }
/// ```
public enum JSONValue: Sendable, Hashable, Codable {
    /// A string.
    case string(String)
    /// A number written as an integer.
    case int(Int)
    /// A number with a fraction or an exponent (or an integer too large for `Int`).
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// An object (members unordered).
    case object([String: JSONValue])
    /// An array.
    case array([JSONValue])
    /// `null`.
    case null

    /// The string of a ``string(_:)``; nil otherwise.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer of an ``int(_:)``; nil otherwise (also for ``number(_:)`` `9.0`).
    public var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The value of a ``number(_:)``, or of an ``int(_:)`` as `Double`; nil otherwise.
    public var numberValue: Double? {
        switch self {
        case .number(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }

    /// The Boolean of a ``bool(_:)``; nil otherwise.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The members of an ``object(_:)``; nil otherwise.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements of an ``array(_:)``; nil otherwise.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The member `key` of an object; nil when the key is missing or this is not an object, so
    /// lookups chain: `input["location"]?["city"]`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// Decodes any JSON value. Through ChatStream's own parser when the decoder is one of its
    /// `JSONTree`-backed ones; with `JSONDecoder`, a number decodes as ``int(_:)`` when the
    /// decoder yields an exact `Int`.
    public init(from decoder: any Decoder) throws {
        self.init(try JSONTree(from: decoder))
    }

    /// Encodes the JSON value (object members sorted by key).
    public func encode(to encoder: any Encoder) throws {
        try jsonTree.encode(to: encoder)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An ``int(_:)``.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A ``number(_:)``.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An ``array(_:)``.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An ``object(_:)``; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// ``null``.
    public init(nilLiteral: ()) { self = .null }
}
