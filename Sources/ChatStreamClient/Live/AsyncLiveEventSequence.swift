// AsyncLiveEventSequence: `GET /agents/{agentId}/events` as one endless sequence across
// connections (PROTOCOLS.md section 6).
//
// The iterator owns one ConversationEventDecoder for the whole life of the sequence (so the last
// event ID and the server's `retry` carry over connections), one open response at a time, and the
// position it resumes from: the ID of the server's `subscribed` event (the caller's position when
// the connection became live, after any replay; /work/notes/wire-decisions.md section 1) or of
// the last event handed over after it. An idle subscriber thus resumes from where its
// subscription began and misses nothing across a server restart. When a connection ends or fails it
// waits and connects again with `Last-Event-ID`. The wait: the server's `retry` for the first
// reconnection after a connection that brought changes (or lived long); after that, at least
// `minimumBackoff`, doubled per attempt, capped, jittered, so `retry: 0` and a server that closes
// at once cost a few requests, not thousands. The server resends nothing the client had and sends
// `reset` when it cannot resume; as a safety net the iterator also drops any event whose numeric
// ID is not above the last one handed over, so an event is never handed over twice. Only answers
// that will not heal end it with an error: 401, 403, 404 (a 404 `NOT_FOUND` is reported once as
// `.notSupportedByServer`). A connection that brings neither an event nor a heartbeat (`: ping`,
// which the decoder counts) for `idleTimeout` is given up and reopened (EventIdleWatch; the
// transport itself only ends a silent one). Cancelling the task or dropping the iterator ends it quietly. Each
// change of LiveConnectionState is published to the sequence's box and, for the UI states that
// follow it, handed over in order with the events (`nextUpdate()`).

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
    /// The longest an open stream may go without an event or a heartbeat (`: ping`, which the
    /// server sends at least every 15 s) before it is given up and reopened; other comments do
    /// not count. Default 45 s.
    public var idleTimeout: Duration
    /// The least wait from the second reconnection in a row on (connections that bring no change):
    /// a server's `retry: 0` means "at once" for the first only. Default 500 ms (never above
    /// ``maxDelay``).
    public var minimumBackoff: Duration

    /// Makes options.
    public init(
        defaultRetry: Duration = .seconds(1), maxDelay: Duration = .seconds(30), jitter: Double = 0.3,
        idleTimeout: Duration = .seconds(45), minimumBackoff: Duration = .milliseconds(500)
    ) {
        self.defaultRetry = defaultRetry
        self.maxDelay = maxDelay
        self.jitter = min(1, max(0, jitter))
        self.idleTimeout = idleTimeout
        self.minimumBackoff = max(.zero, minimumBackoff)
    }
}

/// The caller's live conversation events, across reconnections; see ``ChatbaseClient/events(since:options:)``.
public struct AsyncLiveEventSequence: AsyncSequence, Sendable {
    /// Each element is one event, handed over once, in order.
    public typealias Element = LiveEvent

    let client: ChatbaseClient
    let since: String?
    let options: LiveEventOptions
    let box = LiveStateBox()

    /// Where the subscription stands (the latest iterator's, when the sequence is iterated more
    /// than once); ``LiveConnectionState/stopped`` before iteration begins and after it ends.
    public var state: LiveConnectionState { box.state }

    /// Makes the iterator (each iterator is its own subscription).
    public func makeAsyncIterator() -> Iterator {
        Iterator(state: LiveEventSubscription(client: client, since: since, options: options, box: box))
    }

    /// Reads events, reconnecting as needed.
    public struct Iterator: AsyncIteratorProtocol {
        let state: LiveEventSubscription

        /// The next event; nil when cancelled (or after `.notSupportedByServer`).
        ///
        /// - Throws: ``APIError`` on 401, 403 and 404 answers to the route (and the identity store's
        ///   error when the device ID cannot be read).
        public mutating func next() async throws -> LiveEvent? {
            while let update = try await state.nextUpdate() {
                if case .event(let event) = update { return event }
            }
            return nil
        }
    }
}

