// PositionalRead: a unit's JSON read by position, for the few hot shapes a dialect sees event
// after event (a tool call's one-byte input deltas above all), without the JSON parser.
//
// A read succeeds only on exactly the expected bytes: the literal parts (`{"type":"…","id":"`)
// byte for byte, strings that are well-formed UTF-8 with no control character and only the
// escapes every JSON decoder agrees on (`\" \\ \/ \b \f \n \r \t`), integers without sign,
// fraction or leading zero, and nothing after the closing brace. Anything else (whitespace,
// another member order, a `\u` escape, a unit over a JSON limit, bad UTF-8) makes the read
// return nil, and the dialect parses the unit the general way, which decodes the same bytes to
// the same values and reports any error exactly as before. A read of a shape with other members
// around the wanted ones skips those members' values, checked: PositionalRead+Members.swift.

import ChatStreamJSON

/// A cursor over one unit's data for reading a known shape by position (see the file comment).
package struct PositionalRead {
    let base: UnsafePointer<UInt8>
    let end: Int
    /// The depth limit, for the containers a member read skips (PositionalRead+Members).
    let maxDepth: Int
    var position = 0

    /// A read of `data`, or nil when `data` is empty or longer than `configuration` lets a
    /// single string or value be (so no limit can apply to what a read accepts), or when
    /// `depth` levels of nesting are over its depth limit.
    package init?(_ data: UnsafeRawBufferPointer, depth: Int, configuration: JSONConfiguration) {
        guard let base = data.baseAddress, data.count > 0, data.count <= configuration.maxValueBytes,
            data.count <= configuration.maxStringBytes, depth <= configuration.maxDepth
        else { return nil }
        self.base = base.assumingMemoryBound(to: UInt8.self)
        end = data.count
        maxDepth = configuration.maxDepth
        position = 0
    }

    /// Whether the data starts with `prefix` (a cheap test before a read is begun).
    @inline(__always)
    package static func data(_ data: UnsafeRawBufferPointer, startsWith prefix: StaticString) -> Bool {
        data.count >= prefix.utf8CodeUnitCount
            && UnsafeRawBufferPointer(rebasing: data[0..<prefix.utf8CodeUnitCount]).sameBytes(
                as: UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    }

    /// Reads `literal` exactly; false (the cursor unchanged) otherwise.
    @inline(__always)
    package mutating func literal(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - position >= count,
            UnsafeRawBufferPointer(start: base + position, count: count).sameBytes(
                as: UnsafeRawBufferPointer(start: literal.utf8Start, count: count))
        else { return false }
        position += count
        return true
    }

    /// Whether the whole data has been read.
    @inline(__always)
    package var isAtEnd: Bool { position == end }

    /// The content of a string whose opening quote has been read, up to and past its closing
    /// quote, when it holds no escape: its bytes (well-formed UTF-8). Nil (cursor unchanged) on
    /// an escape, a control character, ill-formed UTF-8 or no closing quote.
    package mutating func plainString() -> UnsafeRawBufferPointer? {
        let start = position
        var i = start
        var ascii = true
        while i < end {
            let byte = base[i]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            i += 1
        }
        guard i < end else { return nil }
        let content = UnsafeRawBufferPointer(start: base + start, count: i - start)
        if !ascii, UTF8Validation.firstInvalidIndex(content) != nil { return nil }
        position = i + 1
        return content
    }

    /// A string whose opening quote has been read, decoded, up to and past its closing quote;
    /// nil (cursor unchanged) on a `\u` escape or anything ``plainString()`` refuses.
    package mutating func string() -> String? {
        if let plain = plainString() { return String(tapeUTF8: plain) }
        return escapedString()
    }

    /// ``string()`` for a string with escapes (out of line: the rare case).
    @inline(never)
    mutating func escapedString() -> String? {
        var decoded: [UInt8] = []
        var i = position
        var ascii = true
        while i < end {
            let byte = base[i]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            if byte == UInt8(ascii: "\\") {
                guard i + 1 < end else { return nil }
                switch base[i + 1] {
                case UInt8(ascii: "\""): decoded.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): decoded.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): decoded.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                default: return nil  // `\u` (and anything invalid) goes the general way
                }
                i += 2
                continue
            }
            decoded.append(byte)
            i += 1
        }
        guard i < end else { return nil }
        return decoded.withUnsafeBytes { bytes in
            if !ascii, UTF8Validation.firstInvalidIndex(bytes) != nil { return nil }
            position = i + 1
            return String(tapeUTF8: bytes)
        }
    }

    /// A non-negative integer of at most nine digits, without a leading zero (`0` itself is
    /// one); nil (cursor unchanged) otherwise.
    package mutating func smallInteger() -> Int? {
        var i = position
        var value = 0
        while i < end, i - position < 10, base[i] &- UInt8(ascii: "0") < 10 {
            value = value * 10 + Int(base[i] &- UInt8(ascii: "0"))
            i += 1
        }
        let digits = i - position
        guard digits > 0, digits <= 9, digits == 1 || base[position] != UInt8(ascii: "0") else { return nil }
        position = i
        return value
    }
}
