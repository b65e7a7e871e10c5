// Between the documented JSONValue and the core's exact JSONTree.

import ChatStream

extension JSONValue {
    /// The documented form of a core `JSONTree`.
    ///
    /// What it drops: object key order and repeated keys (the last value wins), and exactness of
    /// numbers a `Double` cannot hold (integers beyond `Int`, long decimals round to the nearest
    /// `Double`). An integer literal that fits `Int` stays ``int(_:)``; any number written with a
    /// fraction or an exponent (`9.0`) becomes ``number(_:)``.
    public init(_ tree: JSONTree) {
        switch tree {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        case .number(let number): self = JSONValue.number(from: number)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let object):
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(object.count)
            for (key, value) in object { members[key] = JSONValue(value) }
            self = .object(members)
        }
    }

    static func number(from number: JSONNumber) -> JSONValue {
        let text = number.text
        let integral = !text.contains { $0 == "." || $0 == "e" || $0 == "E" }
        if integral, let value = number.int64Value.flatMap({ Int(exactly: $0) }) { return .int(value) }
        return .number(number.doubleValue)
    }

    /// The value as a core `JSONTree`; nothing is lost (object members in key order).
    public var jsonTree: JSONTree {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .string(let value): return .string(value)
        case .int(let value): return .number(JSONNumber(value))
        case .number(let value): return .number(JSONNumber(value))
        case .array(let elements): return .array(elements.map(\.jsonTree))
        case .object(let members):
            return .object(JSONObject(members.keys.sorted().map { ($0, members[$0]!.jsonTree) }))
        }
    }

    /// The value as compact JSON text.
    public var jsonText: String { jsonTree.jsonText }
}
