// StreamDialect: what every wire format's decoder implements.
//
// Framing (SSE events, NDJSON lines, v4 `CODE:JSON` lines, JSON-array elements) finds unit
// boundaries first; a dialect sees one complete unit at a time and turns it into StreamEvents.
// `StreamDecoder` (the glue) owns the framing and drives a dialect; dialects stay pure and
// synchronous, and never see a partial unit.

/// The framing a dialect's units arrive in.
public enum StreamFraming: Sendable, Hashable {
    /// Server-Sent Events: a unit is one dispatched event (type and data).
    case serverSentEvents
    /// NDJSON: a unit is one non-blank line.
    case ndjson
    /// AI SDK v4 data stream: a unit is one `CODE:JSON` line (type = code, data = JSON).
    case dataStreamV4
    /// A streamed top-level JSON array: a unit is one element.
    case jsonArray
}

/// One complete unit of a stream, as framing found it. The buffers are valid only during the
/// call that receives the unit.
public struct FramedUnit {
    /// The SSE event type (`message` when the event had no `event:` field), or the v4 part code;
    /// empty for other framings.
    public var type: UnsafeRawBufferPointer
    /// The SSE data, the line, the v4 part's JSON, or the array element.
    public var data: UnsafeRawBufferPointer
    /// Where ``data`` begins in the stream, in bytes (for SSE, the first byte after `data:`), so
    /// a JSON error inside the unit is reported at this offset plus its position in ``data``.
    public var streamOffset: Int

    public init(type: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, streamOffset: Int) {
        self.type = type
        self.data = data
        self.streamOffset = streamOffset
    }

    /// The type as a string (for errors and rare paths).
    public var typeString: String { String(decoding: type, as: UTF8.self) }

    /// Whether the data is exactly `text` (e.g. `[DONE]`): lengths first, so a unit of another
    /// length (nearly every one) is told apart without touching its bytes.
    @inlinable @inline(__always)
    public func dataEquals(_ text: StaticString) -> Bool {
        data.sameBytes(as: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether the type is exactly `text`.
    @inlinable @inline(__always)
    public func typeEquals(_ text: StaticString) -> Bool {
        type.sameBytes(as: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

/// Options every decoder takes.
public struct StreamDecoderConfiguration: Sendable, Hashable {
    /// JSON limits for each unit.
    public var json: JSONConfiguration
    /// Skip malformed units (recording them in ``StreamDecoder/skippedErrors``) instead of
    /// throwing. Default false: a malformed unit is an error naming its byte offset.
    public var lenient: Bool

    public init(json: JSONConfiguration = JSONConfiguration(), lenient: Bool = false) {
        self.json = json
        self.lenient = lenient
    }
}

/// A wire format's decoder: complete units in, typed events out.
///
/// Implementations are pure state machines with one way in (``decode(_:textDelta:emit:)``) and one way
/// out: every text delta goes to a ``TextDeltaSink`` with its text lent, every other event to an
/// ``EventSink``; what the reader wants (owned events, lent views, the assembled message) is the
/// reader's business. `decode` throws ``StreamError`` of kind
/// ``StreamError/Kind/malformed`` naming the byte offset, event type and field; `finish` throws
/// ``StreamError/Kind/truncated`` when the stream ended before its terminator.
public protocol StreamDialect {
    /// The framing this dialect's units arrive in.
    static var framing: StreamFraming { get }

    init(configuration: StreamDecoderConfiguration)

    /// Decodes one unit: its text deltas to `textDelta`, every other event to `emit`.
    mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws

    /// Ends the stream: hands over what is pending, then throws if the terminator never came.
    mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws

    /// How many units of unknown type were skipped.
    var unknownUnitCount: Int { get }
}