@available(*, unavailable)
extension AsyncLiveEventSequence.Iterator: Sendable {}

/// The mutable side of one subscription.
final class LiveEventSubscription {
    /// What ``nextUpdate()`` hands over: an event, or a change of the connection's state.
    enum Update: Sendable {
        case event(LiveEvent)
        case state(LiveConnectionState)
    }

    /// A connection that stayed open this long counts as healthy (the backoff starts over).
    static let healthyConnection: Duration = .seconds(5)

    private let client: ChatbaseClient
    private let options: LiveEventOptions
    private let box: LiveStateBox
    private var decoder = ConversationEventDecoder(format: .home)
    private var body: HTTPBody.AsyncIterator?
    /// The open connection's idle timeout: events and heartbeats (`: ping`) keep it alive.
    private var idle: EventIdleWatch?
    /// The idle timeout's clock (tests pass their own).
    var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    private var pending: [Update] = []
    /// Where the next connection resumes: the last event handed over, else where the subscription began.
    private(set) var position: String?
    /// Reconnections in a row without a change (connection ends and failed attempts).
    private var failuresInARow = 0
    private var isFinished = false
    /// Whether this server has sent `subscribed` (then only `subscribed` makes the state live).
    private var serverSendsSubscribed = false
    private var scheduledPause: Duration?
    private var connectedAt: ContinuousClock.Instant?
    private var current: LiveConnectionState = .stopped
    /// The server's `retry` from before a decoder was replaced.
    private var savedRetry: Int?
    /// The server's `Retry-After` on the last failed attempt, if any.
    private var retryAfter: Duration?

    init(client: ChatbaseClient, since: String?, options: LiveEventOptions, box: LiveStateBox) {
        self.client = client
        self.options = options
        self.box = box
        position = since
        set(.connecting)
    }

    deinit {
        // An iterator dropped mid-subscription no longer follows.
        if current != .unsupported { box.state = .stopped }
    }

    /// The number of connections made (for tests and the CLI's counters).
    private(set) var connectionCount = 0

