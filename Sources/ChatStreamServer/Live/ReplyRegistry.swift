// ReplyRegistry: the streamed replies whose events the server holds, by message ID, and the bounds
// on them (PROTOCOLS.md section 8; limits in ChatAPIServer.Replies).
//
// A reply is held while it generates and for `retention` after it ended. Memory is bounded in
// bytes: the events of ended replies count against `retainedBytes`, and past it the oldest ended
// replies are dropped first (their resume answers 410 and the client reads history); generating
// replies are never dropped, and at most `maxGenerating` run at once, their planned event bytes
// (reserved whole at registration, released at the end) at most `generatingBytes` in all. Expiry is
// checked lazily, on each registration and lookup, so no timer runs.
//
// Why the bookkeeping: a registration happens inside the chat's store write, and with the default
// retention (10 minutes) a busy server holds tens of thousands of ended replies. Walking all of
// them on every registration made each chat's write cost milliseconds under the write lock (64
// streamed chats at once: a fifth of the server's CPU, and every other write waited). So the
// registry keeps the replies it has not yet seen end apart (at most `maxGenerating` and those
// ending) with their reserved bytes summed, and the ended ones in a queue in the order they ended
// with their bytes summed: a sweep looks at the unended ones and pops expired or over-budget ones
// off the queue's front. Example: 20,000 ended replies held and 64 generating, a registration
// reads 64 phases and pops what expired, instead of 20,064 runs.

import Synchronization

/// The replies whose events are held.
final class ReplyRegistry: Sendable {
    /// An ended reply in the queue of ended replies.
    private struct Ended {
        /// The reply; nil once dropped (let go at once, not with the queue's front later).
        var run: ReplyRun?
        let messageId: String
        let endedAt: ContinuousClock.Instant
        let bytes: Int
    }

    private struct State {
        var runs: [String: ReplyRun] = [:]
        /// The replies not yet seen ended (generating or ending), by message ID.
        var unended: [String: ReplyRun] = [:]
        /// The planned bytes of ``unended``, summed.
        var reservedBytes = 0
        /// Ended replies in the order they ended, oldest first from ``endedStart``.
        var ended: [Ended] = []
        var endedStart = 0
        /// The held bytes of the ended replies in ``ended`` from ``endedStart``, summed.
        var endedBytes = 0
        var isClosed = false
    }

    private let state = Mutex(State())
    let limits: ChatAPIServer.Replies

    init(limits: ChatAPIServer.Replies) {
        self.limits = limits
    }

    /// Holds `run`; throws 503 `SERVER_BUSY` when as many replies as allowed are generating, when
    /// its planned bytes would pass what is left of the generating byte budget, or when the server
    /// is stopping.
    ///
    /// Returns the ended replies this registration's sweep dropped, for the caller to let go:
    /// freeing a reply's held events is work, and a registration runs inside a chat's store write,
    /// on the store's committer that every write waits for (a chat's write hands them to its own
    /// thread, StoreChanges.keep).
    @discardableResult
    func register(_ run: ReplyRun) throws(APIError) -> [ReplyRun] {
        try state.withLock { state throws(APIError) -> [ReplyRun] in
            let dropped = try checkRoom(for: run.plannedBytes, &state)
            if let previous = state.unended.updateValue(run, forKey: run.messageId) {
                state.reservedBytes -= previous.plannedBytes
            }
            state.reservedBytes += run.plannedBytes
            state.runs[run.messageId] = run
            return dropped
        }
    }

    /// Throws what ``register(_:)`` would for a reply of `plannedBytes` now, registering nothing
    /// (asked before a request to a model's server, whose answer a refusal would waste).
    func checkRoom(for plannedBytes: Int) throws(APIError) {
        // The replies the sweep dropped are let go here, outside the lock.
        _ = try state.withLock { state throws(APIError) in try checkRoom(for: plannedBytes, &state) }
    }

