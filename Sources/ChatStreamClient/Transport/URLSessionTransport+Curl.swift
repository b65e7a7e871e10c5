// URLSessionTransport on Linux: a CurlTransport with the URLSessionConfiguration mapped onto it.
//
// swift-corelibs-foundation's URLSession hands each network read through several queues and
// cannot pause reading for a slow consumer without reaching into its private internals, so on
// Linux every request goes through CurlTransport. This type keeps code written for
// URLSessionTransport compiling and working the same there: the configuration's settings that
// libcurl can honour are mapped (CurlTransport.Configuration), the limits are the same.

#if canImport(CCurl)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// An ``HTTPTransport`` that streams response bodies: `URLSession` on Apple platforms; on
    /// Linux a ``CurlTransport`` with the configuration's settings that libcurl can honour (see
    /// ``CurlTransport/Configuration``).
    ///
    /// ```swift
    /// let transport = URLSessionTransport()
    /// let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
    /// for try await chunk in response.body { print(chunk.count) }   // chunks as the server sends them
    /// ```
    public final class URLSessionTransport: HTTPTransport {
        /// What the transport buffers and accepts (bytes in flight, decoded body, head, redirects).
        public let limits: Limits
        /// The libcurl transport every request goes through.
        public let curl: CurlTransport

        /// A transport for `configuration` (default: none, so no cookies are sent or kept) that
        /// holds to `limits` (default: 1 MiB in flight, 64 MiB decoded, 64 KiB of head,
        /// same-origin redirects only). On Linux the configuration's settings that libcurl can
        /// honour apply (``CurlTransport/Configuration/init(_:)`` says which); the others are
        /// ignored there.
        public init(configuration: URLSessionConfiguration? = nil, limits: Limits = Limits()) {
            self.limits = limits
            self.curl = CurlTransport(
                limits: limits,
                configuration: configuration.map(CurlTransport.Configuration.init) ?? CurlTransport.Configuration())
        }

        /// Sends `request` and returns when the response head arrives.
        ///
        /// - Throws: ``TransportError`` (`.connectionFailed`, `.timedOut`, `.cancelled`, `.invalidResponse`,
        ///   `.headerTooLarge`, `.redirectRefused`).
        public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try await curl.send(request)
        }
    }
#endif
