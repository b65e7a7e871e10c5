// URLSessionExchange: the state of one request in flight on URLSessionTransport.
//
// Head continuation, body stream continuation, last-activity time and the idle watchdog live
// behind one mutex; every path that ends the exchange (completion, failure, timeout, consumer
// cancellation) goes through `end`, which runs once.

import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request in flight: bridges delegate callbacks to `send`'s continuation and the body stream.
final class URLSessionExchange: Sendable {
    private struct State {
        var head: CheckedContinuation<HTTPResponse, any Error>?
        var headDelivered = false
        var ended = false
        var pendingFailure: TransportError?
        var lastActivity = ContinuousClock.now
        /// The body, until the head hands it out: the exchange must not keep the stream alive, or
        /// dropping it would not reach `onTermination`.
        var body: HTTPBody?
    }

    /// The session, kept alive while the exchange runs even if its transport is released.
    private let session: URLSession
    /// The URLSession task (Sendable in corelibs and on Darwin).
    private let task: URLSessionDataTask
    private let idleTimeout: Duration
    private let body: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let state: Mutex<State>

    init(session: URLSession, task: URLSessionDataTask, idleTimeout: Duration) {
        self.session = session
        self.task = task
        self.idleTimeout = idleTimeout
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        body = continuation
        state = Mutex(State(body: HTTPBody(stream)))
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
        for (name, value) in http.allHeaderFields {
            headers.append(name: "\(name)", value: "\(value)")
        }
        let taken: (CheckedContinuation<HTTPResponse, any Error>, HTTPBody)? = state.withLock { state in
            guard !state.ended, let head = state.head, let body = state.body else { return nil }
            state.lastActivity = .now
            state.headDelivered = true
            state.head = nil
            state.body = nil
            return (head, body)
        }
        guard let (continuation, body) = taken else { return false }
        continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: body))
        return true
    }

    /// Body bytes arrived.
    func receive(data: Data) {
        let live = state.withLock { state in
            state.lastActivity = .now
            return !state.ended
        }
        if live, !data.isEmpty { body.yield([UInt8](data)) }
    }

    /// URLSession finished the task, with or without an error.
    func complete(error: (any Error)?) {
        guard let error else {
            end(with: nil, cancelTask: false)
            return
        }
        let headDelivered = state.withLock { $0.headDelivered }
        end(with: Self.translate(error, afterHead: headDelivered), cancelTask: false)
    }

    /// Ends the exchange with `error` and cancels the network task.
    func fail(_ error: TransportError) {
        end(with: error, cancelTask: true)
    }

    private func end(with error: TransportError?, cancelTask: Bool) {
        // The undelivered body leaves the lock before it is released: dropping it runs `onTermination`.
        let (head, undeliveredBody): (CheckedContinuation<HTTPResponse, any Error>?, HTTPBody?) = state.withLock {
            state in
            guard !state.ended else { return (nil, nil) }
            if state.head == nil && !state.headDelivered {
                // `start` has not run yet: remember the failure for it.
                state.pendingFailure = error ?? TransportError(.invalidResponse, "finished without a response")
            }
            state.ended = true
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
        if cancelTask { task.cancel() }
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
            return idleTimeout - (ContinuousClock.now - state.lastActivity)
        }
        guard let remaining else { return }
        if remaining <= .zero {
            let what = state.withLock { $0.headDelivered } ? "the next body chunk" : "the response"
            fail(TransportError(.timedOut, "no data for \(idleTimeout) while waiting for \(what)"))
        } else {
            scheduleWatchdog(after: remaining)
        }
    }

    // MARK: - Errors

    /// Maps a URLSession error to a ``TransportError``.
    static func translate(_ error: any Error, afterHead: Bool) -> TransportError {
        guard let urlError = error as? URLError else {
            return TransportError(afterHead ? .connectionLost : .connectionFailed, "\(error)")
        }
        let message = urlError.localizedDescription + " (URLError \(urlError.code.rawValue))"
        let kind: TransportError.Kind
        switch urlError.code {
        case .cancelled: kind = .cancelled
        case .timedOut: kind = .timedOut
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            kind = .invalidResponse
        case .networkConnectionLost: kind = .connectionLost
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
            .secureConnectionFailed, .badURL, .unsupportedURL:
            kind = afterHead ? .connectionLost : .connectionFailed
        default: kind = afterHead ? .connectionLost : .connectionFailed
        }
        return TransportError(kind, message, underlyingError: urlError)
    }
}
