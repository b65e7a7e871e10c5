// Helpers dialects share: parsing a unit, reading required fields with errors that say where.

import ChatStreamBytes
import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

/// A dialect's JSON parser, lent to each unit without a retain: the one place a dialect's
/// parser is borrowed unmanaged (it is the dialect's own and outlives every call).
package struct UnitParser {
    @usableFromInline package let json: JSONParser
    /// The limits and the reading mode, for scans of the hot shapes.
    package let configuration: JSONConfiguration

    /// A parser with these limits.
    ///
    /// `json` is the parser itself, for parsing outside a unit (a tool call's whole arguments).
    package init(configuration: JSONConfiguration) {
        json = JSONParser(configuration: configuration)
        self.configuration = configuration
    }

    /// A scan of `unit` for an exact shape nested `depth` levels deep, when the JSON layer
    /// offers one (``JSONScan``); nil sends the unit to ``lent``'s parse.
    package func scan(_ unit: FramedUnit, depth: Int) -> JSONScan? {
        JSONScan(unit.data, depth: depth, configuration: configuration)
    }

    /// A scan of `unit` member by member (``JSONScan/init(members:depth:configuration:)``), when
    /// the JSON layer offers one; nil sends the unit to ``lent``'s parse.
    package func scanMembers(_ unit: FramedUnit, depth: Int) -> JSONScan? {
        JSONScan(members: unit.data, depth: depth, configuration: configuration)
    }

    /// The parser lent for one unit: `try parser.lent.parse(unit, eventType: ...) { root in ... }`.
    /// (A method on `UnitParser` itself would keep a retained copy of it for the whole call, since
    /// the body may change the dialect that holds it; the property hands over a borrowed
    /// reference and lets the copy go at once.)
    @inlinable @inline(__always)
    package var lent: LentUnitParser { LentUnitParser(parser: Unmanaged.passUnretained(json)) }
}

/// A dialect's parser borrowed for one unit (see ``UnitParser/lent``).
package struct LentUnitParser {
    @usableFromInline let parser: Unmanaged<JSONParser>

    @inlinable @inline(__always)
    init(parser: Unmanaged<JSONParser>) {
        self.parser = parser
    }

    /// Parses a unit's data and hands `body` its root, turning JSON errors into malformed-stream
    /// errors that name the event.
    @inlinable @inline(__always)
    package func parse<R>(
        _ unit: FramedUnit, eventType: @autoclosure () -> String?, _ body: (JSONElement) throws -> R
    ) throws -> R {
        try parser._withUnsafeGuaranteedRef { parser in try parser.parseUnit(unit, eventType: eventType(), body) }
    }
}

extension JSONParser {
    /// Parses a unit's data, turning JSON errors into malformed-stream errors that name the event.
    @inlinable
    package func parseUnit<R>(
        _ unit: FramedUnit, eventType: @autoclosure () -> String?, _ body: (JSONElement) throws -> R
    )
        throws -> R
    {
        do {
            return try parse(unit.data, streamOffset: unit.streamOffset, body)
        } catch let error as JSONError {
            throw StreamError(
                error.kind == .valueTooLarge || error.kind == .stringTooLong || error.kind == .depthLimitExceeded
                    ? .limitExceeded : .malformed,
                message: error.message + " (\(error.kind))", byteOffset: error.byteOffset, eventType: eventType())
        }
    }
}

extension StreamError {
    /// A malformed-unit error, built out of line so that the paths that may throw it stay small.
    @inline(never)
    package static func malformedUnit(_ message: String, byteOffset: Int, eventType: String?, field: String?)
        -> StreamError
    {
        StreamError(.malformed, message: message, byteOffset: byteOffset, eventType: eventType, field: field)
    }

    /// The error for a required string field that is absent or not a string.
    @usableFromInline
    package static func missingString(_ field: String, eventType: String?, offset: Int) -> StreamError {
        StreamError(
            .malformed, message: "missing or non-string field \"\(field)\"", byteOffset: offset, eventType: eventType,
            field: field)
    }
}

extension JSONElement {
    /// The string member `key`, or a malformed-stream error naming the event and field.
    @inlinable
    package func requiredString(_ key: StaticString, eventType: String, offset: Int) throws -> String {
        guard let value = self[key]?.string else {
            throw StreamError.missingString("\(key)", eventType: eventType, offset: offset)
        }
        return value
    }

    /// The string member `key` when present and a string.
    @inlinable
    package func optionalString(_ key: StaticString) -> String? {
        self[key]?.string
    }
}

/// Remembers the last string made from a field, so a value that repeats event after event (a
/// part ID on every delta) becomes a `String` once, not once per event.
package struct RepeatedStringCache: Sendable {
    /// The bytes of `string`.
    @usableFromInline var bytes: [UInt8] = []
    @usableFromInline var string = ""

    package init() {}

    /// The string of `element` (nil when it is not a string), reusing the last one when equal.
    @inlinable
    package mutating func string(_ element: JSONElement?) -> String? {
        guard let element else { return nil }
        return element.withUTF8 { value in string(bytes: value) }
    }

    /// The string of `value` (well-formed UTF-8), reusing the last one when equal.
    @inlinable
    package mutating func string(bytes value: UnsafeRawBufferPointer) -> String {
        bytes.withUnsafeBytes { $0.sameBytes(as: value) } ? string : refill(value)
    }

    @usableFromInline
    mutating func refill(_ value: UnsafeRawBufferPointer) -> String {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: value)
        string = String(tapeUTF8: value)
        return string
    }
}
