// EventIdleWatch: the idle timeout of a decoded event stream (a chat reply, the live events).
//
// The transport ends a connection that goes silent (``HTTPRequest/idleTimeout``: no byte at all).
// A stream can also talk without saying anything: comments, or an event that never completes.
// That is decided here, above the decoder, from what it decoded, so the bytes are scanned once:
// the consumer notes each event (and, on the live stream, each heartbeat the decoder reports);
// before each read the watch restarts its clock if something was noted since the last read, and
// otherwise ends the stream with ``TransportError/Kind/timedOut`` once the clock has run the idle
// timeout. The clock restarts when the consumer asks for more, not when the event arrived, so
// the time an app spends handling an event never counts as the server's silence.

/// Ends a decoded stream that brought no event (or heartbeat) for an idle timeout.
final class EventIdleWatch {
    /// The longest a stream may go on without an event.
    let idleTimeout: Duration
    /// What the stream is waiting for, for the error's message.
    private let waitingFor: String
    private let now: () -> ContinuousClock.Instant
    private var quietSince: ContinuousClock.Instant
    private var active = false

    /// A watch whose clock starts now; `now` is the clock (tests pass their own).
    init(
        idleTimeout: Duration, waitingFor: String = "an event (comments do not count)",
        now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.idleTimeout = idleTimeout
        self.waitingFor = waitingFor
        self.now = now
        quietSince = now()
    }

    /// The consumer was handed an event (or a heartbeat): the clock restarts at the next read.
    func noteActivity() { active = true }

    /// Called before each read of the stream's bytes.
    ///
    /// - Throws: ``TransportError/Kind/timedOut`` when nothing was noted for ``idleTimeout``.
    func beforeRead() throws {
        let time = now()
        if active {
            active = false
            quietSince = time
            return
        }
        guard time - quietSince >= idleTimeout else { return }
        throw TransportError(.timedOut, "nothing for \(idleTimeout) while waiting for \(waitingFor)")
    }
}

/// A response body read under an ``EventIdleWatch``: each read first asks the watch.
struct IdleWatchedBody: AsyncSequence {
    typealias Element = [UInt8]

    let body: HTTPBody
    let watch: EventIdleWatch

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: HTTPBody
        var base: HTTPBody.AsyncIterator?
        let watch: EventIdleWatch

        mutating func next() async throws -> [UInt8]? {
            do {
                try watch.beforeRead()
            } catch {
                // The request is given up: the transport stops receiving its bytes.
                base = nil
                body.cancel()
                throw error
            }
            return try await base?.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(body: body, base: body.makeAsyncIterator(), watch: watch)
    }
}
