// AsyncLiveEventSequence: `GET /agents/{agentId}/events` as one endless sequence across
// connections (PROTOCOLS.md section 6).
//
// The iterator owns one ConversationEventDecoder for the whole life of the sequence (so the last
// event ID and the server's `retry` carry over connections), one open response at a time, and the
// ID of the last event it handed over. When a connection ends or fails it waits (the server's
// `retry`, doubled on each failure in a row, capped, with jitter) and connects again with
// `Last-Event-ID`. The server resends nothing the client had and sends `reset` when it cannot
// resume; as a safety net the iterator also drops any event whose numeric ID is not above the
// last one handed over, so an event is never handed over twice. Only answers that will not heal
// end it with an error: 401, 403, 404 (a 404 `NOT_FOUND` is reported once as
// `.notSupportedByServer`). Cancelling the task or dropping the iterator ends it quietly.

import ChatStream
import Foundation

/// How ``ChatbaseClient/events(since:options:)`` reconnects.
public struct LiveEventOptions: Sendable, Hashable {
    /// The wait before reconnecting when the server gave no `retry:`. Default 1 s.
    public var defaultRetry: Duration
    /// The longest wait between attempts, however many failed in a row. Default 30 s.
    public var maxDelay: Duration
    /// The fraction of each wait drawn at random (0 none, 0.5 up to half). Default 0.3.
    public var jitter: Double
    /// The longest silence on an open stream before it is given up and reopened (the server
    /// sends a heartbeat at least every 15 s). Default 45 s.
    public var idleTimeout: Duration

    /// Makes options.
    public init(
        defaultRetry: Duration = .seconds(1), maxDelay: Duration = .seconds(30), jitter: Double = 0.3,
        idleTimeout: Duration = .seconds(45)
    ) {
        self.defaultRetry = defaultRetry
        self.maxDelay = maxDelay
        self.jitter = min(1, max(0, jitter))
        self.idleTimeout = idleTimeout
    }
}

/// The caller's live conversation events, across reconnections; see ``ChatbaseClient/events(since:options:)``.
public struct AsyncLiveEventSequence: AsyncSequence, Sendable {
    /// Each element is one event, handed over once, in order.
    public typealias Element = LiveEvent

    let client: ChatbaseClient
    let since: String?
    let options: LiveEventOptions

    /// Makes the iterator (each iterator is its own subscription).
    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, since: since, options: options)
    }

    /// Reads events, reconnecting as needed.
    public struct Iterator: AsyncIteratorProtocol {
        private let state: LiveEventSubscription

        init(client: ChatbaseClient, since: String?, options: LiveEventOptions) {
            state = LiveEventSubscription(client: client, since: since, options: options)
        }

        /// The next event; nil when cancelled (or after `.notSupportedByServer`).
        ///
        /// - Throws: ``APIError`` on 401, 403 and 404 answers to the route (and the identity store's
        ///   error when the device ID cannot be read).
        public mutating func next() async throws -> LiveEvent? {
            try await state.next()
        }
    }
}

@available(*, unavailable)
extension AsyncLiveEventSequence.Iterator: Sendable {}

/// The mutable side of one subscription.
final class LiveEventSubscription {
    private let client: ChatbaseClient
    private let options: LiveEventOptions
    private var decoder = ConversationEventDecoder(format: .home)
    private var body: HTTPBody.AsyncIterator?
    private var pending: [LiveEvent] = []
    private var lastHanded: String?
    private var failuresInARow = 0
    private var isFinished = false
    private var isFirstConnection = true
    /// The server's `retry` from before a decoder was replaced.
    private var savedRetry: Int?
    /// The server's `Retry-After` on the last failed attempt, if any.
    private var retryAfter: Duration?

    init(client: ChatbaseClient, since: String?, options: LiveEventOptions) {
        self.client = client
        self.options = options
        lastHanded = since
    }

    /// The number of connections made (for tests and the CLI's counters).
    private(set) var connectionCount = 0

