// StreamDecoder: framing plus a dialect, bytes in any chunking to StreamEvents.
//
// The glue owns one framer, of the type the dialect names (`Dialect.Framer`), stored inline, and
// hands the dialect one complete unit at a time, with the reader's two closures (made here, where
// the decoder is specialised for the reader, so the reader's code is inlined into them). The
// framer and the dialect are passed to one static function as two `inout`s (disjoint stored
// properties), so the framer's callback can mutate the dialect without taking either out of
// `self` and without a copy of the framer's buffers.

import ChatStreamFraming
import ChatStreamJSON

/// Decodes a byte stream of one wire format into ``StreamEvent``s, whatever the chunking.
///
/// ```swift
/// var decoder = StreamDecoder<UIMessageStreamDialect>()
/// for chunk in chunks {
///     for event in try decoder.feed(chunk) { print(event) }
/// }
/// for event in try decoder.finish() { print(event) }   // throws StreamError(.truncated) if `[DONE]` never came
/// ```
public struct StreamDecoder<Dialect: StreamDialect> {
    public let configuration: StreamDecoderConfiguration
    /// The dialect, for its counters.
    public var dialect: Dialect { _dialect }
    /// Malformed units skipped in lenient mode, in order.
    public var skippedErrors: [StreamError] { _skippedErrors }

    // Internal and inlinable, so that a client specialises the hot path for its dialect
    // (unspecialised, every unit would look up generic metadata).
    @usableFromInline var _dialect: Dialect
    @usableFromInline var _skippedErrors: [StreamError] = []
    @usableFromInline var framer: Dialect.Framer
    @usableFromInline var failure: StreamError?
    /// Bytes fed so far (for the ``StreamEnd`` of a body that never reached the framer).
    @usableFromInline var totalBytes = 0
    /// The report of the first `finish`; set once the stream has ended.
    var end: StreamEnd?
    /// Holds a body that is one JSON value (a provider's error answer) instead of a stream (APIErrorBody.swift).
    @usableFromInline var bodyGate = APIErrorBodyGate()

    /// A decoder with these options; the framing limits follow the JSON value limit.
    public init(configuration: StreamDecoderConfiguration = StreamDecoderConfiguration()) {
        self.configuration = configuration
        _dialect = Dialect(configuration: configuration)
        framer = Dialect.Framer(
            configuration: FramingConfiguration(
                maxUnitBytes: configuration.json.maxValueBytes, maxDepth: configuration.json.maxDepth))
    }

    /// How many units of unknown type the dialect skipped.
    public var unknownUnitCount: Int { dialect.unknownUnitCount }

    /// Feeds the next piece of the stream (any collection of bytes, read where it lies when
    /// contiguous) into `sink`: each text delta lent to ``StreamEventSink/textDelta(id:delta:)``,
    /// every other event to ``StreamEventSink/event(_:)``. The one lent form: an array of events
    /// is a sink (the overload below), ``MessageDecoder`` is this with its assembling sink.
    ///
    /// - Throws: ``StreamError``: malformed (unless lenient) or limit exceeded, naming the byte
    ///   offset, or what `sink` throws. After an error every later call throws it again.
    @inlinable @inline(__always)  // so the sink's code is specialised into the framer's loop
    public mutating func feed(_ bytes: some Collection<UInt8>, into sink: inout some StreamEventSink) throws {
        try withContiguousBytes(bytes) { buffer in
            try decode(buffer, textDelta: { try sink.textDelta(id: $0, delta: $1) }, emit: { try sink.take($0) })
        }
    }

