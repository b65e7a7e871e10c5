// StreamEventSink: where a reader of `StreamDecoder.decode(_:into:)` takes what a dialect decodes.
//
// A dialect has two ways out (`TextDeltaSink`, `EventSink`): text deltas lent as bytes, every
// other event owned.
// What becomes of a delta is the reader's business: `StreamDecoder.decode(_:emit:)` makes it a
// `StreamEvent`, `decodeViews` lends it as a `StreamEventView`, `MessageDecoder` gathers its
// bytes into the message. So every text delta takes the same road, whoever reads.

/// Receives what a ``StreamDialect`` decodes from a unit: text deltas with their text lent as
/// UTF-8, every other event owned.
///
/// The decoders' own readers cover the usual needs (owned events, lent views, the assembled
/// message); write a sink to move text somewhere without a `String` per delta, and pass it to
/// ``StreamDecoder/decode(_:into:)``.
///
/// ```swift
/// struct Counter: StreamEventSink {
///     var textBytes = 0, events = 0
///     mutating func textDelta(id: String, delta: CheckedUTF8) { textBytes += delta.bytes.count }
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

/// UTF-8 text lent for the duration of a call, well-formed by construction: from the JSON
/// parser's checked strings (the package's dialects), or checked by ``init(validating:)``.
public struct CheckedUTF8 {
    /// The text's bytes, valid only during the call that lends them.
    public let bytes: UnsafeRawBufferPointer

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
