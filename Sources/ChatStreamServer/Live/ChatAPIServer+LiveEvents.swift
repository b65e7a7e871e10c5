// ChatAPIServer.LiveEvents: how `GET /agents/{agentId}/events` behaves (PROTOCOLS.md section 6),
// including the fault that drops the event connection so clients can be tested.

extension ChatAPIServer {
    /// Settings of the live event stream.
    ///
    /// ```swift
    /// var configuration = ChatAPIServer.Configuration()
    /// configuration.liveEvents.dropEvery = 10  // cut every event connection after 10 events
    /// ```
    public struct LiveEvents: Sendable, Hashable {
        /// The `retry:` the stream starts with, in milliseconds. Default 1000.
        public var retryMilliseconds: Int = 1000
        /// The longest pause without a byte: then a `: ping` comment is sent. Default 15 s.
        public var heartbeat: Duration = .seconds(15)
        /// Events held per caller for resumption after `Last-Event-ID`; older ones answer `reset`.
        /// Default 1,000 (section 6 asks for at least the caller's last 1,000).
        public var capacityPerCaller: Int = 1000
        /// Bytes of event JSON held per caller (the newest event is always kept; they count in the
        /// caller's storage quota). Default 1 MiB.
        public var bytesPerCaller: Int = 1 << 20
        /// Bytes of event JSON the server keeps in memory for subscribers (the newest events of
        /// everyone; older ones are read from the database). Default 8 MiB.
        public var memoryBytes: Int = 8 << 20
        /// The largest message JSON a `message.created` event carries whole; a longer message is
        /// sent as its preview with `"truncated": true` and clients fetch the history. Default 4 KiB.
        public var inlineMessageBytes: Int = 4 << 10
        /// How long one write to a subscriber may block (a subscriber that stops reading): then it is
        /// disconnected, and it resumes later from its last ID. Default 10 s.
        public var writeTimeout: Duration = .seconds(10)
        /// Fault: drop each event connection (without an end) after this many events. Default nil (never).
        public var dropEvery: Int? = nil

        /// The defaults.
        public init() {}
    }
}
