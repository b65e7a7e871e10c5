/// Limits and timeouts of an ``HTTPServer``; every value has a documented default.
public struct HTTPServerConfiguration: Sendable {
    /// Connections served at once; one more is answered `503` and closed. Default 256.
    public var maxConnections: Int = 256
    /// Longest request line plus header section, in bytes; beyond it `431` (or `414` for the URI). Default 16 KiB.
    public var maxHeaderBytes: Int = 16 * 1024
    /// Most header fields in one request; beyond it `431`. Default 100.
    public var maxHeaderCount: Int = 100
    /// Longest request target, in bytes; beyond it `414`. Default 8 KiB.
    public var maxURILength: Int = 8 * 1024
    /// Largest request body (after de-chunking); beyond it `413`. Default 8 MiB.
    public var maxBodyBytes: Int = 8 * 1024 * 1024
    /// How long a kept-alive connection may sit idle between requests before the server closes it. Default 5 s.
    public var idleTimeout: Duration = .seconds(5)
    /// How long the server waits for the next byte of a request that has started arriving; then `408`. Default 30 s.
    public var requestReadTimeout: Duration = .seconds(30)
    /// How long ``HTTPServer/stop()`` waits for running handlers to return after their connections were shut. Default 5 s.
    public var shutdownGracePeriod: Duration = .seconds(5)
    /// The `Server` response header value. Default `ChatStream`.
    public var serverName: String = "ChatStream"

    /// The defaults.
    public init() {}
}

extension Duration {
    /// The duration in whole milliseconds, clamped to `Int32` for `poll(2)`.
    var pollMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, millis))
    }
}
