// ConversationEventDecoder: SSE framing, then one dialect per event, then the skip-and-count
// policy. The framer is the project's ServerSentEventDecoder; each event's data is parsed with
// the yajl layer straight from the framer's view (no copy of the data). A dialect turns one
// parsed event into a ConversationEvent.Kind, says it does not know the type (counted, never
// fatal), or throws a ConversationEventError naming the field; the decoder then skips that event
// and keeps the error, so nothing already received is lost and the stream goes on. What one
// event needs from earlier ones (which messages streamed in pieces, the titles of offered
// options) is a small bounded memory the decoder keeps (LiveStreamMemory).

import ChatStream
@_spi(Dialects) import ChatStreamFraming
import ChatStreamJSON

/// Decodes a live conversation stream (home or Salesforce) incrementally into ``ConversationEvent``s.
///
/// Feed bytes as they arrive, in pieces of any size; the output does not depend on the cutting.
///
/// ```swift
/// var decoder = ConversationEventDecoder(format: .salesforceMessaging)
/// var events: [ConversationEvent] = []
/// for piece in pieces { try decoder.feed(piece, into: &events) }
/// let end = try decoder.finish(into: &events)   // an event cut off by the end is dropped, and reported
/// print(events.count, end.isTruncated, decoder.unknownEventCount, decoder.skippedErrors)
/// ```
public struct ConversationEventDecoder: IncrementalDecoder {
    /// Limits and policy.
    public struct Configuration: Sendable, Hashable {
        /// The SSE limits (line and event sizes): an endless line or event fails within them.
        public var framing: ServerSentEventDecoder.Configuration
        /// Skip a malformed event (keeping its error in ``ConversationEventDecoder/skippedErrors``)
        /// instead of throwing it. Default `true`: a live stream goes on past a bad event.
        public var lenient: Bool
        /// How many of the latest malformed events' errors are kept. Default 64.
        public var keptErrorLimit: Int

        /// The defaults: the SSE defaults, skipping malformed events, keeping 64 errors.
        public static let `default` = Configuration()

        /// Makes a configuration.
        public init(
            framing: ServerSentEventDecoder.Configuration = .default, lenient: Bool = true, keptErrorLimit: Int = 64
        ) {
            self.framing = framing
            self.lenient = lenient
            self.keptErrorLimit = keptErrorLimit
        }
    }

    /// The wire format read.
    public let format: ConversationEventFormat
    /// The limits and policy in force.
    public let configuration: Configuration
    private var framer: ServerSentEventDecoder
    private let parsers = LiveEventParsers()
    private var memory = LiveStreamMemory()

    /// The errors of the latest malformed events skipped in lenient mode (at most
    /// ``Configuration/keptErrorLimit``), oldest first.
    public private(set) var skippedErrors: [ConversationEventError] = []
    /// How many malformed events were skipped in all.
    public private(set) var skippedErrorCount = 0
    /// How many events of a type the dialect does not know were skipped.
    public private(set) var unknownEventCount = 0
    /// How many events were handed over.
    public private(set) var eventCount = 0
    /// How many heartbeats were read: `: ping` comment lines (PROTOCOLS.md section 6; one space
    /// after the colon optional) and the dialect's keep-alive events. A live stream that sends
    /// nothing else is idle but alive: an idle timeout watches this count beside the events.
    public private(set) var heartbeatCount = 0

    /// Makes a decoder for one stream (or one reconnecting series of streams).
    public init(format: ConversationEventFormat, configuration: Configuration = .default) {
        self.format = format
        self.configuration = configuration
        framer = ServerSentEventDecoder(configuration: configuration.framing)
    }

    /// The last event ID seen: send it as `Last-Event-ID` when reconnecting.
    public var lastEventID: String? { framer.lastEventID }

    /// The last `retry` the server asked for, in milliseconds.
    public var reconnectionTime: Int? { framer.reconnectionTime }

