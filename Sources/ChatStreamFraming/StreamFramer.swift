// StreamFramer: what every framer implements, so that the dialect glue (`StreamDecoder`) and the
// async adapters (`AsyncFramedSequence`) are written once for all of them.

/// A framer: finds a wire format's units (SSE events, NDJSON lines, v4 parts, JSON array elements
/// or values) in bytes that arrive in pieces of any size. The units found never depend on how the
/// input was cut.
///
/// The same two verbs for every framer: ``feed(_:)`` takes the next piece of input (any
/// collection of bytes; an `Array`, a `Data` or an `ArraySlice` is read where it lies) and
/// returns the units it completes as owned ``Unit`` values; ``finish()`` ends the stream and
/// returns a last unit the end completes. ``feed(_:into:)`` and ``finish(into:)`` append to an
/// array you reuse, and ``finish(into:)`` also says how the stream ended (``StreamEnd``). What a
/// dialect reads is the lent form, ``feedUnits(_:_:)`` and ``finishUnits(_:)``: each unit as a
/// ``FramedUnit`` valid during the call, nothing allocated. (Each framer also keeps its own lent
/// `feed`/`finish` with its own view type, such as ``ServerSentEventView``, which carries more
/// than a ``FramedUnit``.) Errors are ``FramingError``s naming the byte offset; after one, every
/// later call throws it again.
///
/// ```swift
/// var framer = NDJSONDecoder(configuration: .default)
/// let lines = try framer.feed(Array("{\"a\":1}\n{\"b\"".utf8))   // one line, at byte 0; `{"b"` waits
/// let last = try framer.finish()                                  // `{"b"`, at byte 8
/// ```
public protocol StreamFramer {
    /// One unit as an owned value (``ServerSentEvent``, ``NDJSONLine``, ``DataStreamV4Part``,
    /// `JSONValueBytes` for the JSON framers of ChatStream).
    associatedtype Unit: Sendable

    /// A framer for one stream, with these limits (it reads the ones that apply to it).
    init(configuration: FramingConfiguration)

    /// Feeds the next piece of input, appending each unit it completes to `units` as an owned
    /// value (reuse one array across calls).
    ///
    /// - Throws: ``FramingError``.
    mutating func feed(_ bytes: some Collection<UInt8>, into units: inout [Unit]) throws

    /// Ends the stream: appends a last unit the end of input completes (a line without its LF, a
    /// top-level number) and reports what was dropped unfinished.
    ///
    /// - Throws: ``FramingError`` `.truncated` where the framing requires a closing (a JSON
    ///   array's `]`, the end of a JSON value), or the error that stopped the framer.
    mutating func finish(into units: inout [Unit]) throws -> StreamEnd

    /// Feeds the next piece of input, lending each unit it completes to `onUnit`.
    ///
    /// - Throws: ``FramingError``, or what `onUnit` throws.
    mutating func feedUnits(_ bytes: UnsafeRawBufferPointer, _ onUnit: (FramedUnit) throws -> Void) throws

    /// Ends the stream as ``finish(into:)`` does, lending a last unit to `onUnit`.
    mutating func finishUnits(_ onUnit: (FramedUnit) throws -> Void) throws -> StreamEnd
}

extension StreamFramer {
    /// Feeds the next piece of input and returns the units it completes, as owned values.
    ///
    /// - Throws: ``FramingError``.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws -> [Unit] {
        var units: [Unit] = []
        try feed(bytes, into: &units)
        return units
    }

    /// Ends the stream and returns a last unit the end of input completes, if any.
    ///
    /// - Throws: as ``finish(into:)`` does.
    public mutating func finish() throws -> [Unit] {
        var units: [Unit] = []
        _ = try finish(into: &units)
        return units
    }
}
