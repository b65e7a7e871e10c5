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
/// ``IncrementalDecoder/finish()`` return the units instead. What a dialect reads is the lent
/// form, ``feedUnits(_:_:)`` and ``finishUnits(_:)``: each unit as a ``FramedUnit`` valid during
/// the call, nothing allocated. (Each framer also keeps its own lent `feed`/`finish` with its own
/// view type, such as ``ServerSentEventView``, which carries more than a ``FramedUnit``.) Errors
/// are ``FramingError``s naming the byte offset; after one, every later call throws it again.
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
