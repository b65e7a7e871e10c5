// DefaultHTTPTransport: the transport a ChatbaseClient uses unless given one.

/// The platform's streaming ``HTTPTransport``: ``CurlTransport`` on Linux (libcurl driven directly,
/// bodies handed out in batches), ``URLSessionTransport`` on Apple platforms.
///
/// ```swift
/// let transport = DefaultHTTPTransport.make(limits: URLSessionTransport.Limits(maxBufferedBytes: 256 << 10))
/// let client = ChatbaseClient(agentId: "my-agent", baseURL: url, transport: transport)
/// ```
public enum DefaultHTTPTransport {
    /// A new transport of the platform's default kind, holding to `limits`.
    public static func make(limits: URLSessionTransport.Limits = URLSessionTransport.Limits()) -> any HTTPTransport {
        #if canImport(CCurl)
            CurlTransport(limits: limits)
        #else
            URLSessionTransport(limits: limits)
        #endif
    }
}
