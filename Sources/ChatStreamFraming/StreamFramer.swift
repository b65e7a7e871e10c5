// StreamFramer: what every framer implements, so that the dialect glue (`StreamDecoder`) and the
// async adapters (`AsyncDecodedSequence`) are written once for all of them.

/// A framer: finds a wire format's units (SSE events, NDJSON lines, v4 parts, JSON array elements
/// or values) in bytes that arrive in pieces of any size. The units found never depend on how the
/// input was cut.
///
/// The same two verbs as every ``IncrementalDecoder``: ``IncrementalDecoder/feed(_:into:)`` takes
/// the next piece of input and appends the units it completes as owned ``IncrementalDecoder/Output``
/// values; ``IncrementalDecoder/finish(into:)`` ends the stream, appends a last unit the end
/// completes and says how the stream ended (``StreamEnd``); ``IncrementalDecoder/feed(_:)`` and
/// ``IncrementalDecoder/finish()`` return the units instead. Errors are ``FramingError``s naming
/// the byte offset; after one, every later call throws it again.
///
/// What a dialect reads is the lent form, ``feedUnits(_:_:)`` and ``finishUnits(_:)``: each unit
/// as a ``FramedUnit`` valid during the call, nothing allocated. They are the engine's way in: a
/// framer's own methods for them, and its lent visitors with their view types, are
/// `@_spi(Dialects)`. (The two requirements stay public because the engine's public, inlinable
/// decoders call them; Swift refuses an SPI symbol in an inlinable body.) A framer whose owned
/// unit is an ``OwnedFramedUnit`` gets its owned `feed(_:into:)` and `finish(into:)` from this
/// protocol, written once over the lent form.
///
/// ```swift
/// var framer = NDJSONDecoder(configuration: .default)
/// let lines = try framer.feed(Array("{\"a\":1}\n{\"b\"".utf8))   // one line, at byte 0; `{"b"` waits
/// let last = try framer.finish()                                  // `{"b"`, at byte 8
/// ```
public protocol StreamFramer: IncrementalDecoder where Output: Sendable {
    /// A framer for one stream, with these limits (it reads the ones that apply to it).
    init(configuration: FramingConfiguration)

    /// Feeds the next piece of input, lending each unit it completes to `onUnit`.
    ///
    /// - Throws: ``FramingError``, or what `onUnit` throws.
    mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, _ onUnit: (FramedUnit) throws -> Void) throws

    /// Ends the stream as ``IncrementalDecoder/finish(into:)`` does, lending a last unit to `onUnit`.
    mutating func finishUnits(_ onUnit: (FramedUnit) throws -> Void) throws -> StreamEnd
}

/// A framer's owned unit that is a copy of a lent ``FramedUnit`` (``NDJSONLine``,
/// ``DataStreamV4Part``, ChatStream's `JSONValueBytes`), so that ``StreamFramer`` writes the owned
/// `feed(_:into:)` and `finish(into:)` once for every such framer. (A server-sent event carries
/// more than its unit, its ID and `retry`, so ``ServerSentEventDecoder`` writes its own.) The
/// copying initialiser is `@_spi(Dialects)`.
public protocol OwnedFramedUnit: Sendable {
    /// A copy of the unit's bytes and offset.
    @_spi(Dialects) init(copying unit: FramedUnit)
}

extension StreamFramer where Output: OwnedFramedUnit {
    /// Feeds the next piece of input, appending a copy of each unit it completes to `output`
    /// (reuse one array across calls).
    ///
    /// - Throws: ``FramingError``; after one, every later call throws it again.
    public mutating func feed(_ bytes: some Collection<UInt8>, into output: inout [Output]) throws {
        try withContiguousBytes(bytes) { raw in try feedUnits(raw) { output.append(Output(copying: $0)) } }
    }

    /// Ends the stream, appending a last unit the end completes (NDJSON's or v4's line without a
    /// newline, a top-level scalar) to `output`.
    ///
    /// - Throws: ``FramingError`` (`.truncated` where the format needs a closing).
    public mutating func finish(into output: inout [Output]) throws -> StreamEnd {
        try finishUnits { output.append(Output(copying: $0)) }
    }
}
