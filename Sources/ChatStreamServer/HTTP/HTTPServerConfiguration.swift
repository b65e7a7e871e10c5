// HTTPServerConfiguration: every limit and timeout of the HTTP server, with documented defaults.
//
// The server runs one thread per connection (handlers may block to pace a stream), so its defence
// against slow and abandoned clients is a deadline on every wait and a cap on what one peer may
// hold: a whole request head must arrive within `requestHeadTimeout`, a body at no less than
// `minimumBodyBytesPerSecond`, every response write within `sendTimeout` (with at most
// `sendBufferBytes` queued in the kernel), and one client address holds at most
// `maxConnectionsPerAddress` of the `maxConnections` threads.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Limits and timeouts of the HTTP server under a ``ChatAPIServer``; every value has a documented default.
public struct HTTPServerConfiguration: Sendable {
    /// Connections served at once (each has a thread); one more is answered `503` and closed.
    /// Default: 128 per processor core, between 64 and 4096, and at most half the descriptor limit
    /// (256 on a 2-core machine with the usual 1024 descriptors).
    public var maxConnections: Int = HTTPServerConfiguration.machineConnectionCap
    /// Connections one client address (IP, without port) may hold at once; one more is answered `503`.
    /// Keeps one peer from taking every thread. Default 32.
    public var maxConnectionsPerAddress: Int = 32
    /// Connections one client network (an IPv4 /24, an IPv6 /64) may hold at once; one more is
    /// answered `503`. Default 128 (half the default global cap on a 2-core machine).
    public var maxConnectionsPerNetwork: Int = 128
    /// Live event streams and streamed replies open at once. A stream is served by one poll-based
    /// writer after its head, holding a descriptor but no connection thread, so this is its own
    /// limit beside ``maxConnections``; one more is answered `503` with `Retry-After`. Default 16,384, at most
    /// the descriptor limit less ``maxConnections`` and 64.
    public var maxStreams: Int = HTTPServerConfiguration.machineStreamCap
    /// Live event streams and streamed replies one client address may hold at once. Default 128.
    public var maxStreamsPerAddress: Int = 128
    /// Live event streams and streamed replies one client network (an IPv4 /24, an IPv6 /64) may
    /// hold at once. Default 512.
    public var maxStreamsPerNetwork: Int = 512
    /// Longest request line plus header section, in bytes; beyond it `431` (or `414` for the URI). Default 16 KiB.
    public var maxHeaderBytes: Int = 16 * 1024
    /// Most header fields in one request; beyond it `431`. Default 100.
    public var maxHeaderCount: Int = 100
    /// Longest request target, in bytes; beyond it `414`. Default 8 KiB.
    public var maxURILength: Int = 8 * 1024
    /// Largest request body (after de-chunking); beyond it `413`. Default 8 MiB.
    public var maxBodyBytes: Int = 8 * 1024 * 1024
    /// How long a kept-alive (or new) connection may sit idle before a request starts; then it is closed. Default 5 s.
    public var idleTimeout: Duration = .seconds(5)
    /// How long a whole request head (request line and headers) may take from its first byte; then `408`.
    /// Default 10 s.
    public var requestHeadTimeout: Duration = .seconds(10)
    /// The slowest a request body may arrive, averaged from its start after ``bodyRateGracePeriod``;
    /// slower is `408`. Default 1024 bytes/s.
    public var minimumBodyBytesPerSecond: Int = 1024
    /// How long a body may take before ``minimumBodyBytesPerSecond`` applies. Default 5 s.
    public var bodyRateGracePeriod: Duration = .seconds(5)
    /// Longest wait for the next byte of a request that has started arriving (within the deadlines above);
    /// then `408`. Default 30 s.
    public var requestReadTimeout: Duration = .seconds(30)
    /// How long one response write (a whole response, or one chunk of a stream) may take to be taken by
    /// the peer; a peer that does not read loses its connection. Default 10 s.
    public var sendTimeout: Duration = .seconds(10)
    /// The socket send buffer of each connection: the most response bytes queued for a slow reader
    /// before writes block (then ``sendTimeout`` runs). Default 256 KiB.
    public var sendBufferBytes: Int = 256 * 1024
    /// How long the server's `stop()` waits for running handlers to return after their connections were shut. Default 5 s.
    public var shutdownGracePeriod: Duration = .seconds(5)
    /// The `Server` response header value. Default `ChatStream`.
    public var serverName: String = "ChatStream"

    /// The defaults.
    public init() {}

    /// The default global cap for this machine: 128 connections per core, between 64 and 4096,
    /// at most half the descriptor limit.
    public static var machineConnectionCap: Int {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return max(16, min(max(64, min(4096, 128 * max(1, cores))), Socket.descriptorLimit / 2))
    }
}

extension HTTPServerConfiguration {
    /// The default stream cap for this machine: 16,384, at most the descriptor limit less the
    /// connection cap and 64 (at least 16).
    public static var machineStreamCap: Int {
        max(16, min(16_384, Socket.descriptorLimit - machineConnectionCap - 64))
    }
}

extension Duration {
    /// The duration in whole milliseconds, clamped to `Int32` for `poll(2)`.
    var pollMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, millis))
    }
}
