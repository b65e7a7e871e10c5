// The chunked transfer coding (RFC 9112 section 7.1) of a response body, decoded incrementally
// for PlainHTTPTransport and the server's upstream requests: a byte at a time where a size line,
// a chunk's line break or a trailer field may be split across reads, a chunk's data and (when a
// whole one is in the input) its line break and the next plain size line in one step. A fault is
// an HTTPResponseParseError naming what and its byte offset in the body.

/// Decodes the chunked transfer coding incrementally: any split of the input decodes the same.
///
/// Chunk extensions (`;name=value` after the size) are skipped; trailer fields after the last
/// chunk are read and dropped (their total size is limited like a head's fields).
///
/// ```swift
/// var decoder = ChunkedBodyDecoder(maxTrailerBytes: 64 << 10)
/// var body: [UInt8] = []
/// try decoder.decode(Array("5\r\nhello\r\n0\r\n\r\n".utf8)[...], into: &body)
/// // body == Array("hello".utf8), decoder.isComplete == true
/// ```
package struct ChunkedBodyDecoder {
    private enum State {
        /// Reading the size's hex digits (`digits` so far).
        case size(digits: Int)
        /// After the size: an extension, or whitespace, up to the line's end.
        case sizeLineRest
        /// The size line's CR was read; its LF must follow.
        case sizeLineLF
        /// Reading a chunk's data.
        case data
        /// After a chunk's data: CR LF (or LF).
        case dataCR
        case dataLF
        /// In a trailer line; `empty` while nothing of it was read (an empty one ends the body).
        case trailerLine(empty: Bool)
        /// The CR of a line in the trailer section was read; `empty` when it was the blank line.
        case trailerLF(empty: Bool)
        /// The last chunk and the trailer section were read.
        case done
    }

    private var state = State.size(digits: 0)
    private var size = 0
    private var remaining = 0
    /// Bytes of the body read so far (the error offsets).
    package private(set) var offset = 0
    private var extensionBytes = 0
    private var trailerBytes = 0
    /// The most bytes of chunk extensions on one line, and of trailer fields in all.
    package let maxTrailerBytes: Int

    package init(maxTrailerBytes: Int) { self.maxTrailerBytes = maxTrailerBytes }

    /// Whether the last chunk and its trailer section have been read.
    package var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Decodes `input`, appending the data to `output`; bytes after the end of the body are
    /// ignored. Returns how many bytes of `input` belonged to the body.
    ///
    /// - Throws: ``HTTPResponseParseError``, naming the problem and its byte offset in the body.
    @discardableResult
    package mutating func decode(_ input: ArraySlice<UInt8>, into output: inout [UInt8]) throws -> Int {
        try input.withUnsafeBufferPointer { try decode($0, into: &output) }
    }

    /// As the `ArraySlice` form above, from bytes in place (a read buffer).
    @discardableResult
    package mutating func decode(_ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) throws -> Int {
        var index = input.startIndex
        while index < input.endIndex {
            if case .done = state { break }
            if case .data = state {
                let take = min(remaining, input.endIndex - index)
                output.append(contentsOf: input[index..<(index + take)])
                index += take
                offset += take
                remaining -= take
                if remaining == 0 { state = .dataCR }
                continue
            }
            if let length = takeWholeLines(input, at: index) {
                index += length
                offset += length
                continue
            }
            try step(input[index])
            index += 1
            offset += 1
        }
        return index - input.startIndex
    }

    /// The common case in one step rather than byte by byte: a chunk's data ends in CR LF and, when
    /// it is whole in `input`, the next size line is hex digits and CR LF (no extension). Returns
    /// the bytes taken (the state is then as `step` would have left it), or nil to go byte by byte
    /// (anything else, including every malformed case, so errors and their offsets are `step`'s).
    private mutating func takeWholeLines(_ input: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        var index = start
        if case .dataCR = state {
            guard input.endIndex - index >= 2, input[index] == 0x0D, input[index + 1] == 0x0A else { return nil }
            index += 2
            state = .size(digits: 0)
        }
        guard case .size(digits: 0) = state else { return index == start ? nil : index - start }
        var end = index
        var value = 0
        while end < input.endIndex, end - index < 15, let digit = Self.hexValue(input[end]) {
            value = value * 16 + digit
            end += 1
        }
        guard end > index, input.endIndex - end >= 2, input[end] == 0x0D, input[end + 1] == 0x0A, value > 0 else {
            return index == start ? nil : index - start
        }
        remaining = value
        state = .data
        return end + 2 - start
    }

    private mutating func step(_ byte: UInt8) throws {
        switch state {
        case .size(let digits):
            if let value = Self.hexValue(byte) {
                guard digits < 15 else { throw error("a chunk size of more than 15 hex digits") }
                size = size * 16 + value
                state = .size(digits: digits + 1)
                return
            }
            guard digits > 0 else {
                throw error("\(HTTPByteName.of(byte)) where a chunk size (hex digits) was expected")
            }
            try endOfSizeDigits(byte)
        case .sizeLineRest:
            if byte == 0x0D {
                state = .sizeLineLF
            } else if byte == 0x0A {
                try endOfSizeLine()
            } else {
                guard byte != 0 else { throw error("a NUL byte in a chunk extension") }
                extensionBytes += 1
                guard extensionBytes <= maxTrailerBytes else {
                    throw error("a chunk extension of more than \(maxTrailerBytes) bytes")
                }
            }
        case .sizeLineLF:
            guard byte == 0x0A else { throw error("\(HTTPByteName.of(byte)) after CR where LF ends a chunk size line") }
            try endOfSizeLine()
        case .data:
            // Handled in bulk by `decode`.
            break
        case .dataCR:
            if byte == 0x0D {
                state = .dataLF
            } else if byte == 0x0A {
                state = .size(digits: 0)
            } else {
                throw error("\(HTTPByteName.of(byte)) where the line break after a chunk's data was expected")
            }
        case .dataLF:
            guard byte == 0x0A else { throw error("\(HTTPByteName.of(byte)) after CR where LF ends a chunk's data") }
            state = .size(digits: 0)
        case .trailerLine(let empty):
            if byte == 0x0D {
                state = .trailerLF(empty: empty)
            } else if byte == 0x0A {
                state = empty ? .done : .trailerLine(empty: true)
            } else {
                try countTrailerByte()
                state = .trailerLine(empty: false)
            }
        case .trailerLF(let empty):
            guard byte == 0x0A else { throw error("\(HTTPByteName.of(byte)) after CR where LF ends a trailer line") }
            state = empty ? .done : .trailerLine(empty: true)
        case .done:
            break
        }
    }

    /// The first byte after a size's digits: an extension, whitespace, or the line's end.
    private mutating func endOfSizeDigits(_ byte: UInt8) throws {
        switch byte {
        case UInt8(ascii: ";"), 0x20, 0x09:
            extensionBytes = 1
            state = .sizeLineRest
        case 0x0D: state = .sizeLineLF
        case 0x0A: try endOfSizeLine()
        default: throw error("\(HTTPByteName.of(byte)) in a chunk size")
        }
    }

    private mutating func endOfSizeLine() throws {
        extensionBytes = 0
        if size == 0 {
            state = .trailerLine(empty: true)
        } else {
            remaining = size
            size = 0
            state = .data
        }
    }

    private mutating func countTrailerByte() throws {
        trailerBytes += 1
        guard trailerBytes <= maxTrailerBytes else {
            throw error("trailer fields of more than \(maxTrailerBytes) bytes")
        }
    }

    private func error(_ what: String) -> HTTPResponseParseError {
        HTTPResponseParseError(.invalid, "invalid chunked body: \(what) at byte \(offset) of the body")
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }
}
