// ReplyRegistry: the streamed replies whose events the server holds, by message ID, and the bounds
// on them (PROTOCOLS.md section 8; limits in ChatAPIServer.Replies).
//
// A reply is held while it generates and for `retention` after it ended. Memory is bounded in
// bytes: the events of ended replies count against `retainedBytes`, and past it the oldest ended
// replies are dropped first (their resume answers 410 and the client reads history); generating
// replies are never dropped, and at most `maxGenerating` run at once, their planned event bytes
// (reserved whole at registration, released at the end) at most `generatingBytes` in all. Expiry is checked lazily, on each registration and lookup, so no timer runs.

import Synchronization

/// The replies whose events are held.
final class ReplyRegistry: Sendable {
    private struct State {
        var runs: [String: ReplyRun] = [:]
        /// Message IDs in registration order (ended ones are dropped oldest first).
        var order: [String] = []
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
    func register(_ run: ReplyRun) throws(APIError) {
        try state.withLock { state throws(APIError) in
            try checkRoom(for: run.plannedBytes, &state)
            state.runs[run.messageId] = run
            state.order.append(run.messageId)
        }
    }

    /// Throws what ``register(_:)`` would for a reply of `plannedBytes` now, registering nothing
    /// (asked before a request to a model's server, whose answer a refusal would waste).
    func checkRoom(for plannedBytes: Int) throws(APIError) {
        try state.withLock { state throws(APIError) in try checkRoom(for: plannedBytes, &state) }
    }

    private func checkRoom(for plannedBytes: Int, _ state: inout State) throws(APIError) {
        guard !state.isClosed else { throw APIError.busy("the server is stopping") }
        sweep(&state)
        let running = state.runs.values.filter { if case .ended = $0.phase { false } else { true } }
        guard running.count < limits.maxGenerating else {
            throw APIError.busy("\(running.count) replies are being generated; try again shortly")
        }
        let reserved = running.reduce(0) { $0 + $1.plannedBytes }
        guard plannedBytes <= limits.generatingBytes - reserved else {
            throw APIError.busy(
                "this reply's \(plannedBytes) bytes pass the \(limits.generatingBytes - reserved) bytes left "
                    + "of the generating-reply budget (\(limits.generatingBytes)); try again shortly")
        }
    }

    /// Forgets `run` (registered by a write that then failed).
    func forget(_ run: ReplyRun) {
        state.withLock { state in
            if state.runs[run.messageId] === run { state.runs[run.messageId] = nil }
        }
    }

    /// The held reply with this message ID, nil when none is (never was, or no longer).
    func run(_ messageId: String) -> ReplyRun? {
        state.withLock { state in
            sweep(&state)
            return state.runs[messageId]
        }
    }

    /// Every reply still generating.
    var generating: [ReplyRun] {
        state.withLock { state in
            state.runs.values.filter { if case .ended = $0.phase { false } else { true } }
        }
    }

    /// The bytes of the events held in all (generating and ended replies).
    var heldBytes: Int { state.withLock { $0.runs.values.reduce(0) { $0 + $1.heldBytes } } }

    /// Refuses new replies (the server is stopping); ``reopen()`` undoes it.
    func close() { state.withLock { $0.isClosed = true } }

    /// Accepts replies again (the server started again).
    func reopen() { state.withLock { $0.isClosed = false } }

    /// Drops ended replies past their retention, then the oldest ended ones while those held
    /// exceed the byte budget.
    private func sweep(_ state: inout State) {
        let now = ContinuousClock.now
        var endedBytes = 0
        var kept: [String] = []
        for id in state.order {
            guard let run = state.runs[id] else { continue }
            if let endedAt = run.endedAt {
                if now - endedAt > limits.retention {
                    state.runs[id] = nil
                    continue
                }
                endedBytes += run.heldBytes
            }
            kept.append(id)
        }
        var index = 0
        while endedBytes > limits.retainedBytes, index < kept.count {
            if let run = state.runs[kept[index]], run.endedAt != nil {
                endedBytes -= run.heldBytes
                state.runs[kept[index]] = nil
                kept.remove(at: index)
            } else {
                index += 1
            }
        }
        state.order = kept
    }
}

extension APIError {
    /// 503 `SERVER_BUSY` with `Retry-After: 1`.
    static func busy(_ message: String) -> APIError {
        APIError(status: 503, code: "SERVER_BUSY", message: message, headers: [("Retry-After", "1")])
    }
}
