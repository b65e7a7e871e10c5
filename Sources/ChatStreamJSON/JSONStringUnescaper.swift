/// Unescapes the raw text of a JSON string (between its quotes).
///
/// A surrogate pair escape (`\ud83d\ude00`) becomes its one scalar; a lone surrogate escape
/// becomes U+FFFD. Raw bytes between escapes are copied as they are: the parser has checked the
/// whole payload as UTF-8 before.
enum JSONStringUnescaper {
    /// Appends the unescaped bytes to `output`; returns an error (and leaves `output` partly
    /// written) when the text is not a valid JSON string body.
    static func unescape(_ raw: UnsafeRawBufferPointer, into output: JSONTape, streamOffset: Int) -> JSONError? {
        // Unescaping never makes a string longer than its raw text.
        output.reserveArena(raw.count)
        let count = raw.count
        var i = 0
        var runStart = 0
        func flushRun(_ end: Int) -> JSONError? {
            guard end > runStart else { return nil }
            output.appendArena(UnsafeRawBufferPointer(rebasing: raw[runStart..<end]))
            return nil
        }
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= count else { return nil }
            var value: UInt32 = 0
            for k in 0..<4 {
                let c = raw[at + k]
                let digit: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while i < count {
            guard raw[i] == UInt8(ascii: "\\") else {
                i += 1
                continue
            }
            if let error = flushRun(i) { return error }
            guard i + 1 < count else {
                return JSONError(.syntax, byteOffset: streamOffset + i, message: "unfinished escape")
            }
            let escape = raw[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.appendArenaByte(escape)
            case UInt8(ascii: "b"): output.appendArenaByte(0x08)
            case UInt8(ascii: "f"): output.appendArenaByte(0x0C)
            case UInt8(ascii: "n"): output.appendArenaByte(0x0A)
            case UInt8(ascii: "r"): output.appendArenaByte(0x0D)
            case UInt8(ascii: "t"): output.appendArenaByte(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hex4(i) else {
                    return JSONError(.syntax, byteOffset: streamOffset + i - 2, message: "invalid \\u escape")
                }
                i += 4
                var scalar = unit
                if unit & 0xFC00 == 0xD800 {
                    if i + 6 <= count, raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u"),
                        let low = hex4(i + 2), low & 0xFC00 == 0xDC00
                    {
                        scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if unit & 0xFC00 == 0xDC00 {
                    scalar = 0xFFFD
                }
                appendUTF8(scalar, to: output)
            default:
                return JSONError(.syntax, byteOffset: streamOffset + i - 2, message: "invalid escape")
            }
            runStart = i
        }
        return flushRun(count)
    }

    @inline(__always)
    static func appendUTF8(_ scalar: UInt32, to output: JSONTape) {
        switch scalar {
        case 0..<0x80:
            output.appendArenaByte(UInt8(scalar))
        case 0x80..<0x800:
            output.appendArenaByte(UInt8(0xC0 | scalar >> 6))
            output.appendArenaByte(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.appendArenaByte(UInt8(0xE0 | scalar >> 12))
            output.appendArenaByte(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.appendArenaByte(UInt8(0x80 | scalar & 0x3F))
        default:
            output.appendArenaByte(UInt8(0xF0 | scalar >> 18))
            output.appendArenaByte(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.appendArenaByte(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.appendArenaByte(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
