// JSONScan: one unit's JSON read by a validating cursor, for the few hot shapes a dialect sees
// event after event (a text delta, a tool call's one-byte input deltas), without building the
// yajl tape.
//
// Why: parsing a 60-byte delta with yajl costs more than everything else done with it. The
// dialect says what it reads, literal parts and captures in order, or member by member with the
// keys it wants; the scan accepts only bytes that yajl would read as one well-formed value within
// the limits, with exactly those values. Anything else (whitespace, another member order, a `\u`
// escape in a captured string, a unit over a limit, bad UTF-8, invalid JSON) makes the read
// return nil or false, and the dialect parses the unit with yajl, which gives the same values and
// reports every error. The parser's mode (``JSONReading``) decides whether a scan is offered at
// all; with ``JSONReading/tapeOnly`` every unit goes to yajl.
//
// Two ways in:
//
// - ``init(_:depth:configuration:)`` for an exact shape (`{"type":"text-delta","id":"…",
//   "delta":"…"}`): literals byte for byte, strings checked as they are read (well-formed UTF-8,
//   no control character, only the escapes `\" \\ \/ \b \f \n \r \t`), integers without sign,
//   fraction or leading zero, and nothing after the last byte.
// - ``init(members:depth:configuration:)`` for an object read member by member, skipping the
//   members the reader does not want: the whole unit is first checked to hold no byte below 0x20
//   and to be well-formed UTF-8, and a skipped value is then checked against the JSON grammar as
//   it is skipped (strings with their escapes, `\u` with four hex digits; numbers as
//   `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`; `true`, `false`, `null`; arrays and objects
//   with `,` and `:` where they belong, no deeper than the depth limit). A key the reader compares
//   must be a string without escapes (one with escapes may be the same key written another way).
//
// A worked example, the usual UI message stream text delta:
//
//     var scan = JSONScan(unit, depth: 1, configuration: limits)     // nil in tape-only mode
//     scan?.literal(#"{"type":"text-delta","id":""#)                  // true
//     let id = scan?.plainString()                                    // the bytes `t1`
//     scan?.literal(#","delta":""#); let text = scan?.plainString()  // the bytes `Hi`
//     scan?.literal("}"); scan?.isAtEnd                               // true: the read holds
//
// on `{"type":"text-delta","id":"t1","delta":"Hi"}`; on `{"type": "text-delta", …}` (a space) the
// first literal fails and the unit goes to yajl. `JSONScanDifferentialTests` and the fuzz target
// FuzzJSON hold the scan to yajl on every input.

import ChatStreamBytes

/// A validating cursor over one unit's bytes (see the file comment).
///
/// Public under the `JSONScan` SPI (`@_spi(JSONScan) import ChatStreamJSON`) rather than
/// `package`: the dialects that call it live in another module, and the compiler inlines
/// `@inlinable` code of a `package` type into another module's callers only when it is public
/// (a `package` one is left as calls there, which the callgrind profiles of the bench showed).
@_spi(JSONScan)
public struct JSONScan {
    @usableFromInline let base: UnsafePointer<UInt8>
    @usableFromInline let end: Int
    /// The depth limit, for the containers a member read skips.
    @usableFromInline let maxDepth: Int
    /// Bytes read so far.
    @usableFromInline var position = 0

    /// A scan of `data` for an exact shape; nil in ``JSONReading/tapeOnly`` mode, when `data` is
    /// empty or longer than `configuration` lets a single string or value be (so no limit can
    /// apply to what a read accepts), or when `depth` levels of nesting are over its depth limit.
    @inlinable
    public init?(_ data: UnsafeRawBufferPointer, depth: Int, configuration: JSONConfiguration) {
        guard configuration.reading == .scanWhenPlain, let base = data.baseAddress, data.count > 0,
            data.count <= configuration.maxValueBytes, data.count <= configuration.maxStringBytes,
            depth <= configuration.maxDepth
        else { return nil }
        self.base = base.assumingMemoryBound(to: UInt8.self)
        end = data.count
        maxDepth = configuration.maxDepth
    }

    /// A scan of `data` member by member: as ``init(_:depth:configuration:)``, and nil as well
    /// when `data` holds a byte below 0x20 or ill-formed UTF-8.
    @inlinable
    public init?(members data: UnsafeRawBufferPointer, depth: Int, configuration: JSONConfiguration) {
        guard configuration.reading == .scanWhenPlain, JSONPayloadScan.isUTF8WithoutControlBytes(data) else {
            return nil
        }
        self.init(data, depth: depth, configuration: configuration)
    }

