@_spi(Dialects) import ChatStreamFraming

/// One complete JSON value (an array element, or a value of a sequence) as owned bytes, as the
/// async adapters hand it out. The bytes are not parsed.
///
/// ```swift
/// for try await element in chunks.jsonArrayElements() {
///     try parser.parse(element.bytes, streamOffset: element.byteOffset) { root in print(root["text"]?.string ?? "") }
/// }
/// ```
public struct JSONValueBytes: Sendable, Hashable, OwnedFramedUnit {
    /// The value's bytes, from its first byte to its last (no surrounding whitespace or `,`).
    public var bytes: [UInt8]
    /// Offset in the stream of the value's first byte.
    public var byteOffset: Int

    /// Makes a value.
    public init(bytes: [UInt8], byteOffset: Int) {
        self.bytes = bytes
        self.byteOffset = byteOffset
    }

    /// Copies a lent value (its bytes and offset).
    @_spi(Dialects)
    public init(copying unit: FramedUnit) {
        self.init(bytes: Array(unit.data), byteOffset: unit.streamOffset)
    }
}
