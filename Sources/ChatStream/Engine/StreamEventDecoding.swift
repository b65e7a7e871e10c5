import ChatStreamFraming

/// A decoder of some stream format into ``StreamEvent``s, whatever the chunking: the common
/// face of ``StreamDecoder`` and ``AnyStreamDecoder``.
public protocol StreamEventDecoding {
    /// Decodes the next piece of the stream, calling `emit` for each event.
    mutating func decode(_ bytes: UnsafeRawBufferPointer, emit: (StreamEvent) throws -> Void) throws
    /// Decodes the next piece of the stream as ``decode(_:emit:)`` does, but lends each event to
    /// `body` as a ``StreamEventView``: text deltas as bytes valid only during the call, with no
    /// `String` made for them. The same events, in the same order.
    mutating func decodeViews(_ bytes: UnsafeRawBufferPointer, _ body: (StreamEventView) throws -> Void) throws
    /// Ends the stream; throws ``StreamError`` when it was cut or could not be decoded.
    mutating func finish(emit: (StreamEvent) throws -> Void) throws
    /// Ends the stream as ``finish(emit:)`` does, lending its last events to `body` as
    /// ``decodeViews(_:_:)`` lends the others: a text delta the end completes (NDJSON's last line
    /// without its newline) arrives as ``StreamEventView/textDelta(id:delta:)`` whatever the
    /// decoder's static type.
    mutating func finishViews(_ body: (StreamEventView) throws -> Void) throws
    /// How many units of unknown type were skipped.
    var unknownUnitCount: Int { get }
    /// Malformed units skipped in lenient mode.
    var skippedErrors: [StreamError] { get }
}

extension StreamDecoder: StreamEventDecoding {}

extension StreamEventDecoding {
    /// The events of ``decode(_:emit:)`` as views, for a decoder without a byte path: each text
    /// delta lent as ``StreamEventView/textDelta(id:delta:)`` (as ``StreamDecoder`` lends it),
    /// every other event as ``StreamEventView/event(_:)``.
    public mutating func decodeViews(_ bytes: UnsafeRawBufferPointer, _ body: (StreamEventView) throws -> Void) throws {
        try decode(bytes) { try StreamEventView.lend($0, body) }
    }

    /// The events of ``finish(emit:)`` as views, each text delta lent as ``decodeViews(_:_:)``
    /// lends it.
    public mutating func finishViews(_ body: (StreamEventView) throws -> Void) throws {
        try finish { try StreamEventView.lend($0, body) }
    }

    /// Decodes the next piece of the stream and returns its events.
    public mutating func decode(_ bytes: some Collection<UInt8>) throws -> [StreamEvent] {
        var events: [StreamEvent] = []
        try withContiguousBytes(bytes) { buffer in try decode(buffer) { events.append($0) } }
        return events
    }

    /// Ends the stream and returns the last events; throws as ``finish(emit:)`` does.
    public mutating func finish() throws -> [StreamEvent] {
        var events: [StreamEvent] = []
        try finish { events.append($0) }
        return events
    }
}
