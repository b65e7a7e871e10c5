// StreamDialect: what every wire format's decoder implements.
//
// Framing (ChatStreamFraming: SSE events, NDJSON lines, v4 `CODE:JSON` lines, JSON-array
// elements) finds unit boundaries first and lends each one as a `FramedUnit`; a dialect names its
// framer (`associatedtype Framer`), sees one complete unit at a time and turns it into
// StreamEvents. `StreamDecoder` (the glue) owns the framer and drives a dialect; dialects stay
// pure and synchronous, and never see a partial unit.

import ChatStreamFraming

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
    /// The framer that finds this dialect's units (`ServerSentEventDecoder`, `NDJSONDecoder`,
    /// `DataStreamV4Decoder`, `JSONArrayElementFramer`, or one of the caller's own);
    /// ``StreamDecoder`` holds one, made with limits from its configuration.
    associatedtype Framer: StreamFramer

    init(configuration: StreamDecoderConfiguration)

    /// Decodes one unit: its text deltas to `textDelta`, every other event to `emit`.
    mutating func decode(_ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink) throws

    /// Ends the stream: hands over what is pending, then throws if the terminator never came.
    mutating func finish(textDelta: TextDeltaSink, emit: EventSink) throws

    /// How many units of unknown type were skipped.
    var unknownUnitCount: Int { get }

    /// The format's name in error messages (a built-in dialect says its ``StreamFormat`` raw
    /// value, such as `openai-chat`; by default, the dialect's type name).
    static var formatName: String { get }
}

extension StreamDialect {
    public static var formatName: String { "\(Self.self)" }
}