    func nextUpdate() async throws -> Update? {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if isFinished || Task.isCancelled {
                if current != .unsupported && current != .stopped {
                    set(.stopped)
                    continue
                }
                return nil
            }
            if body == nil {
                if let pause = scheduledPause {
                    scheduledPause = nil
                    try? await Task.sleep(for: pause)
                    if Task.isCancelled { continue }
                    set(.connecting)
                } else if connectionCount > 0 {
                    let pause = nextPause()
                    scheduledPause = pause
                    set(.reconnecting(after: pause))
                    continue
                }
                do {
                    try await connect()
                } catch {
                    set(.stopped)
                    throw error
                }
                continue
            }
            do {
                try idle?.beforeRead()
                guard let chunk = try await body!.next() else {
                    endConnection(failed: false)
                    continue
                }
                let heartbeats = decoder.heartbeatCount
                let events = try decoder.feed(chunk)
                if !events.isEmpty || decoder.heartbeatCount != heartbeats { idle?.noteActivity() }
                for event in events { accept(event) }
            } catch is FramingError {
                // An endless line or event: drop this connection (and the failed decoder), resume.
                let retry = decoder.reconnectionTime
                decoder = ConversationEventDecoder(format: .home)
                savedRetry = retry ?? savedRetry
                body = nil
                failuresInARow += 1
            } catch {
                if Task.isCancelled || error is CancellationError {
                    isFinished = true
                    continue
                }
                endConnection(failed: true)
            }
        }
    }

    private func set(_ state: LiveConnectionState) {
        guard state != current else { return }
        current = state
        box.state = state
        pending.append(.state(state))
    }

    private func accept(_ event: ConversationEvent) {
        if event.kind == .subscribed {
            // The caller's position now: every event up to it was sent before it (the replay of a
            // resumed connection comes first), so it is where the next connection resumes, even
            // when it equals the last ID. Never handed over as a change.
            if let id = event.id { position = id }
            serverSendsSubscribed = true
            set(.live)
            return
        }
        if let id = event.id, let last = position, let new = Int(id), let old = Int(last), new <= old {
            // Already handed over (a server that resent it): never twice.
            if event.kind != .reset { return }
        }
        // A server without `subscribed` is taken to be live at its first event; one with it is
        // live only from `subscribed` on (a replay before it does not make it live).
        if !serverSendsSubscribed { set(.live) }
        failuresInARow = 0
        if let id = event.id { position = id }
        if let live = LiveEvent(event) {
            // With a local store, the cache follows the live stream too.
            client.record(live: live)
            pending.append(.event(live))
        }
    }

    private func endConnection(failed: Bool) {
        _ = try? decoder.finish()
        body = nil
        if let connectedAt, ContinuousClock.now - connectedAt >= Self.healthyConnection, current == .live {
            failuresInARow = 0
        }
        connectedAt = nil
        failuresInARow += 1
    }

    private func connect() async throws {
        connectionCount += 1
        var request: HTTPRequest
        request = try client.request("GET", ["events"], accept: "text/event-stream")
        request.idleTimeout = options.idleTimeout
        // Endless by design: the client's total timeout is for answers that end.
        request.totalTimeout = nil
        if let position { request.headers["Last-Event-ID"] = position }
        retryAfter = nil
        do {
            let response = try await client.perform(request, extensionRoute: true)
            body = response.body.makeAsyncIterator()
            // The protocol's heartbeat (`: ping`, at least every 15 s) keeps the stream alive; other comments do not.
            idle = EventIdleWatch(
                idleTimeout: options.idleTimeout, waitingFor: "an event or a heartbeat (`: ping`)", now: now)
            connectedAt = .now
        } catch let error as APIError where error.isNotSupportedByServer {
            isFinished = true
            set(.unsupported)
            pending.append(.event(LiveEvent(id: nil, kind: .notSupportedByServer)))
        } catch let error as APIError {
            if let status = error.statusCode, [401, 403, 404].contains(status) { throw error }
            if let seconds = error.retryAfter { retryAfter = NetworkDurations.duration(seconds: seconds) }
            failuresInARow += 1
        } catch {
            if Task.isCancelled || error is CancellationError {
                isFinished = true
                return
            }
            failuresInARow += 1
        }
    }

    /// The wait before the next attempt: the server's retry after a connection that brought
    /// changes; from the second attempt in a row on, at least `minimumBackoff`, doubled per
    /// attempt; capped, jittered; never less than a `Retry-After`.
    func nextPause() -> Duration {
        let retry = (decoder.reconnectionTime ?? savedRetry).map(NetworkDurations.duration(milliseconds:))
        var delay = retry ?? options.defaultRetry
        if failuresInARow >= 2 {
            delay = max(delay, min(options.minimumBackoff, options.maxDelay))
            for _ in 0..<(failuresInARow - 2) where delay < options.maxDelay { delay *= 2 }
        }
        delay = min(delay, options.maxDelay)
        if let retryAfter { delay = max(delay, min(retryAfter, options.maxDelay)) }
        let spread = Double(delay.pollMilliseconds) * options.jitter
        let jittered = Double(delay.pollMilliseconds) - spread + Double.random(in: 0...max(spread, 0))
        return .milliseconds(Int(max(0, jittered)))
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
    /// With `since: nil` the subscription begins where the server says it does (its `subscribed`
    /// event, before any change) and each reconnection resumes from the last position the server
    /// gave or the last event handed over, so nothing is missed across a dropped connection or a
    /// server restart.
    /// ``AsyncLiveEventSequence/state`` says whether it is live yet. A server that sends no
    /// `subscribed` (an older one) is taken to be live at its first event; until then a
    /// reconnection begins again from the server's "now".
    ///
    /// - Parameters:
    ///   - since: an event ID handed over before (resume after it); nil starts where the
    ///     subscription is established.
    ///   - options: how the sequence reconnects (see `LiveEventOptions`).
    public func events(since: String? = nil, options: LiveEventOptions = LiveEventOptions()) -> AsyncLiveEventSequence {
        AsyncLiveEventSequence(client: self, since: since, options: options)
    }
}
