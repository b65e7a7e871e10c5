// CurlExchange: one request in flight on CurlTransport.
//
// Two kinds of state. `transfer` (the easy handle, the response being parsed, redirect hops,
// decoded size) belongs to the driver thread: only CurlDriver and the
// libcurl callbacks it runs touch it. `shared` (the head continuation, the body bytes not yet
// taken, the waiting consumer, flow control and the idle clock) is behind a mutex, because the
// consumer, cancellation and the driver all reach it. Every path that ends the exchange goes
// through `end`, which runs once.
//
// Body bytes are appended to `pending`; the consumer takes all of it at each step (one batch),
// and only a consumer that found nothing waits. When `pending` reaches `Limits.maxBufferedBytes`
// the write callback refuses the next chunk with CURL_WRITEFUNC_PAUSE (libcurl keeps it and
// stops reading the socket); once the consumer has taken `pending` down to half the ceiling, the
// driver resumes the transfer. While paused with activity not yet taken, the idle clock stops.

#if canImport(CCurl)
    import CCurl
    import Foundation
    import Synchronization

    /// One request in flight on ``CurlTransport``: driver-thread transfer state, shared body state.
    final class CurlExchange: HTTPBodyBatchSource, @unchecked Sendable {
        struct Shared: BodyBatchState {
            var head: CheckedContinuation<HTTPResponse, any Error>?
            /// `start` ran (the transfer was posted to the driver).
            var started = false
            var headDelivered = false
            /// No byte will be added to `pending`; `failure` says why (nil: the body is complete).
            var ended = false
            var failure: TransportError?
            var lastActivity = ContinuousClock.now
            /// When the request started (the configuration's overall timeout counts from it).
            var startedAt = ContinuousClock.now
            /// Body bytes received and not yet taken by the consumer.
            var pending: [UInt8] = []
            /// The consumer, when it found `pending` empty.
            var waiter: CheckedContinuation<[UInt8]?, any Error>?
            /// Receiving is paused until the consumer drains to the low-water mark.
            var paused = false
            /// The capacity a new batch starts with: the size of the last one taken (at least 16 KiB).
            var batchCapacity = 16 << 10

            mutating func notePause() { paused = true }
        }

        let request: HTTPRequest
        let limits: CurlTransport.Limits
        let configuration: CurlTransport.Configuration
        let driver: CurlDriver
        let shared = Mutex(Shared())
        /// Driver thread only (see the file's comment).
        var transfer: CurlTransfer

        init(
            request: HTTPRequest, limits: CurlTransport.Limits, configuration: CurlTransport.Configuration,
            driver: CurlDriver
        ) {
            self.request = request
            self.limits = limits
            self.configuration = configuration
            self.driver = driver
            self.transfer = CurlTransfer(request: request, additionalHeaders: configuration.additionalHeaders)
        }

        /// Installs `send`'s continuation and posts the transfer (or fails at once when
        /// cancellation came first).
        func start(head continuation: CheckedContinuation<HTTPResponse, any Error>) {
            let early: TransportError? = shared.withLock { state in
                if state.ended { return state.failure ?? TransportError(.cancelled, "the request was cancelled") }
                state.head = continuation
                state.started = true
                state.lastActivity = .now
                state.startedAt = state.lastActivity
                return nil
            }
            if let early {
                continuation.resume(throwing: early)
                return
            }
            driver.post(.add(self))
        }

        /// Whether the exchange has not ended.
        var isRunning: Bool { shared.withLock { !$0.ended } }

        /// Ends the exchange with `error` and has the driver drop the transfer (any thread).
        func fail(_ error: TransportError) {
            if end(with: error) { driver.post(.remove(self)) }
        }

        /// Ends the exchange: resumes whoever waits. False when it had ended already or never started.
        @discardableResult
        func end(with error: TransportError?) -> Bool {
            let ended = shared.withLock { state in
                state.end(with: error).map { (head: $0.head, body: $0.body, started: state.started) }
            }
            guard let waiters = ended else { return false }
            if let head = waiters.head {
                // libcurl ends a transfer whose connection closed after the status line, before the
                // head's blank line, without an error: the answer was cut, not malformed.
                head.resume(
                    throwing: error
                        ?? TransportError(.connectionLost, "the connection closed before the response head ended"))
            }
            if let body = waiters.body {
                if let error { body.resume(throwing: error) } else { body.resume(returning: nil) }
            }
            return waiters.started
        }

        // MARK: - The body's consumer

        func nextBatch() async throws -> [UInt8]? {
            try await BodyBatches.next(
                from: shared, maxBufferedBytes: limits.maxBufferedBytes,
                resumeReceiving: { driver.post(.resume(self)) },
                cancelled: { self.fail(TransportError(.cancelled, "the response body's consumer stopped")) })
        }

        func bodyDropped() {
            fail(TransportError(.cancelled, "the response body was dropped"))
        }

        // MARK: - Idle timeout (driver thread)

        /// How long until the exchange is idle past its timeout, or past the configuration's overall
        /// timeout (nil once it ended).
        func idleRemaining(at now: ContinuousClock.Instant) -> Duration? {
            shared.withLock { state in
                guard !state.ended else { return nil }
                // Paused with bytes the consumer has not taken: its delay, not the server's silence.
                if state.paused { state.lastActivity = now }
                let idle = request.idleTimeout - (now - state.lastActivity)
                guard let overall = configuration.resourceTimeout else { return idle }
                return min(idle, overall - (now - state.startedAt))
            }
        }

        /// The idle timeout, or the overall one, passed.
        func timedOut() {
            let (headDelivered, startedAt) = shared.withLock { ($0.headDelivered, $0.startedAt) }
            if let overall = configuration.resourceTimeout, ContinuousClock.now - startedAt >= overall {
                fail(
                    TransportError(
                        .timedOut,
                        "the request took longer than its overall timeout, \(overall) "
                            + "(URLSessionConfiguration.timeoutIntervalForResource)"))
                return
            }
            let what = headDelivered ? "the next body chunk" : "the response"
            fail(TransportError(.timedOut, "nothing for \(request.idleTimeout) while waiting for \(what)"))
        }
    }
#endif
