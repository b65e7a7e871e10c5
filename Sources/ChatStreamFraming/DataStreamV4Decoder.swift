/// Splits an AI SDK v4 data stream (`x-vercel-ai-data-stream: v1`) into parts, incrementally.
///
/// Each line is `CODE:JSON` (`0:"Hello"`, `9:{...}`, `d:{...}`): the code is the one or more
/// characters before the first `:`, the payload everything after it. Lines end with LF; a CR
/// before the LF is dropped; blank lines are skipped. A last line without a newline is delivered
/// by ``IncrementalDecoder/finish(into:)``. The payload is not parsed.
///
/// ```swift
/// var decoder = DataStreamV4Decoder()
/// let parts = try decoder.feed(Array("0:\"Hi\"\n".utf8))  // [code "0", payload "\"Hi\""]
/// ```
///
/// Once `feed` or `finish` throws a ``FramingError``, every later call throws it again. (The lent
/// visitors, `feed(_:_:)` and `finish(_:)`, are for dialect authors: `@_spi(Dialects)`.)
public struct DataStreamV4Decoder: Sendable {
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

    /// Feeds the next piece of input and calls `onPart` for each part it completes.
    ///
    /// - Throws: ``FramingError`` `.lineTooLong`, `.malformedLine` (a line without `:`, or with
    ///   nothing before it), or what `onPart` throws.
    @_spi(Dialects)
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onPart: (DataStreamV4PartView) throws -> Void) throws {
        try lines.feed(bytes) { line, offset in
            try Self.split(line, at: offset) { code, payload in
                try onPart(DataStreamV4PartView(code: code, payload: payload, byteOffset: offset))
            }
        }
    }

    /// Ends the stream, delivering a last line that had no newline. The decoder is then ready
    /// for a new stream.
    @_spi(Dialects)
    public mutating func finish(_ onPart: (DataStreamV4PartView) throws -> Void) throws {
        try lines.finish { line, offset in
            try Self.split(line, at: offset) { code, payload in
                try onPart(DataStreamV4PartView(code: code, payload: payload, byteOffset: offset))
            }
        }
    }

    /// Splits one line into its code and payload (nothing for a blank line).
    @inline(__always)
    private static func split(
        _ line: UnsafeRawBufferPointer, at offset: Int,
        _ onPart: (_ code: UnsafeRawBufferPointer, _ payload: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        if ByteScan.isBlank(line) { return }
        // Codes are one character almost always (`0:`), so look there first.
        let oneCharacterCode = line.count > 1 && line[1] == 0x3A && line[0] != 0x3A
        guard let colon = oneCharacterCode ? 1 : line.firstIndex(of: 0x3A) else {
            throw FramingError.malformed(at: offset, "data stream v4 line has no ':' after its type code")
        }
        guard colon > 0 else {
            throw FramingError.malformed(at: offset, "data stream v4 line has an empty type code before ':'")
        }
        try onPart(
            UnsafeRawBufferPointer(rebasing: line[..<colon]), UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
    }
}

extension DataStreamV4Decoder: StreamFramer {
    /// What the owned `feed(_:into:)` and `finish(into:)` give: a copy of each unit.
    public typealias Output = DataStreamV4Part

    /// Feeds the next piece of input, lending each part it completes as a ``FramedUnit`` (type =
    /// code, data = payload, offset = the line's first byte). Each line is split straight into the
    /// unit, with no view and no closure between the line splitter and `onUnit`.
    @_spi(Dialects)
    public mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, _ onUnit: (FramedUnit) throws -> Void) throws {
        try lines.feed(bytes) { line, offset in
            try Self.split(line, at: offset) { code, payload in
                try onUnit(FramedUnit(type: code, data: payload, streamOffset: offset))
            }
        }
    }

    /// Ends the stream, lending a last part that had no newline.
    @_spi(Dialects)
    public mutating func finishUnits(_ onUnit: (FramedUnit) throws -> Void) throws -> StreamEnd {
        let total = lines.byteCount
        try finish { part in try onUnit(FramedUnit(type: part.code, data: part.payload, streamOffset: part.byteOffset))
        }
        return StreamEnd(totalBytes: total)
    }
}
