// URLSessionTransport: HTTPTransport over URLSession's delegate callbacks.
//
// Apple platforms (on Linux, URLSessionTransport+Curl.swift: every request goes through CurlTransport).
// Responses are read with a `URLSessionDataDelegate`: the head resumes `send`'s continuation at
// `didReceive response`, each `didReceive data` is yielded to the body's `AsyncThrowingStream` as it
// comes, and completion ends or fails that stream. One session (and one delegate) serves every
// request; the delegate finds the request's `URLSessionExchange` by session and task identifier.
// A configuration the caller passes is used as given (a copy): its caches, cookies and timeouts hold.
//
// Limits (URLSessionTransport.Limits): bytes in flight (reading pauses at the ceiling), the decoded
// size of a compressed body, the size of the response head, and which redirects are followed
// (identity headers never go to another origin).
//
// Cancellation: cancelling the task awaiting `send`, cancelling the task iterating the body, or
// dropping the body all cancel the `URLSessionTask` (the stream's `onTermination`).
//
// Idle timeout: URLSession's `timeoutInterval` differs in detail, so each exchange runs its own watchdog with the request's
// `idleTimeout`, any byte counting (the URLRequest's own timeout is set well above it as a backstop).

#if !canImport(CCurl)
    import Foundation
    import Synchronization

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// An ``HTTPTransport`` on `URLSession` that streams response bodies (Apple platforms; on Linux
    /// the same type goes through ``CurlTransport``).
    ///
    /// ```swift
    /// let transport = URLSessionTransport()
    /// let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
    /// for try await chunk in response.body { print(chunk.count) }   // chunks as the server sends them
    /// ```
    public final class URLSessionTransport: HTTPTransport {
        /// What the transport buffers and accepts (bytes in flight, decoded body, head, redirects).
        public let limits: Limits
        private let session: URLSession
        private let delegate: URLSessionTransportDelegate

        /// A transport whose session is built from `configuration`, used as given (a copy: its caches,
        /// cookies, headers and resource timeout hold; the idle timeout is each request's
        /// ``HTTPRequest/idleTimeout``). Without one: ephemeral, no cache, no cookies. It holds to
        /// `limits` (default ``Limits/init(maxBufferedBytes:maxDecodedBodyBytes:maxResponseHeaderBytes:redirects:)``:
        /// 1 MiB in flight, 64 MiB decoded, 64 KiB of head, same-origin redirects only).
        public init(configuration: URLSessionConfiguration? = nil, limits: Limits = Limits()) {
            let settings: URLSessionConfiguration
            if let configuration {
                settings = (configuration.copy() as? URLSessionConfiguration) ?? configuration
            } else {
                settings = .ephemeral
                settings.urlCache = nil
                settings.requestCachePolicy = .reloadIgnoringLocalCacheData
                settings.httpShouldSetCookies = false
            }
            self.limits = limits
            let delegate = URLSessionTransportDelegate()
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            queue.name = "URLSessionTransport"
            self.delegate = delegate
            self.session = URLSession(configuration: settings, delegate: delegate, delegateQueue: queue)
        }

        deinit {
            // Requests still in flight (a body being read) run to their end; then the session goes.
            session.finishTasksAndInvalidate()
        }

        /// Sends `request` and returns when the response head arrives.
        ///
        /// - Throws: ``TransportError`` (`.connectionFailed`, `.timedOut`, `.cancelled`, `.invalidResponse`,
        ///   `.headerTooLarge`, `.redirectRefused`).
        public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method
            for (name, value) in request.headers {
                urlRequest.addValue(value, forHTTPHeaderField: name)
            }
            if let body = request.body { urlRequest.httpBody = Data(body) }
            let idleSeconds =
                Double(request.idleTimeout.components.seconds)
                + Double(request.idleTimeout.components.attoseconds) / 1e18
            // The library's own timer is a backstop only: it also runs while reading is paused for a slow
            // consumer, which the exchange's watchdog allows.
            urlRequest.timeoutInterval = max(idleSeconds * 4, idleSeconds + 600)

            let task = session.dataTask(with: urlRequest)
            let exchange = URLSessionExchange(session: session, task: task, request: request, limits: limits)
            delegate.register(exchange, for: task, in: session)
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
