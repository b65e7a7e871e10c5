import ChatStreamHTTP
import Foundation

/// A request for an ``HTTPTransport``.
///
/// ```swift
/// let request = HTTPRequest(
///     method: "POST", url: base.appendingPathComponent("agents/\(agent)/chat"),
///     headers: ["Content-Type": "application/json", "Accept": "text/event-stream"],
///     body: Array(#"{"message":"hi","stream":true}"#.utf8), idleTimeout: .seconds(30))
/// ```
public struct HTTPRequest: Sendable {
    /// The method (`GET`, `POST`, ...).
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// The header fields to send.
    public var headers: HTTPHeaderFields
    /// The body, or nil for none.
    public var body: [UInt8]?
    /// The longest silence allowed: waiting for the response head, and between two body chunks
    /// (any byte counts). A stream that keeps sending is never cut, however long it runs; what
    /// counts on an event stream is decided above the transport, from the decoded events (a chat
    /// reply of comments alone times out, see ``ChatbaseClient/idleTimeout``). Default 60 s.
    public var idleTimeout: Duration
    /// The longest the whole exchange may take, however steadily the body keeps arriving (a
    /// stream that trickles); nil (the default) for no limit. The body then ends with
    /// ``TransportError/Kind/timedOut`` at the first chunk asked for after the deadline, every
    /// chunk received before it handed over; a stream that stalls is ended by ``idleTimeout``.
    public var totalTimeout: Duration?

    /// A request; only the URL is required.
    public init(
        method: String = "GET", url: URL, headers: HTTPHeaderFields = [:], body: [UInt8]? = nil,
        idleTimeout: Duration = .seconds(60)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.idleTimeout = idleTimeout
    }
}
