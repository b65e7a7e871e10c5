extension HTTPRequest {
    /// What counts as activity for a request's ``HTTPRequest/idleTimeout`` once the response head is in.
    ///
    /// ```swift
    /// var request = HTTPRequest(url: chatURL, idleTimeout: .seconds(30))
    /// request.idleActivity = .serverSentEvents          // comments do not keep it alive
    /// var live = HTTPRequest(url: eventsURL, idleTimeout: .seconds(45))
    /// live.idleActivity = .serverSentEvents(keepAliveComment: "ping")   // `: ping` does
    /// ```
    public struct IdleActivity: Sendable, Hashable, CustomStringConvertible {
        /// The comment text that counts as activity (nil: none does); meaningful with `countsEvents`.
        let keepAliveComment: [UInt8]?
        /// Whether only complete server-sent events (and `keepAliveComment`) count.
        let countsEvents: Bool

        /// Any body bytes count (the default): only silence ends the request.
        public static let anyBytes = IdleActivity(keepAliveComment: nil, countsEvents: false)

        /// Only complete server-sent events count: a block with a `data` field ended by a blank
        /// line. Comments (`: ...`) and fields alone do not, so an endless stream of comments ends
        /// with ``TransportError/Kind/timedOut`` after the idle timeout.
        public static let serverSentEvents = IdleActivity(keepAliveComment: nil, countsEvents: true)

        /// As ``serverSentEvents``, and a comment line whose text is exactly `keepAliveComment`
        /// (`: ping` for `"ping"`, one optional space after the colon) counts too: the
        /// protocol's heartbeat.
        public static func serverSentEvents(keepAliveComment: String) -> IdleActivity {
            IdleActivity(keepAliveComment: Array(keepAliveComment.utf8), countsEvents: true)
        }

        /// `anyBytes`, `serverSentEvents` or `serverSentEvents(keepAliveComment: "...")`.
        public var description: String {
            guard countsEvents else { return "anyBytes" }
            guard let keepAliveComment else { return "serverSentEvents" }
            return "serverSentEvents(keepAliveComment: \"\(String(decoding: keepAliveComment, as: UTF8.self))\")"
        }
    }
}
