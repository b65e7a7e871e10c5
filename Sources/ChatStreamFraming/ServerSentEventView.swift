/// A dispatched server-sent event, borrowed: every buffer is valid only during the visitor call.
///
/// `data` points into the bytes you fed when the event's single data line lies wholly within one
/// piece of input, and into the decoder's reused buffer otherwise; either way nothing is allocated.
/// Copy what you need to keep (or make a ``ServerSentEvent`` with `ServerSentEvent(view)`).
///
/// ```swift
/// try decoder.feed(buffer) { event in
///     if event.typeIs("message") { try parser.parse(event.data) }
/// }
/// ```
public struct ServerSentEventView {
    /// The event type's UTF-8 bytes (`message` when the block had no non-empty `event` field).
    public let type: UnsafeRawBufferPointer
    /// The data lines joined with LF, as bytes.
    public let data: UnsafeRawBufferPointer
    /// The last event ID's bytes at dispatch; empty when none was set (or it was reset).
    public let lastEventID: UnsafeRawBufferPointer
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

    /// Whether the event type equals `name`, compared as bytes (no `String` is made).
    @inline(__always)
    public func typeIs(_ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard type.count == count else { return false }
        guard count > 0, let base = type.baseAddress else { return true }
        return memoryEquals(base, UnsafeRawPointer(name.utf8Start), count)
    }
}

@inline(__always)
func memoryEquals(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, _ count: Int) -> Bool {
    var index = 0
    while index < count {
        if lhs.load(fromByteOffset: index, as: UInt8.self) != rhs.load(fromByteOffset: index, as: UInt8.self) {
            return false
        }
        index += 1
    }
    return true
}
