// JSONValueScanner: finds where one JSON value ends in a stream of byte chunks, without parsing it.
//
// Framing comes before parsing (see ARCHITECTURE.md): a framer scans bytes to find each complete
// value and only then hands the value's bytes to the parser, so the parser never sees a token
// split across two calls. The scanner tracks just enough to find the end:
//
// - strings, with backslash escapes, so that `]`, `}`, `,` and `\"` inside them are skipped;
// - the nesting depth of `[`/`{` versus `]`/`}` (a count, not a stack: memory stays constant
//   however deep the input tries to go, and the depth limit stops it early);
// - the extent of a top-level scalar (`123`, `true`), which ends at whitespace, at a structural
//   byte, or at end of input.
//
// It does not validate: `[}` or `{"a" 1}` frame fine and the parser reports them. It does check
// that a value starts with a byte that can start a JSON value, so that junk between values is
// reported by the framer at its offset.
//
// It lives in the JSON layer with the rest of the grammar (`JSONScan` shares its string search);
// the JSON framers of ChatStream (array elements, value sequences) and `JSONStreamParser` drive
// it through `JSONFramerCarry`, and report its ``JSONValueScanner/Failure`` in their own error
// type. For example, fed `{"a":"}"} 12` from index 0 it returns 9 (just past the `}` that closes
// the object, the one inside the string skipped); fed again from index 10 it returns nil (`12`
// may go on) and ``JSONValueScanner/endsAtEndOfInput`` is then true.
import ChatStreamBytes

