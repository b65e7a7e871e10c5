import ChatStreamBytes

/// A dispatched server-sent event, borrowed: every buffer is valid only during the visitor call.
///
/// `data` points into the bytes you fed when the event's single data line lies wholly within one
/// piece of input, and into the decoder's reused buffer otherwise; either way nothing is allocated.
/// Copy what you need to keep (or make a ``ServerSentEvent`` with `ServerSentEvent(view)`).
///
/// Read the buffers inside the call, lent as `RawSpan`s that cannot outlive it:
///
/// ```swift
/// try decoder.feed(buffer) { event in
///     if event.typeIs("message") { try event.withData { try parser.parse($0) { handle($0) } } }
/// }
/// ```
@_spi(Dialects)
public struct ServerSentEventView {
    /// The event type's UTF-8 bytes (`message` when the block had no non-empty `event` field).
    @usableFromInline package let type: UnsafeRawBufferPointer
    /// The data lines joined with LF, as bytes.
    @usableFromInline package let data: UnsafeRawBufferPointer
    /// The last event ID's bytes at dispatch; empty when none was set (or it was reset).
    @usableFromInline package let lastEventID: UnsafeRawBufferPointer
    /// The `retry` value given in this event's block, in milliseconds, if any.
    public let retry: Int?
    /// Offset in the stream of the block's first field line (comments before it not counted).
    public let byteOffset: Int
    /// Offset in the stream of the first byte of ``data`` (exact when the data came from one
    /// line; with several data lines, positions past the first line's end are approximate).
    public let dataOffset: Int

    init(
        type: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, lastEventID: UnsafeRawBufferPointer,
        retry: Int?, byteOffset: Int, dataOffset: Int
    ) {
        self.dataOffset = dataOffset
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
        self.byteOffset = byteOffset
    }

    /// Lends the data lines, joined with LF, to `body`.
    public func withData<R, E: Error>(_ body: (RawSpan) throws(E) -> R) throws(E) -> R { try body(data.bytes) }

    /// Lends the event type's bytes to `body`.
    public func withType<R, E: Error>(_ body: (RawSpan) throws(E) -> R) throws(E) -> R { try body(type.bytes) }

    /// Lends the last event ID's bytes to `body` (empty when none is set).
    public func withLastEventID<R, E: Error>(_ body: (RawSpan) throws(E) -> R) throws(E) -> R {
        try body(lastEventID.bytes)
    }

    /// The data as a string (ill-formed UTF-8 repaired), copied.
    public var dataString: String { String(decoding: data, as: UTF8.self) }

    /// The event type as a string, copied.
    public var typeString: String { String(decoding: type, as: UTF8.self) }

    /// The last event ID as a string, copied; empty when none is set.
    public var lastEventIDString: String { String(decoding: lastEventID, as: UTF8.self) }

    /// Whether the event type equals `name`, compared as bytes (no `String` is made).
    @inline(__always)
    public func typeIs(_ name: StaticString) -> Bool {
        type.sameBytes(as: name)
    }
}
