import ChatStreamFraming

/// A decoder of some stream format into ``StreamEvent``s, whatever the chunking: the common
/// face of ``StreamDecoder`` and ``AnyStreamDecoder``, an `IncrementalDecoder` of events.
///
/// Two verbs, one form: `feed(_:into:)` takes the next piece of the stream and hands each event
/// it completes to a ``StreamEventSink``; `finish(into:)` ends the stream. An array of events is
/// a sink, so `feed(_:into: &events)` appends owned events (the `IncrementalDecoder` form), and
/// `feed(_:)`/`finish()` return them. Any other sink takes each text delta lent as
/// ``CheckedUTF8`` (no `String` made for it), on the same road whatever the decoder's static
/// type, the last delta `finish(into:)` completes too.
///
/// ```swift
/// struct Text: StreamEventSink {
///     var bytes: [UInt8] = []
///     mutating func textDelta(id: String, delta: CheckedUTF8) { delta.append(to: &bytes) }
///     mutating func event(_ event: StreamEvent) {}
/// }
/// var sink = Text()
/// try decoder.feed(chunk, into: &sink)
/// try decoder.finish(into: &sink)
/// ```
public protocol StreamEventDecoding: IncrementalDecoder where Output == StreamEvent {
    /// Feeds the next piece of the stream (any collection of bytes, read where it lies when
    /// contiguous), handing each event it completes to `sink`: a text delta to
    /// ``StreamEventSink/textDelta(id:delta:)``, lent, every other event to
    /// ``StreamEventSink/event(_:)``.
    ///
    /// - Throws: ``StreamError``: malformed (unless lenient) or limit exceeded, naming the byte
    ///   offset, or what `sink` throws. After an error every later call throws it again.
    mutating func feed(_ bytes: some Collection<UInt8>, into sink: inout some StreamEventSink) throws
    /// Ends the stream, handing the events the end completes to `sink` (NDJSON's last line
    /// without its newline: its text delta arrives lent, as every other does).
    ///
    /// - Throws: ``StreamError`` of kind ``StreamError/Kind/truncated`` when the stream ended
    ///   before its terminator, or the error that stopped decoding.
    /// - Returns: how the stream ended; a second call returns the first report.
    @discardableResult
    mutating func finish(into sink: inout some StreamEventSink) throws -> StreamEnd
    /// How many units of unknown type were skipped.
    var unknownUnitCount: Int { get }
    /// Malformed units skipped in lenient mode.
    var skippedErrors: [StreamError] { get }
}

extension StreamDecoder: StreamEventDecoding {}

extension StreamEventSink {
    /// Hands `event` to the sink; an owned text delta (from a dialect outside the package, or an
    /// error body's gate) lent to ``textDelta(id:delta:)``, so a sink meets every text delta there.
    @inlinable @inline(__always)
    mutating func take(_ event: StreamEvent) throws {
        if case .textDelta(let id, let text) = event {
            return try CheckedUTF8.lending(text) { try textDelta(id: id, delta: $0) }
        }
        try self.event(event)
    }
}
