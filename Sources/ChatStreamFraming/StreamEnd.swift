/// What a decoder found at the end of its input: how much of the stream was dropped unfinished.
///
/// A server-sent-event stream that stops in the middle of an event (no blank line after its
/// fields) or in the middle of a line was cut short; WHATWG says to drop that part, and this
/// report lets the caller tell a clean end from a truncated one.
///
/// ```swift
/// let end = try decoder.finish(into: &events)
/// if end.isTruncated { print("lost \(end.droppedBytes) bytes from byte \(end.droppedFromOffset!)") }
/// ```
public struct StreamEnd: Sendable, Hashable {
    /// Bytes fed to the decoder in this stream, counting a skipped BOM.
    public var totalBytes: Int
    /// Bytes at the end of the stream that belonged to an unfinished event or line and were dropped.
    public var droppedBytes: Int
    /// Offset of the first dropped byte, or `nil` when nothing was dropped.
    public var droppedFromOffset: Int?

    /// Whether the stream ended inside an event or line.
    public var isTruncated: Bool { droppedFromOffset != nil }

    /// Makes a report.
    public init(totalBytes: Int, droppedBytes: Int = 0, droppedFromOffset: Int? = nil) {
        self.totalBytes = totalBytes
        self.droppedBytes = droppedBytes
        self.droppedFromOffset = droppedFromOffset
    }
}