    /// Feeds the next piece of the stream, appending its events to `events` (each text delta made
    /// a `String`); the sink form with an array, chosen for an array.
    ///
    /// - Throws: as the sink form does.
    @inlinable
    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [StreamEvent]) throws {
        try withContiguousBytes(bytes) { buffer in
            try decode(
                buffer, textDelta: { events.append(.textDelta(id: $0, delta: $1.string)) },
                emit: { events.append($0) })
        }
    }

    @inlinable @inline(__always)
    mutating func decode(
        _ bytes: UnsafeRawBufferPointer, textDelta: TextDeltaSink, emit: EventSink
    ) throws {
        if let failure { throw failure }
        totalBytes &+= bytes.count
        do {
            if _slowPath(!bodyGate.isPassing) { return try decodeAtStart(bytes, textDelta: textDelta, emit: emit) }
            try Self.feed(&framer, &_dialect, &_skippedErrors, configuration.lenient, bytes, textDelta, emit)
        } catch {
            throw fail(error)
        }
    }

    /// Until the body shows it is a stream: its bytes held by the gate, then framed.
    @usableFromInline
    mutating func decodeAtStart(_ bytes: UnsafeRawBufferPointer, textDelta: TextDeltaSink, emit: EventSink) throws {
        let limit = configuration.json.maxValueBytes
        guard
            let release = try bodyGate.admit(
                bytes, objectsAreLines: Dialect.Framer.self is NDJSONDecoder.Type, limit: limit)
        else { return }
        try release.withUnsafeBytes {
            try Self.feed(&framer, &_dialect, &_skippedErrors, configuration.lenient, $0, textDelta, emit)
        }
    }

    /// Feeds `bytes` to the framer, each unit it completes to the dialect.
    @inlinable @inline(__always)
    static func feed(
        _ framer: inout Dialect.Framer, _ dialect: inout Dialect, _ skipped: inout [StreamError], _ lenient: Bool,
        _ bytes: UnsafeRawBufferPointer, _ textDelta: TextDeltaSink, _ emit: EventSink
    ) throws {
        try framer.feedUnits(bytes) { unit in try Self.unit(unit, &dialect, &skipped, lenient, textDelta, emit) }
    }

    /// Ends the stream into `sink`: delivers what framing still held (NDJSON's last line, its
    /// text delta lent as every other), then lets the dialect close open parts.
    ///
    /// - Throws: ``StreamError`` of kind ``StreamError/Kind/truncated`` when the stream ended
    ///   before its terminator (and carried no error), or the error that stopped decoding.
    /// - Returns: how the stream ended: the bytes fed, and what the framing dropped unfinished
    ///   (an SSE event cut short after the terminator); a second call returns the first report.
    @discardableResult
    public mutating func finish(into sink: inout some StreamEventSink) throws -> StreamEnd {
        try finish(textDelta: { try sink.textDelta(id: $0, delta: $1) }, emit: { try sink.take($0) })
    }

    /// Ends the stream as the sink form does, appending the last events to `events`.
    @discardableResult
    public mutating func finish(into events: inout [StreamEvent]) throws -> StreamEnd {
        try finish(textDelta: { events.append(.textDelta(id: $0, delta: $1.string)) }, emit: { events.append($0) })
    }

    /// Ends the stream, handing its last events to the dialect's two ways out (what every
    /// `finish` form and `AnyStreamDecoder` call).
    mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws -> StreamEnd {
        if let failure { throw failure }
        if let end { return end }
        var end = StreamEnd(totalBytes: totalBytes)
        defer { self.end = end }
        do {
            if !bodyGate.isPassing {
                // A body that was one JSON value ends here (as its error, or malformed).
                guard
                    let release = try bodyGate.finish(
                        configuration: configuration.json, formatName: Dialect.formatName, emit: emit)
                else { return end }
                try release.withUnsafeBytes {
                    try Self.feed(&framer, &_dialect, &_skippedErrors, configuration.lenient, $0, textDelta, emit)
                }
            }
            do {
                end = try Self.finishFraming(
                    &framer, &_dialect, &_skippedErrors, configuration.lenient, textDelta, emit)
            } catch let error as FramingError where error.kind == .truncated {
                // A framing that needs a closing (a JSON array's `]`) did not get it; the dialect
                // decides below whether what arrived is complete enough.
            }
            try _dialect.finish(textDelta: textDelta, emit: emit)
            return end
        } catch {
            throw fail(error)
        }
    }

    /// Ends the framer's stream (delivering a last unit: NDJSON's and v4's line without a newline).
    static func finishFraming(
        _ framer: inout Dialect.Framer, _ dialect: inout Dialect, _ skipped: inout [StreamError], _ lenient: Bool,
        _ textDelta: TextDeltaSink, _ emit: EventSink
    ) throws -> StreamEnd {
        try framer.finishUnits { unit in try Self.unit(unit, &dialect, &skipped, lenient, textDelta, emit) }
    }

    /// Decodes one unit; in lenient mode a malformed unit is recorded and skipped.
    @inlinable @inline(__always)
    static func unit(
        _ unit: FramedUnit, _ dialect: inout Dialect, _ skipped: inout [StreamError], _ lenient: Bool,
        _ textDelta: TextDeltaSink, _ emit: EventSink
    ) throws {
        do {
            try dialect.decode(unit, textDelta: textDelta, emit: emit)
        } catch let error as StreamError where lenient && error.kind == .malformed {
            skipped.append(error)
        }
    }

    @usableFromInline
    mutating func fail(_ error: any Error) -> StreamError {
        let streamError = StreamError(converting: error)
        failure = streamError
        return streamError
    }
}

extension StreamError {
    /// Maps errors from the lower layers (framing, JSON, transport) to stream errors, keeping offsets.
    public init(converting error: any Error) {
        switch error {
        case let error as StreamError:
            self = error
        case let error as FramingError:
            let kind: Kind =
                switch error.kind {
                case .lineTooLong, .eventTooLarge, .depthLimitExceeded, .valueTooLarge: .limitExceeded
                case .truncated: .truncated
                default: .malformed
                }
            self = StreamError(kind, message: error.message, byteOffset: error.byteOffset)
        case let error as JSONError:
            self = StreamError(.malformed, message: error.message, byteOffset: error.byteOffset)
        default:
            // Anything else comes from below the decoders (the transport): the stream was cut.
            self = StreamError(.truncated, message: "the stream failed: \(error)")
        }
    }
}
