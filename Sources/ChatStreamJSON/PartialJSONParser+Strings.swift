// PartialJSONParser's strings: content appended in runs, UTF-8 checked, escapes decoded.
//
// A string's plain bytes are appended to the `String` under way in one piece per chunk, checked
// as UTF-8 byte by byte on the way (the allowed range of each continuation byte, so overlong forms
// and surrogates are refused); a sequence cut by the chunk's end is held in `utf8Scalar` and
// appended alone once complete. Escapes are decoded as they complete, `\uXXXX` split anywhere;
// a high surrogate waits for its low half, and a lone one becomes U+FFFD.
//
// For example, `"caf` then `\xC3` then `\xA9 \ud83d` then `\ude00"` gives "café 😀": `caf`
// is appended as a run, the split `é` is held until its second byte, and the surrogate pair is
// joined into one scalar.

import ChatStreamBytes

extension PartialJSONParser {
    /// Scans string content from `start`: appends runs of plain bytes in one piece, validating
    /// UTF-8; returns the index after the closing quote or backslash, or the chunk's end.
    mutating func scanString(_ p: UnsafeBufferPointer<UInt8>, from start: Int, base: Int)
        throws(PartialJSONError) -> Int
    {
        let count = p.count
        var i = start
        var runStart = start
        var sequenceStart = start
        while i < count {
            let byte = p[i]
            if utf8Need != 0 {
                guard byte >= utf8Lower && byte <= utf8Upper else { throw invalidUTF8(at: base + i) }
                utf8Lower = 0x80
                utf8Upper = 0xBF
                utf8Scalar = utf8Scalar << 6 | UInt32(byte & 0x3F)
                utf8Need -= 1
                i += 1
                if utf8Split {
                    // The sequence began in an earlier chunk: append it alone once complete.
                    runStart = i
                    if utf8Need == 0 {
                        string.unicodeScalars.append(Unicode.Scalar(utf8Scalar) ?? "\u{FFFD}")
                        utf8Split = false
                    }
                }
                continue
            }
            if byte < 0x80 {
                if byte == UInt8(ascii: "\"") {
                    appendRun(p, runStart, i)
                    endString()
                    return i + 1
                }
                if byte == UInt8(ascii: "\\") {
                    appendRun(p, runStart, i)
                    state = .escape
                    return i + 1
                }
                if byte < 0x20 {
                    throw PartialJSONError(
                        .controlCharacterInString, at: base + i,
                        "control character \(describeByte(byte)) must be escaped in a string")
                }
                i += 1
                continue
            }
            switch byte {
            case 0xC2...0xDF: utf8Need = 1
            case 0xE0: utf8Need = 2; utf8Lower = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: utf8Need = 2
            case 0xED: utf8Need = 2; utf8Upper = 0x9F
            case 0xF0: utf8Need = 3; utf8Lower = 0x90
            case 0xF1...0xF3: utf8Need = 3
            case 0xF4: utf8Need = 3; utf8Upper = 0x8F
            default: throw invalidUTF8(at: base + i)
            }
            utf8Scalar = UInt32(byte & (0x3F >> utf8Need))
            sequenceStart = i
            i += 1
        }
        if utf8Need != 0 && !utf8Split {
            // A sequence begun in this chunk is cut by its end: hold it until complete.
            appendRun(p, runStart, sequenceStart)
            utf8Split = true
        } else {
            appendRun(p, runStart, count)
        }
        return count
    }

    @inline(__always)
    mutating func appendRun(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        guard start < end else { return }
        if end - start == 1 {
            string.unicodeScalars.append(Unicode.Scalar(p[start]))  // ASCII: a run of one is one byte
        } else {
            string.append(String(decoding: UnsafeBufferPointer(rebasing: p[start..<end]), as: UTF8.self))
        }
    }

    mutating func decodedUnicodeEscape(_ value: UInt32) {
        state = .string
        if highSurrogate != 0 {
            if value >= 0xDC00 && value <= 0xDFFF {
                let scalar = 0x10000 + ((highSurrogate - 0xD800) << 10) + (value - 0xDC00)
                string.unicodeScalars.append(Unicode.Scalar(scalar) ?? "\u{FFFD}")
                highSurrogate = 0
                return
            }
            appendReplacementForHighSurrogate()
        }
        if value >= 0xD800 && value <= 0xDBFF {
            highSurrogate = value
            state = .afterHighSurrogate
        } else {
            // A lone low surrogate has no scalar: U+FFFD.
            string.unicodeScalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
    }

    /// A high surrogate not followed by a low one becomes U+FFFD.
    mutating func appendReplacementForHighSurrogate() {
        string.unicodeScalars.append("\u{FFFD}")
        highSurrogate = 0
    }

    mutating func endString() {
        var value = ""
        swap(&value, &string)
        if stringIsKey {
            stack[stack.count - 1].setKey(value)
            state = .colon
        } else {
            complete(.string(value))
        }
    }
}
