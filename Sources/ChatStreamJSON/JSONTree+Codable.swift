// Codable in the plain JSON shape: a JSONTree encodes as the JSON it holds.

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension JSONTree: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONTree].self) {
            self = .array(value)
        } else if let value = try? container.decode(JSONObjectCoding.self) {
            self = .object(value.object)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let number):
            switch number.storage {
            case .int(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .text(let text):
                if let decimal = Decimal(string: text) {
                    try container.encode(decimal)
                } else {
                    try container.encode(number.doubleValue)
                }
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let object): try container.encode(JSONObjectCoding(object: object))
        }
    }
}

/// Codes an object through a keyed container, keeping the order the decoder reports.
private struct JSONObjectCoding: Codable {
    var object: JSONObject

    init(object: JSONObject) { self.object = object }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        var object = JSONObject()
        for key in container.allKeys {
            object[key.stringValue] = try container.decode(JSONTree.self, forKey: key)
        }
        self.object = object
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in object {
            try container.encode(value, forKey: Key(stringValue: key))
        }
    }
}
