// CurlTransport: HTTPTransport on libcurl directly (Linux), the client's default there.
//
// FoundationNetworking's URLSession runs libcurl too, but hands each network read through its
// socket sources, its work queue, the delegate and then an AsyncThrowingStream: measured on a
// 600 KB chat reply over loopback, most of the client's time went to those hops and their thread
// wake-ups, not to the bytes. Here one thread (CurlDriver) drives every transfer with libcurl's
// multi interface; the write callback appends the bytes to the exchange's buffer, and the body's
// consumer takes everything received since its last step in one batch, so a consumer slower than
// the network wakes once per batch, not once per read.
//
// The same `Limits` as URLSessionTransport hold: bytes in flight (reading pauses with libcurl's
// receive pause at the ceiling and resumes at half), the decoded size of a compressed body, the
// size of the response head, and the redirect policy (redirects are followed here, not by
// libcurl, so identity headers never go to another origin). The idle timeout (head and body: any
// byte counts) and the configuration's overall timeout are checked by the driver
// thread between reads. The Configuration adds header fields and cookies (the settings of a
// URLSessionConfiguration that libcurl can honour; URLSessionTransport maps one onto it on Linux). Cancelling the task
// awaiting `send`, cancelling the body's consumer, or dropping the body all end the transfer.

#if canImport(CCurl)
    import CCurl
    import Foundation

    /// An ``HTTPTransport`` on libcurl (Linux): streams response bodies with one thread for all
    /// transfers and hands each body out in batches.
    ///
    /// ```swift
    /// let transport = CurlTransport(limits: CurlTransport.Limits(maxBufferedBytes: 256 << 10))
    /// let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
    /// for try await chunk in response.body { print(chunk.count) }   // all bytes received since the last step
    /// ```
    public final class CurlTransport: HTTPTransport {
        /// The limits, the same type as ``URLSessionTransport``'s.
        public typealias Limits = URLSessionTransport.Limits

        /// What the transport buffers and accepts (bytes in flight, decoded body, head, redirects).
        public let limits: Limits
        /// What it adds to each request and keeps between them (headers, cookies, overall timeout).
        public let configuration: Configuration

        /// A transport that holds to `limits` (default: 1 MiB in flight, 64 MiB decoded, 64 KiB of
        /// head, same-origin redirects only), with `configuration` (default: no extra fields, no
        /// cookies, no overall timeout).
        public init(limits: Limits = Limits(), configuration: Configuration = Configuration()) {
            self.limits = limits
            self.configuration = configuration
        }

        /// Sends `request` and returns when the response head arrives.
        ///
        /// - Throws: ``TransportError`` (`.connectionFailed`, `.timedOut`, `.cancelled`, `.invalidResponse`,
        ///   `.headerTooLarge`, `.redirectRefused`); `.connectionFailed` naming the library when
        ///   libcurl (opened at the first request, not at launch) cannot be loaded.
        public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if let reason = chatstream_curl_load() {
                throw TransportError(.connectionFailed, String(cString: reason))
            }
            let exchange = CurlExchange(
                request: request, limits: limits, configuration: configuration, driver: CurlDriver.shared)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    exchange.start(head: continuation)
                }
            } onCancel: {
                exchange.fail(TransportError(.cancelled, "the request was cancelled"))
            }
        }
    }
#endif
