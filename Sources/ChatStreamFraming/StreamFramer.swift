// StreamFramer: what every framer implements, so that the dialect glue (`StreamDecoder`) and the
// async adapters (`AsyncFramedSequence`) are written once for all of them.

/// A framer: finds a wire format's units (SSE events, NDJSON lines, v4 parts, JSON array elements
/// or values) in bytes that arrive in pieces of any size. The units found never depend on how the
/// input was cut.
///
/// Two ways out, fed the same way: ``feedUnits(_:_:)`` lends each unit as a ``FramedUnit`` (what
/// a dialect reads; nothing is allocated), ``feedUnits(_:into:)`` appends it as an owned ``Unit``
/// (what the async adapters hand out); ``finishUnits(_:)`` and ``finishUnits(into:)`` end the
/// stream. (Each framer also keeps its own `feed`/`finish` with its own view type, such as
/// ``ServerSentEventView``, which carries more than a ``FramedUnit``.) Errors are ``FramingError``s naming the byte
/// offset; after one, every later call throws it again.
///
/// ```swift
/// var framer = NDJSONDecoder(configuration: .default)
/// try framer.feedUnits(bytes) { unit in try handle(unit.data) }
/// _ = try framer.finishUnits { unit in try handle(unit.data) }
/// ```
public protocol StreamFramer {
    /// One unit as an owned value (``ServerSentEvent``, ``NDJSONLine``, ``DataStreamV4Part``,
    /// `JSONValueBytes` for the JSON framers of ChatStream).
    associatedtype Unit: Sendable

    /// A framer for one stream, with these limits (it reads the ones that apply to it).
    init(configuration: FramingConfiguration)

    /// Feeds the next piece of input, lending each unit it completes to `onUnit`.
    ///
    /// - Throws: ``FramingError``, or what `onUnit` throws.
    mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, _ onUnit: (FramedUnit) throws -> Void) throws

    /// Ends the stream: delivers a last unit the end of input completes (a line without its LF, a
    /// top-level number) and reports what was dropped unfinished.
    ///
    /// - Throws: ``FramingError`` `.truncated` where the framing requires a closing (a JSON
    ///   array's `]`, the end of a JSON value), or the error that stopped the framer.
    mutating func finishUnits(_ onUnit: (FramedUnit) throws -> Void) throws -> StreamEnd

    /// Feeds the next piece of input, appending each unit it completes to `units` as an owned value.
    mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, into units: inout [Unit]) throws

    /// Ends the stream as ``finishUnits(_:)`` does, appending a last unit to `units`.
    mutating func finishUnits(into units: inout [Unit]) throws -> StreamEnd
}
