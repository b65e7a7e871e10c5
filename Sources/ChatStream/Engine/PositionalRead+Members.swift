// PositionalRead+Members: an object read member by member, for the usual shapes that carry other
// members around the ones a dialect reads (an OpenAI chat chunk's `id`, `created`, `model`, ...
// around `choices[0].delta.content`; Gemini's `usageMetadata` and `modelVersion` around
// `candidates[0].content.parts[0].text`). Keys are read as they come; the dialect reads the
// members it wants by position and skips every other member's value.
//
// The read still accepts only a unit that the parser would read as one well-formed JSON value
// within the limits, so that the general path alone reports every error. It starts with
// ``PositionalRead/init(checking:depth:configuration:)``, which refuses a unit with any byte below
// 0x20 (so whitespace, or a raw control character in a string) or with ill-formed UTF-8, before
// anything is read. Past that check a skipped value is checked against the JSON grammar as it is
// skipped:
//
// - a string up to its closing quote, with only the escapes `\" \\ \/ \b \f \n \r \t` and `\u`
//   with four hex digits (every such escape, a lone surrogate too, is one the parser takes);
// - a number as `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` (a byte after it that is not
//   `,`, `]` or `}`, as in `01`, fails the member that holds it);
// - `true`, `false`, `null`;
// - arrays and objects with `,` and `:` where they belong, nested no deeper than the depth limit
//   (and 63 levels within the skipped value), strings as keys.
//
// A key the dialect reads must be a string without escapes (one with escapes could be the same
// key written another way: the read declines). Anything not understood makes a read method
// return nil or false, and the dialect then parses the unit the general way.

import ChatStreamFraming
import ChatStreamJSON

extension PositionalRead {
    /// A member read of `data` (see the file comment): as ``init(_:depth:configuration:)``, and
    /// nil as well when `data` holds a byte below 0x20 or ill-formed UTF-8.
    package init?(checking data: UnsafeRawBufferPointer, depth: Int, configuration: JSONConfiguration) {
        guard JSONPayloadScan.isUTF8WithoutControlBytes(data) else { return nil }
        self.init(data, depth: depth, configuration: configuration)
    }

    /// The next byte, without reading it; nil at the end.
    @inline(__always)
    package var next: UInt8? { position < end ? base[position] : nil }

    /// The content of a string whose opening quote has been read, up to and past its closing
    /// quote, when it holds no escape; nil otherwise. Only on a read made with
    /// ``init(checking:depth:configuration:)``, which has checked every byte already.
    @inline(__always)
    package mutating func checkedPlainString() -> UnsafeRawBufferPointer? {
        let start = position
        let i = JSONValueScanner.firstQuoteOrBackslash(UnsafeRawPointer(base), from: start, to: end)
        guard i < end, base[i] == UInt8(ascii: "\"") else { return nil }
        position = i &+ 1
        return UnsafeRawBufferPointer(start: base + start, count: i &- start)
    }

    /// A member's key and its colon, after `{` or `,`: the key's bytes when it is a string
    /// without escapes; nil otherwise.
    @inline(__always)
    package mutating func memberKey() -> UnsafeRawBufferPointer? {
        guard literal("\""), let key = checkedPlainString(), literal(":") else { return nil }
        return key
    }

    /// After a member's value: true past a `,` (another member follows), false past the `}` that
    /// ends the object, nil on any other byte.
    @inline(__always)
    package mutating func moreMembers() -> Bool? {
        guard position < end else { return nil }
        let byte = base[position]
        position &+= 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == UInt8(ascii: "}") { return false }
        return nil
    }

    /// Skips one value, checked as the file comment says; `depth` is how many containers hold it
    /// (1 for a member of the unit's top-level object). False when it is not a well-formed value
    /// (the read is then abandoned).
    package mutating func skipValue(depth: Int) -> Bool {
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
    @inline(__always)
    private mutating func skipKey() -> Bool {
        literal("\"") && skipString() && literal(":")
    }

    /// Skips a string whose opening quote has been read, up to and past its closing quote,
    /// checking its escapes (the read's check has seen to its bytes).
    package mutating func skipString() -> Bool {
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

    @inline(__always)
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6
    }

    /// Skips a number by the JSON grammar (the file comment); what follows it is the caller's.
    package mutating func skipNumber() -> Bool {
        var i = position
        @inline(__always) func digits() -> Int {
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
