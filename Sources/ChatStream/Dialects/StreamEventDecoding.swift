/// A decoder of some stream format into ``StreamEvent``s, whatever the chunking: the common
/// face of ``StreamDecoder`` and ``AnyStreamDecoder``.
public protocol StreamEventDecoding {
    /// Decodes the next piece of the stream, calling `emit` for each event.
    mutating func decode(_ bytes: UnsafeRawBufferPointer, emit: (StreamEvent) throws -> Void) throws
    /// Ends the stream; throws ``StreamError`` when it was cut or could not be decoded.
    mutating func finish(emit: (StreamEvent) throws -> Void) throws
    /// How many units of unknown type were skipped.
    var unknownUnitCount: Int { get }
    /// Malformed units skipped in lenient mode.
    var skippedErrors: [StreamError] { get }
}

extension StreamDecoder: StreamEventDecoding {}

extension StreamEventDecoding {
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
