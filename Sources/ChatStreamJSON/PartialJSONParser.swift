// PartialJSONParser: an incremental JSON parser whose value can be read after every delta.
//
// Tool-call input streams as JSON text in pieces (`{"ci`, `ty": "Par`, `is"}`), often a byte at a
// time, and a UI shows the partial value after each piece. Re-parsing the accumulated text on
// every delta is quadratic; this parser reads each byte once and keeps the value under
// construction, so the total work is linear in the input.
//
// Design
// - A state machine over bytes: `state` says what is expected next (a value, a key, `:`, `,` or a
//   closer) or which token is being lexed (string, escape, `\u` digits, number, literal).
// - `stack` holds the open containers: completed members in a `[JSONTree]` or ``JSONObject`` that
//   are only ever appended to (amortized O(1)), plus the key whose value is under way.
// - A string under way is a Swift `String` appended to in runs: each chunk's plain bytes are
//   validated as UTF-8 byte by byte (a sequence split across chunks is held in `utf8Scalar` until
//   complete) and appended in one piece; escapes are decoded as they complete, including `\uXXXX`
//   split anywhere, surrogate pairs, and lone surrogates (each becomes U+FFFD).
// - Numbers collect their few bytes and are checked against JSON's grammar as they grow.
// - Reading `value` (PartialJSONParser+Value.swift) wraps the stack from the innermost container
//   out, sharing completed members with the stack by copy-on-write: it costs
//   O(depth + members of the open containers), never the size of completed members or strings.
//
// For example, the input `{"city":"Paris","days":3}` in three deltas:
//   `{"city":"Par`      stack: an object with key `city`, its string under way `Par`;
//                       `value` is {"city":"Par"} (the unfinished string as far as it goes)
//   `is","days":`       `city` is a member; key `days` waits for its value, so `value` leaves
//                       it out: {"city":"Paris"}
//   `3}`                the number ends at `}`, the object closes; `finish()` returns
//                       {"city":"Paris","days":3} (and throws `.truncated` had the `}` not come)

import ChatStreamBytes

/// An incremental JSON parser for streamed input: append pieces as they arrive and read the best
/// partial value after each one; total work is linear in the input length.
///
/// ```swift
/// var parser = PartialJSONParser()
/// try parser.append(#"{"city":"Par"#)
/// parser.value            // ["city": "Par"]
/// try parser.append(#"is","days":"#)
/// parser.value            // ["city": "Paris"]  (a key without a value yet is left out)
/// try parser.append("3}")
/// let input = try parser.finish()   // ["city": "Paris", "days": 3]
/// ```
///
/// The partial ``value`` shows open objects and arrays with their completed members plus the
/// partial last one: an unfinished string as its prefix, an unfinished number when it is a number
/// so far (`12` yes; `-`, `1.`, `1e` not yet), and leaves out unfinished literals (`tr`) and keys
/// whose value has not begun. Invalid input throws ``PartialJSONError`` with the byte offset; after
/// an error, every later `append` and `finish()` throws the same error.
public struct PartialJSONParser: Sendable {
    enum State: UInt8, Sendable {
        /// Expecting a value (at the start, after `:`, after `,` in an array).
        case value
        /// After `[`: a value or `]`.
        case firstValueOrEnd
        /// After `{`: a key or `}`.
        case firstKeyOrEnd
        /// After `,` in an object: a key.
        case key
        /// After a key: `:`.
        case colon
        /// After a member: `,` or the container's closer.
        case commaOrEnd
        /// The top-level value is complete: only whitespace may follow.
        case done
        case string, escape, unicode, afterHighSurrogate, afterHighSurrogateBackslash
        case number, literal
    }

    enum NumberState: UInt8, Sendable {
        case sign, zero, integer, dot, fraction, exponent, exponentSign, exponentDigits

        var isAccepting: Bool {
            self == .zero || self == .integer || self == .fraction || self == .exponentDigits
        }

        /// The state after `byte`, or `nil` when `byte` cannot continue the number.
        @inline(__always)
        func next(_ byte: UInt8) -> NumberState? {
            let isDigit = byte &- UInt8(ascii: "0") < 10
            switch self {
            case .sign: return byte == UInt8(ascii: "0") ? .zero : (isDigit ? .integer : nil)
            case .zero:
                if byte == UInt8(ascii: ".") { return .dot }
                return byte | 0x20 == UInt8(ascii: "e") ? .exponent : nil
            case .integer:
                if isDigit { return .integer }
                if byte == UInt8(ascii: ".") { return .dot }
                return byte | 0x20 == UInt8(ascii: "e") ? .exponent : nil
            case .dot: return isDigit ? .fraction : nil
            case .fraction:
                if isDigit { return .fraction }
                return byte | 0x20 == UInt8(ascii: "e") ? .exponent : nil
            case .exponent:
                if isDigit { return .exponentDigits }
                return byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") ? .exponentSign : nil
            case .exponentSign, .exponentDigits: return isDigit ? .exponentDigits : nil
            }
        }
    }

