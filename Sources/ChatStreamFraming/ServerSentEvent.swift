/// One dispatched server-sent event, as owned values.
///
/// ```swift
/// var decoder = ServerSentEventDecoder()
/// let events = try decoder.feed(Array("event: ping\ndata: {}\n\n".utf8))
/// // [ServerSentEvent(type: "ping", data: "{}", id: nil, retry: nil)]
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the block's `event` field, or `"message"` when it had none (or an empty one).
    public var type: String
    /// The block's `data` lines joined with `"\n"` (invalid UTF-8 repaired with U+FFFD).
    public var data: String
    /// The last event ID at dispatch (it persists across events), or `nil` when it is empty.
    public var id: String?
    /// The `retry` value given in this event's block, if any, in milliseconds.
    public var retry: Int?

    /// Makes an event.
    public init(type: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }

    /// Copies a borrowed event into owned values.
    @_spi(Dialects)
    public init(_ view: ServerSentEventView) {
        type = String(decoding: view.type, as: UTF8.self)
        data = String(decoding: view.data, as: UTF8.self)
        id = view.lastEventID.isEmpty ? nil : String(decoding: view.lastEventID, as: UTF8.self)
        retry = view.retry
    }
}
