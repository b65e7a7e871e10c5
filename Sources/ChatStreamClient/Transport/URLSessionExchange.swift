// URLSessionExchange: the state of one request in flight on URLSessionTransport.
//
// Head continuation, body stream continuation, last-activity time, flow control and the idle
// watchdog live behind one mutex; every path that ends the exchange (completion, failure,
// timeout, consumer cancellation) goes through `end`, which runs once.
//
// Flow control: `buffered` counts body bytes yielded to the stream and not yet taken by the
// consumer (HTTPBody reports each chunk it hands out). When it reaches `maxBufferedBytes`, reading
// pauses until the consumer has taken half of it (see URLSessionExchange+FlowControl.swift).
// While paused, the idle clock stops: that silence is the consumer's, not the server's.

import ChatStreamHTTP

#if !canImport(CCurl)
    import Dispatch
    import Foundation
    import Synchronization

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One request in flight: bridges delegate callbacks to `send`'s continuation and the body stream.
    final class URLSessionExchange: Sendable {
        struct State {
            var head: CheckedContinuation<HTTPResponse, any Error>?
            var headDelivered = false
            var ended = false
            var pendingFailure: TransportError?
            var lastActivity = ContinuousClock.now
            /// The body, until the head hands it out: the exchange must not keep the stream alive, or
            /// dropping it would not reach `onTermination`.
            var body: HTTPBody?
            /// Body bytes yielded and not yet taken by the consumer.
            var buffered = 0
            /// Reading is paused until the consumer drains to the low-water mark.
            var paused = false
            /// Decoded bytes of a compressed body so far; nil for a body without `Content-Encoding`.
            var decodedBytes: Int?
        }

        /// The session, kept alive while the exchange runs even if its transport is released.
        let session: URLSession
        /// The URLSession task (Sendable in corelibs and on Darwin).
        let task: URLSessionDataTask
        let idleTimeout: Duration
        let limits: URLSessionTransport.Limits
        /// The request's origin: identity headers never leave it.
        let origin: URL
        private let body: AsyncThrowingStream<[UInt8], any Error>.Continuation
        let state: Mutex<State>

        init(session: URLSession, task: URLSessionDataTask, request: HTTPRequest, limits: URLSessionTransport.Limits) {
            self.session = session
            self.task = task
            self.idleTimeout = request.idleTimeout
            self.origin = request.url
            self.limits = limits
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
            body = continuation
            state = Mutex(State())
            let taken: @Sendable (Int) -> Void = { [weak self] count in self?.consumerTook(count) }
            state.withLock { $0.body = HTTPBody(stream, taken: taken) }
            body.onTermination = { [weak self] termination in
                if case .cancelled = termination {
                    self?.fail(TransportError(.cancelled, "the response body's consumer stopped"))
                }
            }
        }

        /// Installs `send`'s continuation and starts the request and its watchdog (or fails at once if
        /// cancellation came first).
        func start(head continuation: CheckedContinuation<HTTPResponse, any Error>) {
            let early: TransportError? = state.withLock { state in
                if let failure = state.pendingFailure { return failure }
                state.head = continuation
                state.lastActivity = .now
                return nil
            }
            if let early {
                continuation.resume(throwing: early)
                cancelTask()
                return
            }
            task.resume()
            scheduleWatchdog(after: idleTimeout)
        }

        /// The response head arrived.
        func receive(response: URLResponse) -> Bool {
            guard let http = response as? HTTPURLResponse else {
                fail(TransportError(.invalidResponse, "not an HTTP response: \(response)"))
                return false
            }
            var headers = HTTPHeaderFields()
            var headBytes = 0
            for (name, value) in http.allHeaderFields {
                let field = (name: "\(name)", value: "\(value)")
                headBytes += field.name.utf8.count + 2 + field.value.utf8.count + 2
                headers.append(name: field.name, value: field.value)
            }
            guard headBytes <= limits.maxResponseHeaderBytes else {
                fail(
                    TransportError(
                        .headerTooLarge,
                        "the response head has \(headBytes) bytes of header fields, over the limit of "
                            + "\(limits.maxResponseHeaderBytes) (URLSessionTransport.Limits.maxResponseHeaderBytes)"))
                return false
            }
            let encoding = headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            let compressed = !encoding.isEmpty && encoding != "identity"
            let taken: (CheckedContinuation<HTTPResponse, any Error>, HTTPBody)? = state.withLock { state in
                guard !state.ended, let head = state.head, let body = state.body else { return nil }
                state.lastActivity = .now
                state.headDelivered = true
                state.head = nil
                state.body = nil
                if compressed { state.decodedBytes = 0 }
                return (head, body)
            }
            guard let (continuation, body) = taken else { return false }
            continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: body))
            return true
        }

        /// Body bytes arrived (decoded, when the body is compressed).
        func receive(data: Data) {
            guard !data.isEmpty else { return }
            let bytes = [UInt8](data)
            enum Next { case drop, deliver(pause: Bool), tooLarge }
            let next: Next = state.withLock { state in
                guard !state.ended else { return .drop }
                if let decoded = state.decodedBytes {
                    state.decodedBytes = decoded + bytes.count
                    if decoded + bytes.count > limits.maxDecodedBodyBytes { return .tooLarge }
                }
                state.lastActivity = .now
                state.buffered += bytes.count
                return .deliver(pause: state.buffered >= limits.maxBufferedBytes)
            }
            switch next {
            case .drop: return
            case .tooLarge:
                fail(
                    TransportError(
                        .bodyTooLarge,
                        "the compressed response body decodes to more than \(limits.maxDecodedBodyBytes) bytes "
                            + "(URLSessionTransport.Limits.maxDecodedBodyBytes)"))
            case .deliver(let pause):
                body.yield(bytes)
                if pause { pauseReadingIfStillFull() }
            }
        }

        /// A redirect: the request to follow, or nil (and the exchange fails) when the policy refuses it.
        func redirect(from response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
            guard let target = request.url else { return nil }
            guard limits.redirects.follows(from: origin, to: target) else {
                let from = response.url?.absoluteString ?? origin.absoluteString
                fail(
                    TransportError(
                        .redirectRefused,
                        "\(response.statusCode) redirect from \(from) to \(target.absoluteString) not followed: "
                            + "the redirect policy is \(limits.redirects) (URLSessionTransport.Limits.redirects)"))
                return nil
            }
            guard Origin(target) != Origin(origin) else { return request }
            var stripped = request
            for name in URLSessionTransport.identityHeaders {
                stripped.setValue(nil, forHTTPHeaderField: name)
            }
            return stripped
        }

        /// URLSession finished the task, with or without an error.
        func complete(error: (any Error)?) {
            guard let error else {
                end(with: nil, cancelTask: false)
                return
            }
            let headDelivered = state.withLock { $0.headDelivered }
            end(with: Self.translate(error, afterHead: headDelivered, limits: limits), cancelTask: false)
        }

        /// Ends the exchange with `error` and cancels the network task.
        func fail(_ error: TransportError) {
            end(with: error, cancelTask: true)
        }

        private func end(with error: TransportError?, cancelTask shouldCancel: Bool) {
            // The undelivered body leaves the lock before it is released: dropping it runs `onTermination`.
            let (head, undeliveredBody): (CheckedContinuation<HTTPResponse, any Error>?, HTTPBody?) = state.withLock {
                state in
                guard !state.ended else { return (nil, nil) }
                if state.head == nil && !state.headDelivered {
                    // `start` has not run yet: remember the failure for it.
                    state.pendingFailure = error ?? TransportError(.invalidResponse, "finished without a response")
                }
                state.ended = true
                state.paused = false
                defer {
                    state.head = nil
                    state.body = nil
                }
                return (state.head, state.body)
            }
            _ = undeliveredBody
            if let error {
                head?.resume(throwing: error)
                body.finish(throwing: error)
            } else {
                head?.resume(throwing: TransportError(.invalidResponse, "the request finished without a response head"))
                body.finish()
            }
            if shouldCancel { cancelTask() }
        }

        /// Cancels the task off the calling thread: on Linux delegate callbacks run on the queue that
        /// drives libcurl, and `cancel()` waits for that queue.
        private func cancelTask() {
            let task = task
            DispatchQueue.global().async { task.cancel() }
        }

        // MARK: - Idle watchdog

        private func scheduleWatchdog(after delay: Duration) {
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(max(1_000_000, nanoseconds)))) {
                [weak self] in
                self?.checkIdle()
            }
        }

        private func checkIdle() {
            let remaining: Duration? = state.withLock { state in
                guard !state.ended else { return nil }
                // Paused with bytes the consumer has not taken: its delay, not the server's silence.
                if state.paused { state.lastActivity = .now }
                return idleTimeout - (ContinuousClock.now - state.lastActivity)
            }
            guard let remaining else { return }
            if remaining <= .zero {
                let headDelivered = state.withLock { $0.headDelivered }
                let what = headDelivered ? "the next body chunk" : "the response"
                fail(TransportError(.timedOut, "nothing for \(idleTimeout) while waiting for \(what)"))
            } else {
                scheduleWatchdog(after: remaining)
            }
        }
    }
#endif