    /// Whether the whole data has been read.
    @inlinable @inline(__always)
    public var isAtEnd: Bool { position == end }

    /// How many bytes have been read (the offset of the next one in the unit).
    @inlinable @inline(__always)
    public var offset: Int { position }

    /// The next byte, without reading it; nil at the end.
    @inlinable @inline(__always)
    public var next: UInt8? { position < end ? base[position] : nil }

    /// Reads `literal` exactly; false (the cursor unchanged) otherwise.
    @inlinable @inline(__always)
    public mutating func literal(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end &- position >= count, memcmpBytes(base + position, literal.utf8Start, count) else { return false }
        position &+= count
        return true
    }

    // MARK: - Captures of an exact shape

    /// The content of a string whose opening quote has been read, up to and past its closing
    /// quote, when it holds no escape: its bytes (well-formed UTF-8). Nil (cursor unchanged) on
    /// an escape, a control character, ill-formed UTF-8 or no closing quote.
    @inlinable
    public mutating func plainString() -> UnsafeRawBufferPointer? {
        let start = position
        var i = start
        var ascii = true
        while i < end {
            let byte = base[i]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            i &+= 1
        }
        guard i < end else { return nil }
        let content = UnsafeRawBufferPointer(start: base + start, count: i &- start)
        if !ascii, UTF8Validation.firstInvalidIndex(content) != nil { return nil }
        position = i &+ 1
        return content
    }

    /// A string whose opening quote has been read, decoded, up to and past its closing quote;
    /// nil (cursor unchanged) on a `\u` escape or anything ``plainString()`` refuses.
    @inlinable
    public mutating func string() -> String? {
        if let plain = plainString() { return String(tapeUTF8: plain) }
        return escapedString()
    }

    /// ``string()`` for a string with escapes (the rare case, out of line).
    @usableFromInline
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
                guard i + 1 < end, let unescaped = Self.shortEscape(base[i + 1]) else { return nil }
                decoded.append(unescaped)
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

