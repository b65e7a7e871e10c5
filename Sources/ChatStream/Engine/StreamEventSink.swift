// StreamEventSink: where a reader of `StreamDecoder.feed(_:into:)` takes what a dialect decodes.
//
// A dialect has two ways out (`TextDeltaSink`, `EventSink`): text deltas lent as bytes, every
// other event owned. What becomes of a delta is the reader's business: an array of events makes
// it a `StreamEvent` (the `[StreamEvent]` conformance below), `MessageDecoder` gathers its bytes
// into the message, a caller's sink moves them where they go. So every text delta takes the same
// road, whoever reads, and the one lent form is `feed(_:into:)` with a sink.

/// Receives what a ``StreamDialect`` decodes from a unit: text deltas with their text lent as
/// UTF-8, every other event owned.
///
/// An array of events is one (each text delta made a ``StreamEvent``), and ``MessageDecoder``
/// assembles the message through its own; write a sink to move text somewhere without a `String`
/// per delta, and pass it to a decoder's `feed(_:into:)` and `finish(into:)`. A sink sees the same events in the
/// same order as the array would hold them, whatever the decoder's static type.
///
/// ```swift
/// struct Counter: StreamEventSink {
///     var textBytes = 0, events = 0
///     mutating func textDelta(id: String, delta: CheckedUTF8) { textBytes += delta.count }
///     mutating func event(_ event: StreamEvent) { events += 1 }
/// }
/// ```
public protocol StreamEventSink {
    /// A piece of text part `id`, the text valid only during the call. Every text delta a
    /// dialect decodes arrives here, never as ``StreamEvent/textDelta(id:delta:)`` through
    /// ``event(_:)``.
    mutating func textDelta(id: String, delta: CheckedUTF8) throws

    /// Any other event.
    mutating func event(_ event: StreamEvent) throws
}

extension Array: StreamEventSink where Element == StreamEvent {
    /// Appends the text delta as an owned ``StreamEvent/textDelta(id:delta:)``.
    @inlinable
    public mutating func textDelta(id: String, delta: CheckedUTF8) {
        append(.textDelta(id: id, delta: delta.string))
    }

    /// Appends the event.
    @inlinable
    public mutating func event(_ event: StreamEvent) {
        append(event)
    }
}

/// UTF-8 text lent for the duration of a call, well-formed by construction: from the JSON
/// parser's checked strings (the package's dialects), or checked by ``init(validating:)``.
///
/// Read it inside the call that lends it: ``withUTF8Span(_:)`` (the standard library's checked,
/// non-escaping UTF-8), ``withSpan(_:)`` (its bytes as a `RawSpan`), `append(to:)` to
/// keep it, or ``string``. The spans cannot outlive the closure. (The value itself cannot be
/// non-escapable on this toolchain without an experimental feature, so do not store it: its
/// bytes belong to the decoder and change on the next call.)
///
/// ```swift
/// mutating func textDelta(id: String, delta: CheckedUTF8) {
///     delta.append(to: &reply)                         // copy what you keep
///     delta.withSpan { socket.write($0) }              // or move the bytes on, lent
/// }
/// ```
public struct CheckedUTF8 {
    /// The text's bytes, valid only during the call that lends them (the package's own readers
    /// move them without a closure).
    @usableFromInline package let bytes: UnsafeRawBufferPointer

    /// Bytes the JSON layer has already checked (a tape string's or a `String`'s).
    @inlinable @inline(__always)
    package init(unchecked bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// `bytes` when they are well-formed UTF-8; nil otherwise.
    public init?(validating bytes: UnsafeRawBufferPointer) {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        self.bytes = bytes
    }

    /// The text's length in UTF-8 bytes.
    @inlinable
    public var count: Int { bytes.count }

    /// Whether the text is empty.
    @inlinable
    public var isEmpty: Bool { bytes.isEmpty }

    /// Lends the text's bytes to `body`.
    @inlinable
    public func withSpan<R, E: Error>(_ body: (RawSpan) throws(E) -> R) throws(E) -> R {
        try body(bytes.bytes)
    }

    /// Lends the text to `body` as the standard library's checked UTF-8 (no validation is
    /// repeated: the bytes are well-formed by construction).
    @inlinable
    public func withUTF8Span<R, E: Error>(_ body: (UTF8Span) throws(E) -> R) throws(E) -> R {
        try body(UTF8Span(unchecked: bytes.assumingMemoryBound(to: UInt8.self).span, isKnownASCII: false))
    }

    /// Appends the text to `text`.
    @inlinable
    public func append(to text: inout String) {
        text.append(String(tapeUTF8: bytes))
    }

    /// Appends the text's bytes to `buffer`.
    @inlinable
    public func append(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: bytes)
    }

    /// The text as a `String`.
    @inlinable
    public var string: String { String(tapeUTF8: bytes) }
}

extension CheckedUTF8 {
    /// Lends `text`'s UTF-8 to `body` (for a text delta a dialect holds as a `String`, such as
    /// one inside a whole block): `try CheckedUTF8.lending(text) { try textDelta(id, $0) }`.
    @inlinable
    public static func lending<R>(_ text: String, _ body: (CheckedUTF8) throws -> R) rethrows -> R {
        var text = text
        return try text.withUTF8 { try body(CheckedUTF8(unchecked: UnsafeRawBufferPointer($0))) }
    }
}