    func next() async throws -> LiveEvent? {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if isFinished || Task.isCancelled { return nil }
            if body == nil {
                if !isFirstConnection {
                    await pause()
                    if Task.isCancelled { return nil }
                }
                isFirstConnection = false
                try await connect()
                continue
            }
            do {
                guard let chunk = try await body!.next() else {
                    endConnection(failed: false)
                    continue
                }
                for event in try decoder.feed(chunk) { accept(event) }
            } catch is FramingError {
                // An endless line or event: drop this connection (and the failed decoder), resume.
                let retry = decoder.reconnectionTime
                decoder = ConversationEventDecoder(format: .home)
                savedRetry = retry ?? savedRetry
                body = nil
                failuresInARow += 1
            } catch {
                if Task.isCancelled || error is CancellationError { return nil }
                endConnection(failed: true)
            }
        }
    }

    private func accept(_ event: ConversationEvent) {
        if let id = event.id, let last = lastHanded, let new = Int(id), let old = Int(last), new <= old {
            // Already handed over (a server that resent it): never twice.
            if event.kind != .reset { return }
        }
        failuresInARow = 0
        if let id = event.id { lastHanded = id }
        if let live = LiveEvent(event) {
            // With a local store, the cache follows the live stream too.
            client.record(live: live)
            pending.append(live)
        }
    }

    private func endConnection(failed: Bool) {
        _ = try? decoder.finish()
        body = nil
        if failed || connectionCount > 0 { failuresInARow += 1 }
    }

    private func connect() async throws {
        connectionCount += 1
        var request: HTTPRequest
        request = try client.request("GET", ["events"], accept: "text/event-stream")
        request.idleTimeout = options.idleTimeout
        // The protocol's heartbeat (`: ping`, at least every 15 s) keeps the stream alive; other comments do not.
        request.idleActivity = .serverSentEvents(keepAliveComment: "ping")
        if let lastHanded { request.headers["Last-Event-ID"] = lastHanded }
        retryAfter = nil
        do {
            let response = try await client.perform(request, extensionRoute: true)
            body = response.body.makeAsyncIterator()
        } catch let error as APIError where error.isNotSupportedByServer {
            isFinished = true
            pending.append(LiveEvent(id: nil, kind: .notSupportedByServer))
        } catch let error as APIError {
            if let status = error.statusCode, [401, 403, 404].contains(status) { throw error }
            if let seconds = error.retryAfter { retryAfter = .milliseconds(Int(seconds * 1000)) }
            failuresInARow += 1
        } catch {
            if Task.isCancelled || error is CancellationError { isFinished = true; return }
            failuresInARow += 1
        }
    }

    /// Waits before the next attempt: the server's retry, doubled per failure in a row, capped, jittered.
    private func pause() async {
        let base = (decoder.reconnectionTime ?? savedRetry).map { Duration.milliseconds($0) } ?? options.defaultRetry
        var delay = base
        for _ in 0..<max(0, failuresInARow - 1) where delay < options.maxDelay { delay *= 2 }
        delay = min(delay, options.maxDelay)
        if let retryAfter { delay = max(delay, min(retryAfter, options.maxDelay)) }
        let spread = Double(delay.pollMilliseconds) * options.jitter
        let jittered = Double(delay.pollMilliseconds) - spread + Double.random(in: 0...max(spread, 0))
        try? await Task.sleep(for: .milliseconds(Int(max(0, jittered))))
    }
}

extension Duration {
    /// The duration in whole milliseconds, clamped to `Int32`.
    fileprivate var pollMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        return Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }
}

extension ChatbaseClient {
    /// The caller's live conversation events (`GET /agents/{agentId}/events`), as one sequence
    /// across reconnections.
    ///
    /// Each event is handed over once, in order; a gap the server cannot fill arrives as
    /// ``LiveEvent/Kind/reset`` (refetch what you show). It reconnects by itself (honouring the
    /// server's `retry:`, with backoff and jitter) and resumes after the last event handed over.
    /// It ends when the task is cancelled or the loop stops; it throws only on 401, 403 or 404.
    /// Against a server without the route it yields ``LiveEvent/Kind/notSupportedByServer`` once and ends.
    ///
    /// ```swift
    /// for try await event in client.events() {
    ///     if case .messageCreated(let id, let message) = event.kind { print(id, message.text) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - since: an event ID handed over before (resume after it); nil starts from now.
    ///   - options: how the sequence reconnects (see `LiveEventOptions`).
    public func events(since: String? = nil, options: LiveEventOptions = LiveEventOptions()) -> AsyncLiveEventSequence {
        AsyncLiveEventSequence(client: self, since: since, options: options)
    }
}
