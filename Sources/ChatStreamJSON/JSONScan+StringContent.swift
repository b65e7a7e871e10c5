// JSONScan+StringContent: a captured string whose two-character escapes (`\n`, `\"`, `\\`, …) the
// scan accepts, for the text a dialect lends: about one text delta in six of a usual reply holds
// a quote, a backslash, a newline or a tab, and such a unit went whole to yajl, which cost more
// than the rest of the reply's units together (the callgrind profiles of the bench's Responses
// and Ollama streams, issue 32). The read remembers whether it met an escape, so a plain string
// (the usual case) costs what `plainString()` or `checkedPlainString()` costs, and only one with
// escapes is decoded, into a temporary buffer, when the dialect uses it. A `\u` escape is still
// declined: yajl reads it (surrogate pairs and all) and reports its errors.

extension JSONScan {
    /// A string's content as a scan read it: its bytes as written (escapes included) and whether
    /// it holds an escape. Every escape in it is one of `\" \\ \/ \b \f \n \r \t`.
    public struct StringContent {
        /// The bytes between the quotes, escapes as written.
        public let raw: UnsafeRawBufferPointer
        /// Whether ``raw`` holds an escape (so ``withDecoded(_:)`` decodes it into a copy).
        public let hasEscapes: Bool

        @inlinable
        init(raw: UnsafeRawBufferPointer, hasEscapes: Bool) {
            self.raw = raw
            self.hasEscapes = hasEscapes
        }

        /// Calls `use` with the string's decoded bytes (well-formed UTF-8 when the scan checked
        /// them): ``raw`` itself without escapes, else a decoded copy that lives only during the
        /// call (on the stack for a short string).
        @inlinable
        public func withDecoded<R>(_ use: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            guard hasEscapes else { return try use(raw) }
            return try JSONScan.withShortEscapesDecodedCopy(raw, use)
        }
    }

    /// The content of a string whose opening quote has been read, up to and past its closing
    /// quote, checked as it is read as ``plainString()`` checks it but with its two-character
    /// escapes accepted; nil (cursor unchanged) on a `\u` escape, any other backslash, a control
    /// character, ill-formed UTF-8 or no closing quote. For a scan of an exact shape.
    @inlinable
    public mutating func stringContent() -> StringContent? {
        // Eight bytes a step to the closing quote (past each escape), then the content's bytes
        // checked in words (JSONPayloadScan): a byte loop cost 17 instructions a byte of text (v4's
        // text parts). `plainString()` keeps its byte loop: on the one-byte strings of streamed
        // tool input and on short IDs it costs less (`--profile tool-ui` +3.2% in words).
        let start = position
        var i = JSONValueScanner.firstQuoteOrBackslash(UnsafeRawPointer(base), from: start, to: end)
        var escapes = false
        while i < end, base[i] == UInt8(ascii: "\\") {
            guard i &+ 1 < end, Self.isShortEscape(base[i &+ 1]) else { return nil }
            escapes = true
            i = JSONValueScanner.firstQuoteOrBackslash(UnsafeRawPointer(base), from: i &+ 2, to: end)
        }
        guard i < end else { return nil }
        let content = UnsafeRawBufferPointer(start: base + start, count: i &- start)
        guard JSONPayloadScan.isUTF8WithoutControlBytes(content) else { return nil }
        position = i &+ 1
        return StringContent(raw: content, hasEscapes: escapes)
    }

    /// ``stringContent()`` for a scan made with ``init(members:depth:configuration:)``, whose
    /// bytes were checked when it began: the string up to and past its closing quote, its
    /// two-character escapes accepted; nil (cursor unchanged) on a `\u` escape, any other
    /// backslash or no closing quote.
    @inlinable @inline(__always)
    public mutating func checkedStringContent() -> StringContent? {
        let start = position
        let i = JSONValueScanner.firstQuoteOrBackslash(UnsafeRawPointer(base), from: start, to: end)
        guard i < end else { return nil }
        if base[i] == UInt8(ascii: "\"") {
            position = i &+ 1
            return StringContent(raw: UnsafeRawBufferPointer(start: base + start, count: i &- start), hasEscapes: false)
        }
        return checkedEscapedStringContent(from: start, backslash: i)
    }

    /// The rest of ``checkedStringContent()`` past its first backslash (out of line: one text in
    /// six has one).
    @usableFromInline
    mutating func checkedEscapedStringContent(from start: Int, backslash: Int) -> StringContent? {
        var i = backslash
        while true {
            // `i` is at a quote or a backslash.
            guard i < end else { return nil }
            if base[i] == UInt8(ascii: "\"") { break }
            guard i &+ 1 < end, Self.isShortEscape(base[i &+ 1]) else { return nil }
            i = JSONValueScanner.firstQuoteOrBackslash(UnsafeRawPointer(base), from: i &+ 2, to: end)
        }
        position = i &+ 1
        return StringContent(raw: UnsafeRawBufferPointer(start: base + start, count: i &- start), hasEscapes: true)
    }

    /// Whether `byte` after a backslash makes a two-character escape (`u` does not).
    @inlinable @inline(__always)
    static func isShortEscape(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        default:
            return false
        }
    }

    /// Calls `use` with `body`'s two-character escapes decoded into a temporary buffer; every
    /// backslash in `body` must start one (as ``StringContent`` guarantees). Inlinable so that
    /// it is specialized for its caller's result (a generic call would look up metadata each time).
    @inlinable
    static func withShortEscapesDecodedCopy<R>(
        _ body: UnsafeRawBufferPointer, _ use: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: body.count, alignment: 1) { buffer in
            let count = decodeShortEscapes(body, into: buffer)
            return try use(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// Decodes `body`'s two-character escapes into `buffer` (at least as long); the decoded count.
    @usableFromInline
    static func decodeShortEscapes(_ body: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var count = 0
        var i = 0
        while i < body.count {
            var byte = body[i]
            i &+= 1
            if byte == UInt8(ascii: "\\"), i < body.count, let unescaped = shortEscape(body[i]) {
                byte = unescaped
                i &+= 1
            }
            buffer[count] = byte
            count &+= 1
        }
        return count
    }
}
