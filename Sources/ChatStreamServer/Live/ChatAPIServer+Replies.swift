// ChatAPIServer.Replies: how long and how much of streamed replies the server holds so a client
// can resume them or join them (PROTOCOLS.md section 8), and how often a generating reply is saved.

extension ChatAPIServer {
    /// Limits of resumable replies. Memory: the events of ended replies held stay under
    /// ``retainedBytes`` (oldest dropped first); generating replies are at most ``maxGenerating``
    /// and their events at most ``generatingBytes``.
    ///
    /// ```swift
    /// var configuration = ChatAPIServer.Configuration()
    /// configuration.replies.retention = .seconds(30 * 60)  // hold ended replies for 30 minutes
    /// ```
    public struct Replies: Sendable, Hashable {
        /// How long an ended reply's events are held after its end; then its resume answers 410
        /// `RESOURCE_REPLY_EXPIRED`. Default 10 minutes (section 8's minimum).
        public var retention: Duration = .seconds(600)
        /// The most bytes of ended replies' events held in all (SSE bytes as sent); past it the
        /// oldest ended replies are dropped before their retention ends. Default 32 MiB.
        public var retainedBytes: Int = 32 << 20
        /// Replies generating at once; a chat or retry beyond it answers 503 `SERVER_BUSY` with
        /// `Retry-After: 1`. Default 256.
        public var maxGenerating: Int = 256
        /// The most bytes of generating replies' events held in all (SSE bytes as sent). Each reply
        /// reserves its whole planned size when it starts and releases it when it ends (finished,
        /// stopped or interrupted); a chat or retry whose reply would pass what is left answers 503
        /// `SERVER_BUSY` with `Retry-After: 1`, storing nothing. Default 64 MiB.
        public var generatingBytes: Int = 64 << 20
        /// The most bytes of events one reply of an agent backed by a model may hold (SSE bytes as
        /// sent). Its size is not known when it starts, so it reserves this much of
        /// ``generatingBytes`` whole (the default budget holds 16 such replies at once); a model
        /// stream that passes it ends with an `error` chunk (`CHAT_STREAMING_ERROR`) after the
        /// text so far, which is stored. Default 4 MiB.
        public var modelReplyBytes: Int = 4 << 20
        /// How often a generating reply's text so far is saved, so a crash keeps it (a graceful
        /// stop saves all of it). Default 500 ms.
        public var checkpointInterval: Duration = .milliseconds(500)

        /// The defaults above.
        public init() {}
    }
}
