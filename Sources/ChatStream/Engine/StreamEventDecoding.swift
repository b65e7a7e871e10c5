import ChatStreamFraming

/// A decoder of some stream format into ``StreamEvent``s, whatever the chunking: the common
/// face of ``StreamDecoder`` and ``AnyStreamDecoder``, an `IncrementalDecoder` of events (so
/// `feed(_:)`/`finish()` return them, `feed(_:into:)`/`finish(into:)` append them).
public protocol StreamEventDecoding: IncrementalDecoder where Output == StreamEvent {
    /// Feeds the next piece of the stream, calling `emit` for each event.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (StreamEvent) throws -> Void) throws
    /// Feeds the next piece of the stream as ``feed(_:emit:)`` does, but lends each event to
    /// `body` as a ``StreamEventView``: text deltas as bytes valid only during the call, with no
    /// `String` made for them. The same events, in the same order.
    mutating func feedViews(_ bytes: UnsafeRawBufferPointer, _ body: (StreamEventView) throws -> Void) throws
    /// Ends the stream; throws ``StreamError`` when it was cut or could not be decoded.
    @discardableResult
    mutating func finish(emit: (StreamEvent) throws -> Void) throws -> StreamEnd
    /// Ends the stream as ``finish(emit:)`` does, lending its last events to `body` as
    /// ``feedViews(_:_:)`` lends the others: a text delta the end completes (NDJSON's last line
    /// without its newline) arrives as ``StreamEventView/textDelta(id:delta:)`` whatever the
    /// decoder's static type.
    @discardableResult
    mutating func finishViews(_ body: (StreamEventView) throws -> Void) throws -> StreamEnd
    /// How many units of unknown type were skipped.
    var unknownUnitCount: Int { get }
    /// Malformed units skipped in lenient mode.
    var skippedErrors: [StreamError] { get }
}

extension StreamDecoder: StreamEventDecoding {}

extension StreamEventDecoding {
    /// Feeds the next piece of the stream, appending its events to `output`.
    ///
    /// - Throws: as ``feed(_:emit:)`` does.
    public mutating func feed(_ bytes: some Collection<UInt8>, into output: inout [StreamEvent]) throws {
        try withContiguousBytes(bytes) { buffer in try feed(buffer) { output.append($0) } }
    }

    /// Ends the stream, appending the last events to `output`; throws as ``finish(emit:)`` does.
    public mutating func finish(into output: inout [StreamEvent]) throws -> StreamEnd {
        try finish { output.append($0) }
    }
}
