// LineFraming: what the line-based framings (NDJSON, the AI SDK v4 data stream) share: a LF
// line splitter whose first error sticks, so that after a failure every later
// call throws it again and no half-decoded state is ever used.

/// LF lines (one CR before the LF dropped) with a sticky first error; a UTF-8 byte-order mark at
/// the very start of the stream is dropped (the first line then starts at offset 3).
struct StickyLineSplitter: Sendable {
    private var lines: LineSplitter
    private var failure: FramingError?

    init(maxLineBytes: Int) {
        lines = LineSplitter(endings: .lf, maxLineBytes: maxLineBytes)
    }

    var bufferedByteCount: Int { lines.bufferedByteCount }

    /// Bytes fed since the stream began.
    var byteCount: Int { lines.streamOffset }

    /// Calls `onLine(line, offset)` for each complete line of `bytes`.
    @inline(__always)
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onLine: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        if let failure { throw failure }
        do {
            try lines.feed(bytes) { line, offset, _ in
                if offset == 0 { return try Self.skippingByteOrderMark(line, onLine) }
                try onLine(line, offset)
            }
        } catch let error as FramingError {
            failure = error
            throw error
        }
    }

    /// Delivers a last line that had no newline; afterwards ready for a new stream.
    mutating func finish(_ onLine: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        if let failure { throw failure }
        defer { lines.reset() }
        do {
            try lines.flush { line, offset, _ in
                if offset == 0 { return try Self.skippingByteOrderMark(line, onLine) }
                try onLine(line, offset)
            }
        } catch let error as FramingError {
            failure = error
            throw error
        }
    }

    /// The stream's first line, without a UTF-8 byte-order mark that opens it.
    @inline(never)
    private static func skippingByteOrderMark(
        _ line: UnsafeRawBufferPointer, _ onLine: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws {
        guard line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF else { return try onLine(line, 0) }
        try onLine(UnsafeRawBufferPointer(rebasing: line[3...]), 3)
    }
}