/// Finds the end of one JSON value in bytes that arrive in pieces (see the file header).
///
/// Call ``scan(_:from:streamOffset:)`` with the byte where a value starts, then with each following
/// chunk from index 0, until it returns the end index; ``endsAtEndOfInput`` says whether a value cut
/// off by the end of the stream is nevertheless complete (a top-level scalar).
@usableFromInline package struct JSONValueScanner: Sendable {
    /// Why the scanner stopped: a byte that cannot start a value, the depth limit, or the size
    /// limit, at a stream offset. The framers report it as a `FramingError`, `JSONStreamParser`
    /// as a ``JSONError``.
    package struct Failure: Error, Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            case unexpectedByte, depthLimitExceeded, valueTooLarge
        }
        package var kind: Kind
        package var byteOffset: Int
        package var message: String

        init(_ kind: Kind, at byteOffset: Int, _ message: String) {
            self.kind = kind
            self.byteOffset = byteOffset
            self.message = message
        }
    }

    private enum Mode: UInt8, Sendable {
        case idle, string, stringEscape, container, scalar
    }

    let maxDepth: Int
    let maxValueBytes: Int
    private var mode: Mode = .idle
    private var depth = 0
    /// Bytes of the current value consumed before the current chunk.
    private var valueBytes = 0

    package init(maxDepth: Int, maxValueBytes: Int) {
        self.maxDepth = max(1, maxDepth)
        self.maxValueBytes = max(1, maxValueBytes)
    }

    /// Whether a value has started and not yet ended.
    package var isScanning: Bool { mode != .idle }

    /// Whether the value under way is complete if the input ends now: true only for a top-level
    /// scalar (`123`, `true`), which has no closing byte.
    package var endsAtEndOfInput: Bool { mode == .scalar }

    /// Forgets the value under way.
    package mutating func reset() {
        mode = .idle
        depth = 0
        valueBytes = 0
    }

    /// Whether `byte` can start a JSON value.
    @inline(__always)
    package static func canStartValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "-"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return true
        default:
            return false
        }
    }

    /// Whether `byte` ends a top-level scalar: JSON whitespace or a structural byte.
    @inline(__always)
    package static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
            UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "{"),
            UInt8(ascii: "\""), UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }

    /// Scans `bytes[start...]` as the continuation of the value under way (or its start, when no
    /// value is under way: then `bytes[start]` must be the value's first byte).
    ///
    /// - Returns: the index just past the value's last byte when it ends inside `bytes` (for a
    ///   scalar, the index of the byte that ends it, which is not part of it), after which the
    ///   scanner is idle again; `nil` when every byte from `start` on belongs to the value.
    /// - Throws: ``Failure`` for a byte that cannot start a value, the depth limit, or the
    ///   size limit; `streamOffset` is the stream offset of `bytes[0]`, used in the error.
    package mutating func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, streamOffset: Int) throws(Failure)
        -> Int?
    {
        let count = bytes.count
        guard start < count else { return nil }
        // Stop at the size limit: the value may not extend to `stop` or beyond.
        let room = maxValueBytes - valueBytes
        let stop = room < count - start ? start + room : count
        var i = start
        if mode == .idle {
            let first = bytes[i]
            switch first {
            case UInt8(ascii: "\""):
                mode = .string
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                mode = .container
                depth = 1
            default:
                guard Self.canStartValue(first) else { throw startError(first, at: streamOffset + i) }
                mode = .scalar
            }
            i += 1
        }
        let base = bytes.baseAddress!  // non-empty: start < count
        while i < stop {
            switch mode {
            case .string:
                // The hot loop: skip string content, a word at a time, to a quote or a backslash.
                i = Self.firstQuoteOrBackslash(base, from: i, to: stop)
                guard i < stop else { break }
                let byte = bytes[i]
                i += 1
                if byte == UInt8(ascii: "\\") {
                    mode = .stringEscape
                } else {
                    if depth == 0 { return finished(at: i) }
                    mode = .container
                }
            case .stringEscape:
                i += 1
                mode = .string
            case .container:
                // Byte by byte: between strings there are only a few bytes (`":`, `,"`, `":[{"`).
                while i < stop {
                    let byte = bytes[i]
                    i += 1
                    if byte == UInt8(ascii: "\"") {
                        mode = .string
                        break
                    } else if byte | 0x20 == UInt8(ascii: "{") {  // `[` or `{`
                        depth += 1
                        if depth > maxDepth { throw depthError(at: streamOffset + i - 1) }
                    } else if byte | 0x20 == UInt8(ascii: "}") {  // `]` or `}`
                        depth -= 1
                        if depth == 0 { return finished(at: i) }
                    }
                }
            case .scalar:
                while i < stop {
                    if Self.endsScalar(bytes[i]) { return finished(at: i) }
                    i += 1
                }
            case .idle:
                preconditionFailure("unreachable: idle after start")
            }
        }
        if stop < count {
            // The limit was reached with bytes left: fine only if a scalar ends exactly here.
            if mode == .scalar, Self.endsScalar(bytes[stop]) { return finished(at: stop) }
            throw sizeError(at: streamOffset + stop)
        }
        valueBytes += count - start
        return nil
    }

    // MARK: - Word-at-a-time search in strings
    //
    // Eight bytes are loaded at once and tested for `"` and `\` (``WordLanes``); only the lowest
    // flag is used. (Between strings there are only a few bytes, so the container loop stays
    // byte by byte: words cost more than they save there.)

    /// The index of the first `"` or `\` in `base[start..<stop]`, or `stop`. (Also the string
    /// scan of `JSONScan`.)
    @inlinable @inline(__always)
    package static func firstQuoteOrBackslash(_ base: UnsafeRawPointer, from start: Int, to stop: Int) -> Int {
        var i = start
        while i &+ 8 <= stop {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let found =
                WordLanes.bytes(word, equalTo: UInt8(ascii: "\"")) | WordLanes.bytes(word, equalTo: UInt8(ascii: "\\"))
            if found != 0 { return i &+ found.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        while i < stop {
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return i }
            i &+= 1
        }
        return stop
    }

    @inline(__always)
    private mutating func finished(at end: Int) -> Int {
        reset()
        return end
    }

    @inline(never)
    private func depthError(at offset: Int) -> Failure {
        Failure(.depthLimitExceeded, at: offset, "value nests deeper than the maximum depth \(maxDepth)")
    }

    @inline(never)
    private func sizeError(at offset: Int) -> Failure {
        Failure(.valueTooLarge, at: offset, "value is longer than the maximum of \(maxValueBytes) bytes")
    }

    @inline(never)
    private func startError(_ byte: UInt8, at offset: Int) -> Failure {
        Failure(.unexpectedByte, at: offset, "\(describeByte(byte)) cannot start a JSON value")
    }
}