    /// An open container.
    struct Frame: Sendable {
        let isObject: Bool
        /// Where its `[` or `{` is, for messages.
        let openOffset: Int
        var elements: [JSONTree] = []
        var object = JSONObject()
        /// The key whose value is under way (objects).
        var key: String?
        /// Where a member named ``key`` already is (a repeated key), found once when the key ends.
        var keyPosition: Int?
        /// Key positions, kept once the object has more than `linearLookupLimit` members so that
        /// repeated-key checks stay O(1).
        var keyIndex: [JSONKey: Int] = [:]
        /// The partial member ``PartialJSONParser/currentValue()`` placed in the container, which
        /// the next byte read takes out again.
        var held = Held.none
        /// The completed member a repeated key's partial value stands in for while held.
        var heldReplaced = JSONTree.null

        /// How the partial member is held: not, appended last, or in a repeated key's place.
        enum Held: UInt8, Sendable { case none, appended, replaced }

        static let linearLookupLimit = 16

        init(isObject: Bool, openOffset: Int) {
            self.isObject = isObject
            self.openOffset = openOffset
        }

        func index(of key: String) -> Int? {
            object.count <= Self.linearLookupLimit ? object.index(ofKey: key) : keyIndex[JSONKey(key)]
        }

        /// Sets the key of the member under way (and where that key already is, if anywhere).
        mutating func setKey(_ key: String) {
            keyPosition = index(of: key)
            self.key = key
        }

        /// Adds the completed member under way; a repeated key keeps its last value at its first
        /// position.
        mutating func completeMember(_ value: JSONTree) {
            let key = self.key ?? ""
            self.key = nil
            if let position = keyPosition {
                keyPosition = nil
                object.replaceValue(at: position, with: value)
                return
            }
            object.appendUnchecked(key: key, value: value)
            let count = object.count
            if count == Self.linearLookupLimit + 1 {
                for (position, name) in object.keys.enumerated() { keyIndex[JSONKey(name)] = position }
            } else if count > Self.linearLookupLimit + 1 {
                keyIndex[JSONKey(key)] = count - 1
            }
        }

        /// Places `child` (the partial member under way) in the container, where a snapshot
        /// would show it.
        mutating func hold(_ child: JSONTree?) {
            guard let child else { return }
            guard isObject else {
                elements.append(child)
                held = .appended
                return
            }
            guard let key else { return }
            if let position = keyPosition {
                heldReplaced = object.values[position]
                object.replaceValue(at: position, with: child)
                held = .replaced
            } else {
                object.appendUnchecked(key: key, value: child)
                held = .appended
            }
        }

        /// Takes the held partial member out again (in place while no value read shares the
        /// container).
        mutating func release() {
            switch held {
            case .none: return
            case .appended:
                if isObject { object.removeLastUnchecked() } else { elements.removeLast() }
            case .replaced:
                if let position = keyPosition { object.replaceValue(at: position, with: heldReplaced) }
                heldReplaced = .null
            }
            held = .none
        }

        /// The container as a value.
        var containerValue: JSONTree { isObject ? .object(object) : .array(elements) }
    }

    /// The deepest nesting of objects and arrays allowed.
    public let maxDepth: Int
    /// The most input bytes accepted.
    public let maxBytes: Int

    private var raw: [UInt8] = []
    var state = State.value
    var stack: [Frame] = []
    var root: JSONTree?
    /// Whether the frames hold the partial members placed by the last ``currentValue()``.
    var holdsPartialMembers = false
    private var failure: PartialJSONError?

    /// Where the token under way (string, number, literal) began.
    private var tokenStart = 0
    /// The string under way (a key or a value), decoded so far.
    var string = ""
    var stringIsKey = false
    private var unicodeValue: UInt32 = 0
    private var unicodeDigits = 0
    /// A `\uD800`-`\uDBFF` escape waiting for its low half (0: none).
    private var highSurrogate: UInt32 = 0
    /// UTF-8 sequence under way: continuation bytes still needed, the allowed range of the next
    /// one, the scalar so far, and whether the sequence began in an earlier chunk.
    private var utf8Need = 0
    private var utf8Lower: UInt8 = 0x80
    private var utf8Upper: UInt8 = 0xBF
    private var utf8Scalar: UInt32 = 0
    private var utf8Split = false
    /// The number under way, as text, and where it stands in the grammar.
    var number: [UInt8] = []
    var numberState = NumberState.sign
    private var literalText: StaticString = "null"
    private var literalValue = JSONTree.null
    private var literalIndex = 0

    /// Bytes run through the state machine (a test checks the total work stays linear).
    private(set) var bytesProcessed = 0

    /// A parser.
    /// - Parameters:
    ///   - maxDepth: the deepest nesting of objects and arrays allowed (default 512).
    ///   - maxBytes: the most input bytes accepted (default 16 MiB).
    public init(maxDepth: Int = 512, maxBytes: Int = 16 << 20) {
        self.maxDepth = max(0, maxDepth)
        self.maxBytes = max(0, maxBytes)
    }

    /// The input so far, as text (kept so users can show the raw input). O(input length).
    public var text: String { String(decoding: raw, as: UTF8.self) }

