/// One NDJSON line (one JSON value), as owned bytes.
public struct NDJSONLine: Sendable, Hashable, OwnedFramedUnit {
    /// The line's bytes, without its LF (or CRLF).
    public var bytes: [UInt8]
    /// Offset in the stream of the line's first byte.
    public var byteOffset: Int

    /// Makes a line.
    public init(bytes: [UInt8], byteOffset: Int) {
        self.bytes = bytes
        self.byteOffset = byteOffset
    }

    /// Copies a borrowed line.
    @_spi(Dialects)
    public init(_ view: NDJSONLineView) {
        self.init(bytes: Array(view.bytes), byteOffset: view.byteOffset)
    }

    /// Copies a lent line (its data and offset).
    @_spi(Dialects)
    public init(copying unit: FramedUnit) {
        self.init(bytes: Array(unit.data), byteOffset: unit.streamOffset)
    }
}

/// One NDJSON line, borrowed: its bytes are lent only during the visitor call.
@_spi(Dialects)
public struct NDJSONLineView {
    /// The line's bytes, without its LF (or CRLF).
    @usableFromInline package let bytes: UnsafeRawBufferPointer
    /// Offset in the stream of the line's first byte.
    public let byteOffset: Int

    /// Lends the line's bytes (without its LF or CRLF) to `body`.
    public func withBytes<R, E: Error>(_ body: (RawSpan) throws(E) -> R) throws(E) -> R { try body(bytes.bytes) }

    /// The line's length in bytes.
    public var count: Int { bytes.count }
}
