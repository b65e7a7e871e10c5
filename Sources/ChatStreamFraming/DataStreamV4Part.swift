/// One AI SDK v4 data stream part (`CODE:JSON` line), as owned values.
///
/// ```swift
/// // 0:"Hello"\n  ->  DataStreamV4Part(code: "0", payload: Array("\"Hello\"".utf8), byteOffset: 0)
/// ```
public struct DataStreamV4Part: Sendable, Hashable, OwnedFramedUnit {
    /// The part's type code: the characters before the first `:` (`0` text, `9` tool call, `d` finish, ...).
    public var code: String
    /// The JSON after the first `:`, as bytes (not parsed).
    public var payload: [UInt8]
    /// Offset in the stream of the line's first byte.
    public var byteOffset: Int

    /// Makes a part.
    public init(code: String, payload: [UInt8], byteOffset: Int) {
        self.code = code
        self.payload = payload
        self.byteOffset = byteOffset
    }

    /// Copies a borrowed part.
    @_spi(Dialects)
    public init(_ view: DataStreamV4PartView) {
        self.init(
            code: String(decoding: view.code, as: UTF8.self), payload: Array(view.payload), byteOffset: view.byteOffset)
    }

    /// Copies a lent part (type = code, data = payload, offset = the line's first byte).
    @_spi(Dialects)
    public init(copying unit: FramedUnit) {
        self.init(
            code: String(decoding: unit.type, as: UTF8.self), payload: Array(unit.data), byteOffset: unit.streamOffset)
    }
}

/// One data stream v4 part, borrowed: the buffers are valid only during the visitor call.
@_spi(Dialects)
public struct DataStreamV4PartView {
    /// The code's bytes (before the first `:`), never empty.
    @usableFromInline package let code: UnsafeRawBufferPointer
    /// The JSON payload's bytes (after the first `:`), without the line ending.
    @usableFromInline package let payload: UnsafeRawBufferPointer
    /// Offset in the stream of the line's first byte.
    public let byteOffset: Int

    /// Lends the JSON payload's bytes (after the first `:`, without the line ending) to `body`.
    public func withPayload<R, E: Error>(_ body: (RawSpan) throws(E) -> R) throws(E) -> R { try body(payload.bytes) }

    /// The code as a string (`"0"`, `"9"`, `"e"`, ...), copied.
    public var codeString: String { String(decoding: code, as: UTF8.self) }

    /// Whether the code is the single ASCII character `character` (e.g. `"0"` for text).
    @inline(__always)
    public func codeIs(_ character: Unicode.Scalar) -> Bool {
        code.count == 1 && character.isASCII && code[0] == UInt8(character.value)
    }
}
