// DefaultHTTPTransport: the transport a ChatbaseClient uses unless given one.

/// The platform's streaming ``HTTPTransport``. On Linux: ``PlainHTTPTransport`` for `http://` URLs
/// (HTTP/1.1 on a socket, so libcurl is not even loaded for a local or loopback server) with
/// ``CurlTransport`` for the rest (`https://`); on Apple platforms ``URLSessionTransport``.
///
/// ```swift
/// let transport = DefaultHTTPTransport.make(limits: URLSessionTransport.Limits(maxBufferedBytes: 256 << 10))
/// let client = ChatbaseClient(agentId: "my-agent", baseURL: url, transport: transport)
/// ```
public enum DefaultHTTPTransport {
    /// A new transport of the platform's default kind, holding to `limits`.
    public static func make(limits: URLSessionTransport.Limits = URLSessionTransport.Limits()) -> any HTTPTransport {
        #if canImport(CCurl)
            PlainHTTPTransport(limits: limits, fallback: CurlTransport(limits: limits))
        #else
            URLSessionTransport(limits: limits)
        #endif
    }
}
