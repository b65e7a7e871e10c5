import ChatStreamFraming

/// The decoder `streamEvents(format:configuration:)` hands to `decoded(using:)`: an
/// ``AnyStreamDecoder`` made when the first bytes arrive, so the sequence holds only what to make
/// (a format and options) and each iteration decodes with a decoder of its own.
///
/// Why it is not the `AnyStreamDecoder` itself: a decoder holds its dialect's JSON parser, which
/// its copies share, so it cannot cross tasks; this value can, since the only copy ever fed is
/// the iterator's own (it is made only here, and the sequence never hands it out).
public struct StreamEventsDecoder: IncrementalDecoder, @unchecked Sendable {
    let format: StreamFormat?
    let configuration: StreamDecoderConfiguration
    var decoder: AnyStreamDecoder?

    init(format: StreamFormat?, configuration: StreamDecoderConfiguration) {
        self.format = format
        self.configuration = configuration
    }

    /// Feeds the next piece of the stream, appending its events to `events`
    /// (``AnyStreamDecoder/feed(_:into:)-(_,[StreamEvent])``).
    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [StreamEvent]) throws {
        if decoder == nil { decoder = AnyStreamDecoder(format: format, configuration: configuration) }
        try decoder!.feed(bytes, into: &events)
    }

    /// Ends the stream, appending the last events to `events`.
    public mutating func finish(into events: inout [StreamEvent]) throws -> StreamEnd {
        if decoder == nil { decoder = AnyStreamDecoder(format: format, configuration: configuration) }
        return try decoder!.finish(into: &events)
    }
}