    /// Sweeps, then throws when a reply of `plannedBytes` may not start now; returns what the sweep dropped.
    private func checkRoom(for plannedBytes: Int, _ state: inout State) throws(APIError) -> [ReplyRun] {
        guard !state.isClosed else { throw APIError.busy("the server is stopping") }
        let dropped = sweep(&state)
        let running = state.unended.count
        guard running < limits.maxGenerating else {
            throw APIError.busy("\(running) replies are being generated; try again shortly")
        }
        let reserved = state.reservedBytes
        guard plannedBytes <= limits.generatingBytes - reserved else {
            throw APIError.busy(
                "this reply's \(plannedBytes) bytes pass the \(limits.generatingBytes - reserved) bytes left "
                    + "of the generating-reply budget (\(limits.generatingBytes)); try again shortly")
        }
        return dropped
    }

    /// Forgets `run` (registered by a write that then failed).
    func forget(_ run: ReplyRun) {
        state.withLock { state in
            if state.runs[run.messageId] === run { state.runs[run.messageId] = nil }
            if state.unended[run.messageId] === run {
                state.unended[run.messageId] = nil
                state.reservedBytes -= run.plannedBytes
            }
        }
    }

    /// The held reply with this message ID, nil when none is (never was, or no longer).
    func run(_ messageId: String) -> ReplyRun? {
        let (run, _) = state.withLock { state in
            let dropped = sweep(&state)
            return (state.runs[messageId], dropped)
        }
        return run  // and what the sweep dropped is let go here, outside the lock
    }

    /// Every reply still generating.
    var generating: [ReplyRun] {
        state.withLock { state in
            state.unended.values.filter { if case .ended = $0.phase { false } else { true } }
        }
    }

    /// The bytes of the events held in all (generating and ended replies).
    var heldBytes: Int { state.withLock { $0.runs.values.reduce(0) { $0 + $1.heldBytes } } }

    /// Refuses new replies (the server is stopping); ``reopen()`` undoes it.
    func close() { state.withLock { $0.isClosed = true } }

    /// Accepts replies again (the server started again).
    func reopen() { state.withLock { $0.isClosed = false } }

    /// Moves the replies that ended since the last sweep to the ended queue (releasing their
    /// reservations), then drops ended replies past their retention, then the oldest ended ones
    /// while those held exceed the byte budget. Returns the dropped replies (the caller lets them
    /// go outside the lock).
    private func sweep(_ state: inout State) -> [ReplyRun] {
        var dropped: [ReplyRun] = []
        var newlyEnded: [Ended] = []
        for run in state.unended.values {
            guard let endedAt = run.endedAt else { continue }
            newlyEnded.append(Ended(run: run, messageId: run.messageId, endedAt: endedAt, bytes: run.heldBytes))
        }
        if !newlyEnded.isEmpty {
            // Each sweep sees every end before it, so sorting each sweep's ends keeps the queue in end order.
            newlyEnded.sort { $0.endedAt < $1.endedAt }
            for ended in newlyEnded {
                state.unended[ended.messageId] = nil
                state.reservedBytes -= ended.run?.plannedBytes ?? 0
                state.endedBytes += ended.bytes
            }
            state.ended.append(contentsOf: newlyEnded)
        }
        let now = ContinuousClock.now
        while state.endedStart < state.ended.count {
            let oldest = state.ended[state.endedStart]
            guard now - oldest.endedAt > limits.retention || state.endedBytes > limits.retainedBytes else { break }
            state.endedBytes -= oldest.bytes
            if let run = oldest.run {
                if state.runs[oldest.messageId] === run { state.runs[oldest.messageId] = nil }
                dropped.append(run)
            }
            // Out of the queue now, one reply a pop: the queue's front held the dropped replies
            // until it was cut below, and then freed half the queue at once (at the default 32 MiB
            // budget about 14,000 replies, 100-160 ms under the lock a chat's store write takes it
            // in, every few seconds under load: every write waited).
            state.ended[state.endedStart].run = nil
            state.endedStart += 1
        }
        // The dropped front (now empty entries) is let go once it is at least half the queue.
        if state.endedStart > 64, state.endedStart * 2 >= state.ended.count {
            state.ended.removeFirst(state.endedStart)
            state.endedStart = 0
        }
        return dropped
    }
}

extension APIError {
    /// 503 `SERVER_BUSY` with `Retry-After: 1`.
    static func busy(_ message: String) -> APIError {
        APIError(status: 503, code: "SERVER_BUSY", message: message, headers: [("Retry-After", "1")])
    }
}
