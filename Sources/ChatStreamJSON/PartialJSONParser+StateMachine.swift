// PartialJSONParser's state machine: the byte loop and the grammar between tokens.
//
// `process` reads each byte once. In a token (string, escape, `\u` digits, number, literal) the
// token's own state consumes it; between tokens whitespace is skipped and `structural` checks the
// byte against what `state` expects (a value, a key, `:`, `,` or a closer), opening and closing
// containers on the frame stack. A completed value goes to its container or becomes the root.
// Errors name the byte offset and what was expected; the truncation message of `finish()` lists
// everything still open, innermost first.
//
// For example, `[1,tr` leaves the array open with member 1 and the literal `true` two bytes in
// (state `.literal`); `ue]` completes the literal, adds it and closes the array; `finish()` on
// `[1,tr` instead throws "unexpected end of input: incomplete literal 'tr' at byte 3; missing
// ']' to close the array opened at byte 0".

import ChatStreamBytes

extension PartialJSONParser {
    mutating func process(_ p: UnsafeBufferPointer<UInt8>, base: Int) throws(PartialJSONError) {
        let count = p.count
        bytesProcessed += count
        var i = 0
        while i < count {
            switch state {
            case .string:
                i = try scanString(p, from: i, base: base)
            case .escape:
                let byte = p[i]
                let scalar: Unicode.Scalar
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalar = Unicode.Scalar(byte)
                case UInt8(ascii: "b"): scalar = "\u{08}"
                case UInt8(ascii: "f"): scalar = "\u{0C}"
                case UInt8(ascii: "n"): scalar = "\n"
                case UInt8(ascii: "r"): scalar = "\r"
                case UInt8(ascii: "t"): scalar = "\t"
                case UInt8(ascii: "u"):
                    unicodeValue = 0
                    unicodeDigits = 0
                    state = .unicode
                    i += 1
                    continue
                default:
                    throw PartialJSONError(
                        .invalidEscape, at: base + i,
                        "invalid escape: \(describeByte(byte)) after a backslash in a string")
                }
                string.unicodeScalars.append(scalar)
                state = .string
                i += 1
            case .unicode:
                let byte = p[i]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default:
                    throw PartialJSONError(
                        .invalidEscape, at: base + i,
                        "\(describeByte(byte)) is not a hex digit in a \\u escape")
                }
                unicodeValue = unicodeValue << 4 | UInt32(digit)
                unicodeDigits += 1
                i += 1
                if unicodeDigits == 4 { decodedUnicodeEscape(unicodeValue) }
            case .afterHighSurrogate:
                if p[i] == UInt8(ascii: "\\") {
                    state = .afterHighSurrogateBackslash
                    i += 1
                } else {
                    appendReplacementForHighSurrogate()
                    state = .string  // the byte is read again as string content
                }
            case .afterHighSurrogateBackslash:
                if p[i] == UInt8(ascii: "u") {
                    unicodeValue = 0
                    unicodeDigits = 0
                    state = .unicode
                    i += 1
                } else {
                    appendReplacementForHighSurrogate()
                    state = .escape  // the byte is read again as an escape
                }
            case .number:
                let byte = p[i]
                if let next = numberState.next(byte) {
                    number.append(byte)
                    numberState = next
                    i += 1
                } else if numberState.isAccepting {
                    try completeNumber()  // the byte is read again after the number
                } else {
                    throw PartialJSONError(
                        .invalidNumber, at: base + i,
                        "\(describeByte(byte)) cannot follow '\(String(decoding: number, as: UTF8.self))' in a number"
                    )
                }
            case .literal:
                let byte = p[i]
                guard byte == literalText.utf8Start[literalIndex] else {
                    throw PartialJSONError(
                        .invalidLiteral, at: base + i,
                        "\(describeByte(byte)) where '\(literalText)' was expected")
                }
                literalIndex += 1
                i += 1
                if literalIndex == literalText.utf8CodeUnitCount { complete(literalValue) }
            default:
                let byte = p[i]
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                    || byte == UInt8(ascii: "\t")
                {
                    i += 1
                    continue
                }
                try structural(byte, at: base + i)
                i += 1
            }
        }
    }

    /// Handles a non-whitespace byte between tokens.
    @inline(__always)
    mutating func structural(_ byte: UInt8, at offset: Int) throws(PartialJSONError) {
        switch state {
        case .value, .firstValueOrEnd:
            if byte == UInt8(ascii: "]"), state == .firstValueOrEnd {
                closeContainer()
            } else {
                try startValue(byte, at: offset)
            }
        case .firstKeyOrEnd, .key:
            if byte == UInt8(ascii: "\"") {
                startString(isKey: true, at: offset)
            } else if byte == UInt8(ascii: "}"), state == .firstKeyOrEnd {
                closeContainer()
            } else {
                throw unexpected(byte, at: offset, expected: state == .key ? "a string key" : "a string key or '}'")
            }
        case .colon:
            guard byte == UInt8(ascii: ":") else { throw unexpected(byte, at: offset, expected: "':' after the key") }
            state = .value
        case .commaOrEnd:
            let isObject = stack[stack.count - 1].isObject
            if byte == UInt8(ascii: ",") {
                state = isObject ? .key : .value
            } else if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                closeContainer()
            } else {
                throw unexpected(byte, at: offset, expected: isObject ? "',' or '}'" : "',' or ']'")
            }
        case .done:
            throw PartialJSONError(
                .trailingData, at: offset, "unexpected \(describeByte(byte)) after the complete value")
        default:
            preconditionFailure("unreachable: token states are handled by the caller")
        }
    }

    mutating func startValue(_ byte: UInt8, at offset: Int) throws(PartialJSONError) {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < maxDepth else {
                throw PartialJSONError(
                    .depthLimitExceeded, at: offset, "objects and arrays nest deeper than the maximum depth \(maxDepth)"
                )
            }
            let isObject = byte == UInt8(ascii: "{")
            stack.append(Frame(isObject: isObject, openOffset: offset))
            state = isObject ? .firstKeyOrEnd : .firstValueOrEnd
        case UInt8(ascii: "\""):
            startString(isKey: false, at: offset)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            number.removeAll(keepingCapacity: true)
            number.append(byte)
            numberState = byte == UInt8(ascii: "-") ? .sign : (byte == UInt8(ascii: "0") ? .zero : .integer)
            tokenStart = offset
            state = .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            switch byte {
            case UInt8(ascii: "t"): (literalText, literalValue) = ("true", .bool(true))
            case UInt8(ascii: "f"): (literalText, literalValue) = ("false", .bool(false))
            default: (literalText, literalValue) = ("null", .null)
            }
            literalIndex = 1
            tokenStart = offset
            state = .literal
        default:
            throw unexpected(byte, at: offset, expected: "a value")
        }
    }

    @inline(__always)
    mutating func startString(isKey: Bool, at offset: Int) {
        stringIsKey = isKey
        tokenStart = offset
        state = .string
    }

    mutating func completeNumber() throws(PartialJSONError) {
        guard let value = number.withUnsafeBytes({ JSONNumber(validLiteral: $0) }) else {
            throw PartialJSONError(
                .invalidNumber, at: tokenStart, "'\(String(decoding: number, as: UTF8.self))' is not a number")
        }
        complete(.number(value))
    }

    /// Places a completed value in its container, or makes it the result.
    mutating func complete(_ value: JSONTree) {
        guard !stack.isEmpty else {
            root = value
            state = .done
            return
        }
        let top = stack.count - 1
        if stack[top].isObject {
            stack[top].completeMember(value)
        } else {
            stack[top].elements.append(value)
        }
        state = .commaOrEnd
    }

    mutating func closeContainer() {
        let frame = stack.removeLast()
        complete(frame.isObject ? .object(frame.object) : .array(frame.elements))
    }

    // MARK: - Errors (slow path)

    @inline(never)
    func unexpected(_ byte: UInt8, at offset: Int, expected: String) -> PartialJSONError {
        PartialJSONError(.unexpectedByte, at: offset, "expected \(expected), found \(describeByte(byte))")
    }

    @inline(never)
    func invalidUTF8(at offset: Int) -> PartialJSONError {
        PartialJSONError(.invalidUTF8, at: offset, "invalid UTF-8 in a string")
    }

    @inline(never)
    func truncation() -> PartialJSONError {
        var parts: [String] = []
        switch state {
        case .string, .escape, .unicode, .afterHighSurrogate, .afterHighSurrogateBackslash:
            parts.append("unterminated \(stringIsKey ? "key" : "string") that starts at byte \(tokenStart)")
        case .number:
            parts.append("incomplete number '\(String(decoding: number, as: UTF8.self))' at byte \(tokenStart)")
        case .literal:
            let prefix = String(
                decoding: UnsafeBufferPointer(start: literalText.utf8Start, count: literalIndex), as: UTF8.self)
            parts.append("incomplete literal '\(prefix)' at byte \(tokenStart)")
        case .value where stack.isEmpty:
            parts.append("expected a JSON value")
        case .value, .firstValueOrEnd:
            parts.append("expected a value")
        case .firstKeyOrEnd, .key:
            parts.append("expected a key")
        case .colon:
            parts.append("expected ':' and a value")
        case .commaOrEnd, .done:
            break
        }
        for frame in stack.reversed() {
            parts.append(
                frame.isObject
                    ? "missing '}' to close the object opened at byte \(frame.openOffset)"
                    : "missing ']' to close the array opened at byte \(frame.openOffset)")
        }
        return PartialJSONError(.truncated, at: raw.count, "unexpected end of input: " + parts.joined(separator: "; "))
    }
}