    /// Feeds the next piece of input, appending the events it completes to `events`.
    ///
    /// - Throws: `FramingError` when the SSE limits are passed; unless lenient a
    ///   ``ConversationEventError``.
    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [ConversationEvent]) throws {
        try withContiguousBytes(bytes) { raw in try feed(raw) { events.append($0) } }
    }

    /// Feeds `bytes` where they lie, calling `onEvent` with each event they complete.
    private mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onEvent: (ConversationEvent) throws -> Void) throws {
        let format = format
        let parsers = parsers
        let lenient = configuration.lenient
        var unknown = 0
        var handed = 0
        var heartbeats = 0
        var malformed: [ConversationEventError] = []
        var memory = memory
        self.memory = LiveStreamMemory()  // so the local copy is unique and grows in place
        defer {
            self.memory = memory
            heartbeatCount += heartbeats
            record(unknown: unknown, handed: handed, malformed: malformed)
        }
        try framer.feed(bytes) { view in
            let outcome: LiveEventOutcome
            do {
                outcome = try Self.decode(view, format: format, parsers: parsers, memory: &memory)
            } catch let error as ConversationEventError {
                if !lenient { throw error }
                malformed.append(error)
                return
            }
            switch outcome {
            case .event(let kind):
                let id = view.lastEventID.isEmpty ? nil : String(decoding: view.lastEventID, as: UTF8.self)
                handed += 1
                try onEvent(ConversationEvent(id: id, kind: kind))
            case .unknown: unknown += 1
            case .keepAlive: heartbeats += 1
            }
        } onComment: { text in
            if Self.isHeartbeat(text) { heartbeats += 1 }
        }
    }

    /// Whether a comment's text (after the `:`) is the protocol's heartbeat, `ping`.
    private static func isHeartbeat(_ text: UnsafeRawBufferPointer) -> Bool {
        var text = text[...]
        if text.first == UInt8(ascii: " ") { text = text.dropFirst() }
        return text.elementsEqual("ping".utf8)
    }

    /// Ends one connection's stream: a block cut off by the end is dropped and reported (no event
    /// is appended: an SSE event is complete only at its blank line). The decoder keeps
    /// ``lastEventID`` and may be fed the next connection's stream.
    @discardableResult
    public mutating func finish(into events: inout [ConversationEvent]) throws -> StreamEnd {
        try framer.finish { _ in }
    }

    private mutating func record(unknown: Int, handed: Int, malformed: [ConversationEventError]) {
        unknownEventCount += unknown
        eventCount += handed
        guard !malformed.isEmpty else { return }
        skippedErrorCount += malformed.count
        skippedErrors.append(contentsOf: malformed)
        let excess = skippedErrors.count - max(0, configuration.keptErrorLimit)
        if excess > 0 { skippedErrors.removeFirst(excess) }
    }

    private static func decode(
        _ view: ServerSentEventView, format: ConversationEventFormat, parsers: LiveEventParsers,
        memory: inout LiveStreamMemory
    ) throws -> LiveEventOutcome {
        switch format {
        case .home: try HomeLiveEventDialect.decode(view, parsers: parsers)
        case .salesforceMessaging: try SalesforceMessagingDialect.decode(view, parsers: parsers, memory: &memory)
        }
    }
}

/// What a dialect made of one SSE event.
enum LiveEventOutcome {
    case event(ConversationEvent.Kind)
    /// A type the dialect does not know: skipped and counted.
    case unknown
    /// A keep-alive with no conversation data: skipped, not counted.
    case keepAlive
}

/// The parsers one decoder reuses: one for an event's data, one for a document nested in it.
final class LiveEventParsers {
    let outer = JSONParser()
    let inner = JSONParser()
}

extension ServerSentEventView {
    /// The event type as a `String` (error path and rare types only).
    var typeName: String { String(decoding: type, as: UTF8.self) }

    /// Parses the event's data as one JSON value and reads it with `body`; a syntax error becomes
    /// a ``ConversationEventError`` naming the event and its offset.
    func parseData<R>(with parser: JSONParser, _ body: (JSONElement) throws -> R) throws -> R {
        do {
            return try parser.parse(data, streamOffset: dataOffset, body)
        } catch let error as JSONError {
            throw ConversationEventError(
                .invalidJSON, eventType: typeName, byteOffset: byteOffset, field: "data", message: error.description)
        }
    }

    /// The error for a required field that is absent or of the wrong type.
    func missing(_ field: String, _ what: String) -> ConversationEventError {
        ConversationEventError(.missingField, eventType: typeName, byteOffset: byteOffset, field: field, message: what)
    }
}