    /// The byte a two-character escape stands for (`n` for `\n`); nil for `u` (read only by
    /// yajl) and for anything that is not an escape.
    static func shortEscape(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return byte
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return nil
        }
    }

    /// A non-negative integer of at most nine digits, without a leading zero (`0` itself is
    /// one); nil (cursor unchanged) otherwise.
    @inlinable
    public mutating func smallInteger() -> Int? {
        var i = position
        var value = 0
        while i < end, i &- position < 10, base[i] &- UInt8(ascii: "0") < 10 {
            value = value &* 10 &+ Int(base[i] &- UInt8(ascii: "0"))
            i &+= 1
        }
        let digits = i &- position
        guard digits > 0, digits <= 9, digits == 1 || base[position] != UInt8(ascii: "0") else { return nil }
        position = i
        return value
    }

    // MARK: - Member by member (a scan made with init(members:))

    /// The content of a string whose opening quote has been read, up to and past its closing
    /// quote, when it holds no escape; nil otherwise. The bytes were checked when the scan began.
    @inlinable @inline(__always)
    public mutating func checkedPlainString() -> UnsafeRawBufferPointer? {
        let start = position
        let i = JSONValueScanner.firstQuoteOrBackslash(UnsafeRawPointer(base), from: start, to: end)
        guard i < end, base[i] == UInt8(ascii: "\"") else { return nil }
        position = i &+ 1
        return UnsafeRawBufferPointer(start: base + start, count: i &- start)
    }

    /// A member's key and its colon, after `{` or `,`: the key's bytes when it is a string
    /// without escapes; nil otherwise.
    @inlinable @inline(__always)
    public mutating func memberKey() -> UnsafeRawBufferPointer? {
        guard literal("\""), let key = checkedPlainString(), literal(":") else { return nil }
        return key
    }

    /// One step of a member-by-member read (``nextMember(afterValue:)``).
    public enum MemberStep {
        /// A member's key (its colon read too).
        case key(UnsafeRawBufferPointer)
        /// Past the `}` that ends the object.
        case end
    }

    /// The next member of an object read member by member: its key after the object's `{`, or,
    /// when `afterValue`, after the last member's value and its `,` (or `.end` past the `}`); nil
    /// on anything else. For a read that may begin after a member's value (a shape read up to a
    /// string and the members after it read as in full).
    @inlinable @inline(__always)
    public mutating func nextMember(afterValue: Bool) -> MemberStep? {
        if afterValue {
            guard let more = moreMembers() else { return nil }
            if !more { return .end }
        }
        guard let key = memberKey() else { return nil }
        return .key(key)
    }

    /// After a member's value: true past a `,` (another member follows), false past the `}` that
    /// ends the object, nil on any other byte.
    @inlinable @inline(__always)
    public mutating func moreMembers() -> Bool? {
        guard position < end else { return nil }
        let byte = base[position]
        position &+= 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == UInt8(ascii: "}") { return false }
        return nil
    }

    /// Skips one value and returns its bytes, checked as the file comment says; `depth` is how
    /// many containers hold it (1 for a member of the unit's top-level object). Nil when it is
    /// not a well-formed value (the read is then abandoned).
    @inlinable
    public mutating func skippedValue(depth: Int) -> UnsafeRawBufferPointer? {
        let start = position
        guard skipValue(depth: depth) else { return nil }
        return UnsafeRawBufferPointer(start: base + start, count: position &- start)
    }

    /// Skips one value, checked as the file comment says; `depth` is how many containers hold it
    /// (1 for a member of the unit's top-level object). False when it is not a well-formed value
    /// (the read is then abandoned).
    @inlinable
    public mutating func skipValue(depth: Int) -> Bool {
        // One bit per container open inside the value, the innermost lowest: 1 for an object.
        var open: UInt64 = 0
        var level = 0
        while true {
            guard position < end else { return false }
            let byte = base[position]
            position &+= 1
            switch byte {
            case UInt8(ascii: "\""):
                guard skipString() else { return false }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard level < 63, depth &+ level &+ 1 <= maxDepth, position < end else { return false }
                let isObject = byte == UInt8(ascii: "{")
                if base[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position &+= 1  // empty: a value already ended
                } else {
                    open = open << 1 | (isObject ? 1 : 0)
                    level &+= 1
                    if isObject { guard skipKey() else { return false } }
                    continue  // the container's first value
                }
            case UInt8(ascii: "t"):
                guard literal("rue") else { return false }
            case UInt8(ascii: "f"):
                guard literal("alse") else { return false }
            case UInt8(ascii: "n"):
                guard literal("ull") else { return false }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                position &-= 1
                guard skipNumber() else { return false }
            default:
                return false
            }
            // A value ended: close the containers it ends, or go on to the next value of its own.
            while level > 0 {
                guard position < end else { return false }
                let separator = base[position]
                position &+= 1
                let inObject = open & 1 == 1
                if separator == UInt8(ascii: ",") {
                    if inObject { guard skipKey() else { return false } }
                    break
                }
                guard separator == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                open >>= 1
                level &-= 1
            }
            if level == 0 { return true }
        }
    }

    /// Skips a key (any string) and its colon inside a skipped object.
    @inlinable @inline(__always)
    mutating func skipKey() -> Bool {
        literal("\"") && skipString() && literal(":")
    }

    /// Skips a string whose opening quote has been read, up to and past its closing quote,
    /// checking its escapes (the scan's first check has seen to its bytes).
    @inlinable
    public mutating func skipString() -> Bool {
        while true {
            let i = JSONValueScanner.firstQuoteOrBackslash(UnsafeRawPointer(base), from: position, to: end)
            guard i < end else { return false }
            if base[i] == UInt8(ascii: "\"") {
                position = i &+ 1
                return true
            }
            guard i &+ 1 < end else { return false }
            switch base[i &+ 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                position = i &+ 2
            case UInt8(ascii: "u"):
                guard i &+ 6 <= end else { return false }
                for k in (i &+ 2)..<(i &+ 6) where !Self.isHexDigit(base[k]) { return false }
                position = i &+ 6
            default:
                return false
            }
        }
    }

    @inlinable @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6
    }

    /// Skips a number by the JSON grammar (the file comment); what follows it is the caller's.
    @inlinable
    public mutating func skipNumber() -> Bool {
        var i = position
        func digits() -> Int {
            let start = i
            while i < end, base[i] &- UInt8(ascii: "0") < 10 { i &+= 1 }
            return i &- start
        }
        if i < end, base[i] == UInt8(ascii: "-") { i &+= 1 }
        guard i < end else { return false }
        if base[i] == UInt8(ascii: "0") {
            i &+= 1
        } else if digits() == 0 {
            return false
        }
        if i < end, base[i] == UInt8(ascii: ".") {
            i &+= 1
            guard digits() > 0 else { return false }
        }
        if i < end, base[i] | 0x20 == UInt8(ascii: "e") {
            i &+= 1
            if i < end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i &+= 1 }
            guard digits() > 0 else { return false }
        }
        position = i
        return true
    }
}