    /// Whether the top-level value is complete. A top-level number is complete only once a byte
    /// after it (whitespace) or ``finish()`` shows it has ended.
    public var isComplete: Bool { root != nil }

    /// Appends the next piece of input.
    /// - Throws: ``PartialJSONError`` when the input so far is not a prefix of valid JSON, or a
    ///   limit is exceeded; then and after, every call throws that error.
    public mutating func append(_ bytes: some Collection<UInt8>) throws {
        if let failure { throw failure }
        let done: Void? = try bytes.withContiguousStorageIfAvailable { buffer in try appendContiguous(buffer) }
        if done == nil {
            try Array(bytes).withUnsafeBufferPointer { buffer in try appendContiguous(buffer) }
        }
    }

    /// Appends the next piece of input, given as text.
    /// - Throws: ``PartialJSONError``, as the byte-collection `append`.
    public mutating func append(_ text: String) throws {
        if let failure { throw failure }
        var text = text
        try text.withUTF8 { buffer in try appendContiguous(buffer) }
    }

    /// Ends the input and returns the complete value.
    ///
    /// - Throws: the error that stopped the parser, or ``PartialJSONError/Kind/truncated`` naming
    ///   what is missing (`unterminated string that starts at byte 9; missing '}' to close the
    ///   object opened at byte 0`) with the input's length as the offset.
    public mutating func finish() throws -> JSONTree {
        if let failure { throw failure }
        if let root { return root }
        releasePartialMembers()
        if state == .number, stack.isEmpty, numberState.isAccepting {
            try completeNumber()
            if let root { return root }
        }
        throw truncation()
    }

    private mutating func appendContiguous(_ buffer: UnsafeBufferPointer<UInt8>) throws(PartialJSONError) {
        if holdsPartialMembers { releasePartialMembers() }
        let base = raw.count
        let accepted = min(buffer.count, maxBytes - base)
        let part = UnsafeBufferPointer(rebasing: buffer[0..<accepted])
        raw.append(contentsOf: part)
        do throws(PartialJSONError) {
            try process(part, base: base)
            if accepted < buffer.count {
                throw PartialJSONError(
                    .sizeLimitExceeded, at: maxBytes, "input is longer than the maximum of \(maxBytes) bytes")
            }
        } catch {
            failure = error
            throw error
        }
    }

    // MARK: - The state machine

    private mutating func process(_ p: UnsafeBufferPointer<UInt8>, base: Int) throws(PartialJSONError) {
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
    private mutating func structural(_ byte: UInt8, at offset: Int) throws(PartialJSONError) {
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

    private mutating func startValue(_ byte: UInt8, at offset: Int) throws(PartialJSONError) {
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
    private mutating func startString(isKey: Bool, at offset: Int) {
        stringIsKey = isKey
        tokenStart = offset
        state = .string
    }

    /// Scans string content from `start`: appends runs of plain bytes in one piece, validating
    /// UTF-8; returns the index after the closing quote or backslash, or the chunk's end.
    private mutating func scanString(_ p: UnsafeBufferPointer<UInt8>, from start: Int, base: Int)
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
    private mutating func appendRun(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        guard start < end else { return }
        if end - start == 1 {
            string.unicodeScalars.append(Unicode.Scalar(p[start]))  // ASCII: a run of one is one byte
        } else {
            string.append(String(decoding: UnsafeBufferPointer(rebasing: p[start..<end]), as: UTF8.self))
        }
    }

    private mutating func decodedUnicodeEscape(_ value: UInt32) {
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
    private mutating func appendReplacementForHighSurrogate() {
        string.unicodeScalars.append("\u{FFFD}")
        highSurrogate = 0
    }

    private mutating func endString() {
        var value = ""
        swap(&value, &string)
        if stringIsKey {
            stack[stack.count - 1].setKey(value)
            state = .colon
        } else {
            complete(.string(value))
        }
    }

    private mutating func completeNumber() throws(PartialJSONError) {
        guard let value = number.withUnsafeBytes({ JSONNumber(validLiteral: $0) }) else {
            throw PartialJSONError(
                .invalidNumber, at: tokenStart, "'\(String(decoding: number, as: UTF8.self))' is not a number")
        }
        complete(.number(value))
    }

    /// Places a completed value in its container, or makes it the result.
    private mutating func complete(_ value: JSONTree) {
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

    private mutating func closeContainer() {
        let frame = stack.removeLast()
        complete(frame.isObject ? .object(frame.object) : .array(frame.elements))
    }

    // MARK: - Errors (slow path)

    @inline(never)
    private func unexpected(_ byte: UInt8, at offset: Int, expected: String) -> PartialJSONError {
        PartialJSONError(.unexpectedByte, at: offset, "expected \(expected), found \(describeByte(byte))")
    }

    @inline(never)
    private func invalidUTF8(at offset: Int) -> PartialJSONError {
        PartialJSONError(.invalidUTF8, at: offset, "invalid UTF-8 in a string")
    }

    @inline(never)
    private func truncation() -> PartialJSONError {
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
