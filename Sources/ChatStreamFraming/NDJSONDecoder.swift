/// Splits newline-delimited JSON (one value per line, as Ollama streams) incrementally.
///
/// Lines end with LF; a CR before the LF is dropped. Blank and whitespace-only lines are skipped.
/// A last line without a newline is delivered by ``IncrementalDecoder/finish(into:)``. The decoder
/// does not parse JSON.
///
/// ```swift
/// var decoder = NDJSONDecoder()
/// var lines: [NDJSONLine] = []
/// try decoder.feed(Array("{\"a\":1}\n{\"b\"".utf8), into: &lines)   // one line; `{"b"` waits
/// _ = try decoder.finish(into: &lines)                               // `{"b"`, at byte 8
/// ```
///
/// Once `feed` or `finish` throws a ``FramingError``, every later call throws it again. (The lent
/// visitors, `feed(_:_:)` and `finish(_:)`, are for dialect authors: `@_spi(Dialects)`.)
public struct NDJSONDecoder: Sendable {
    /// Limits that bound the decoder's memory: ``FramingConfiguration/maxLineBytes`` (16 MiB by
    /// default), counting a CR before the LF.
    public typealias Configuration = FramingConfiguration

    /// The limits in force.
    public let configuration: Configuration
    private var lines: StickyLineSplitter

    /// Makes a decoder for one stream.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
        lines = StickyLineSplitter(maxLineBytes: configuration.maxLineBytes)
    }

    /// Bytes currently held for an unfinished line.
    public var bufferedByteCount: Int { lines.bufferedByteCount }

    /// Feeds the next piece of input and calls `onLine` for each non-blank line it completes.
    ///
    /// - Throws: ``FramingError`` `.lineTooLong`, or what `onLine` throws.
    @_spi(Dialects)
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onLine: (NDJSONLineView) throws -> Void) throws {
        try lines.feed(bytes) { line, offset in
            if !ByteScan.isBlank(line) { try onLine(NDJSONLineView(bytes: line, byteOffset: offset)) }
        }
    }

    /// Ends the stream, delivering a last line that had no newline. The decoder is then ready
    /// for a new stream.
    @_spi(Dialects)
    public mutating func finish(_ onLine: (NDJSONLineView) throws -> Void) throws {
        try lines.finish { line, offset in
            if !ByteScan.isBlank(line) { try onLine(NDJSONLineView(bytes: line, byteOffset: offset)) }
        }
    }
}

extension NDJSONDecoder: StreamFramer {
    /// What the owned `feed(_:into:)` and `finish(into:)` give: a copy of each unit.
    public typealias Output = NDJSONLine

    /// Feeds the next piece of input, lending each non-blank line it completes as a ``FramedUnit``
    /// (no type), straight from the line splitter.
    @_spi(Dialects)
    public mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, _ onUnit: (FramedUnit) throws -> Void) throws {
        try lines.feed(bytes) { line, offset in
            if !ByteScan.isBlank(line) { try onUnit(FramedUnit(data: line, streamOffset: offset)) }
        }
    }

    /// Ends the stream, lending a last line that had no newline.
    @_spi(Dialects)
    public mutating func finishUnits(_ onUnit: (FramedUnit) throws -> Void) throws -> StreamEnd {
        let total = lines.byteCount
        try finish { line in try onUnit(FramedUnit(data: line.bytes, streamOffset: line.byteOffset)) }
        return StreamEnd(totalBytes: total)
    }
}
