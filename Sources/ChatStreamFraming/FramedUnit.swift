import ChatStreamBytes

/// One complete unit of a stream, as a framer found it: an SSE event, an NDJSON line, a v4
/// `CODE:JSON` part, or a JSON value (an array element). The buffers are valid only during the
/// call that receives the unit.
///
/// ```swift
/// try framer.feedUnits(bytes) { unit in
///     if unit.dataEquals("[DONE]") { return }
///     try parser.parse(unit.data, streamOffset: unit.streamOffset) { root in print(root["type"]?.string ?? "") }
/// }
/// ```
public struct FramedUnit {
    /// The SSE event type (`message` when the event had no `event:` field), or the v4 part code;
    /// empty for other framings.
    public var type: UnsafeRawBufferPointer
    /// The SSE data, the line, the v4 part's JSON, or the JSON value.
    public var data: UnsafeRawBufferPointer
    /// Where ``data`` begins in the stream, in bytes (for SSE, the first byte after `data:`; for a
    /// v4 part, the line's first byte), so a JSON error inside the unit is reported at this
    /// offset plus its position in ``data``.
    public var streamOffset: Int

    /// A unit of these bytes (a framer makes it).
    @_spi(Dialects) @inlinable @inline(__always)
    public init(type: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, streamOffset: Int) {
        self.type = type
        self.data = data
        self.streamOffset = streamOffset
    }

    /// A unit without a type (NDJSON lines, JSON values).
    @_spi(Dialects) @inlinable @inline(__always)
    public init(data: UnsafeRawBufferPointer, streamOffset: Int) {
        self.init(type: UnsafeRawBufferPointer(start: nil, count: 0), data: data, streamOffset: streamOffset)
    }

    /// The type as a string (for errors and rare paths).
    public var typeString: String { String(decoding: type, as: UTF8.self) }

    /// Whether the data is exactly `text` (e.g. `[DONE]`): lengths first, so a unit of another
    /// length (nearly every one) is told apart without touching its bytes.
    @inlinable @inline(__always)
    public func dataEquals(_ text: StaticString) -> Bool {
        data.sameBytes(as: text)
    }

    /// Whether the type is exactly `text`.
    @inlinable @inline(__always)
    public func typeEquals(_ text: StaticString) -> Bool {
        type.sameBytes(as: text)
    }
}
