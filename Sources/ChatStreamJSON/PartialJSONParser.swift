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
// The files: this one holds the parser's state and its public face; +StateMachine the byte loop
// and the grammar between tokens; +Strings string content (UTF-8 checks, escapes); +Frame an open
// container; +Value the partial value; +Error the error type.
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

    /// The deepest nesting of objects and arrays allowed.
    public let maxDepth: Int
    /// The most input bytes accepted.
    public let maxBytes: Int

    var raw: [UInt8] = []
    var state = State.value
    var stack: [Frame] = []
    var root: JSONTree?
    /// Whether the frames hold the partial members placed by the last ``currentValue()``.
    var holdsPartialMembers = false
    private var failure: PartialJSONError?

    /// Where the token under way (string, number, literal) began.
    var tokenStart = 0
    /// The string under way (a key or a value), decoded so far.
    var string = ""
    var stringIsKey = false
    var unicodeValue: UInt32 = 0
    var unicodeDigits = 0
    /// A `\uD800`-`\uDBFF` escape waiting for its low half (0: none).
    var highSurrogate: UInt32 = 0
    /// UTF-8 sequence under way: continuation bytes still needed, the allowed range of the next
    /// one, the scalar so far, and whether the sequence began in an earlier chunk.
    var utf8Need = 0
    var utf8Lower: UInt8 = 0x80
    var utf8Upper: UInt8 = 0xBF
    var utf8Scalar: UInt32 = 0
    var utf8Split = false
    /// The number under way, as text, and where it stands in the grammar.
    var number: [UInt8] = []
    var numberState = NumberState.sign
    var literalText: StaticString = "null"
    var literalValue = JSONTree.null
    var literalIndex = 0

    /// Bytes run through the state machine (a test checks the total work stays linear).
    var bytesProcessed = 0

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
}
