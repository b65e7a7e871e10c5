// The outbox: with a store, a chat message is written to the outbox before its first attempt and
// removed the moment the server answers 2xx (it has the message). A send that cannot reach the
// server (no connection, timeout, 429, 5xx; after the retry policy gave up) leaves it pending; a
// refusal (another 4xx) marks it failed, kept until discarded. Pending messages go again, with the
// same clientMessageId, on `flushOutbox()` and after the next request that reaches the server, so
// a message whose answer was lost (the app died) is delivered once: the server stores it once
// and answers the reply it made.
//
// Flushes run one at a time (a second waits for the first); a message being sent is never sent
// by a flush at the same time.

import Foundation
import Synchronization

extension ChatbaseClient {
    /// The messages waiting in the outbox (pending, then failed ones are kept too), oldest first;
    /// empty without a store.
    ///
    /// ```swift
    /// let waiting = try client.outbox().filter { $0.state == .pending }
    /// ```
    public func outbox() throws -> [OutboxMessage] {
        guard let store, let scope = storeScope else { return [] }
        return try store.outbox(scope: scope)
    }

    /// Removes a message from the outbox (a failed one the user gave up on, say).
    public func discardOutboxMessage(clientMessageId: String) throws {
        guard let store, let scope = storeScope else { return }
        try store.dequeue(clientMessageId: clientMessageId, scope: scope)
    }

    /// Whether pending messages are sent by themselves after the next request that reaches the
    /// server (default true). When false, only ``flushOutbox()`` sends them.
    public var sendsOutboxAutomatically: Bool {
        get { withState { $0.sendsOutboxAutomatically } }
        set { withState { $0.sendsOutboxAutomatically = newValue } }
    }

    /// Sends every pending message of the outbox, oldest first, each with its `clientMessageId`
    /// (its tool rounds run as for ``send(_:conversationId:clientMessageId:configure:)``). Stops
    /// at the first that cannot reach the server; a refused one is marked failed and the next
    /// goes. Returns what was delivered and what remains.
    ///
    /// ```swift
    /// let flush = try await client.flushOutbox()
    /// for delivery in flush.delivered { print(delivery.response.message.text) }
    /// ```
    /// - Throws: ``ChatError/decodingFailed(_:)`` (`local history store: ...`) when the outbox cannot be read; the failures of
    ///   the sends themselves are in ``OutboxMessage/lastError``.
    @discardableResult
    public func flushOutbox() async throws -> OutboxFlush {
        guard let store, storeScope != nil else { return OutboxFlush(delivered: [], remaining: []) }
        while !withState({ state in
            defer { state.flushingOutbox = true }
            return !state.flushingOutbox
        }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        defer { withState { $0.flushingOutbox = false } }
        var delivered: [OutboxFlush.Delivery] = []
        guard let scope = storeScope else { return OutboxFlush(delivered: [], remaining: []) }
        let inFlight = withState { $0.inFlightMessages }
        for message in try store.outbox(scope: scope)
        where message.state == .pending && !inFlight.contains(message.clientMessageId) {
            try Task.checkCancellation()
            let round = Round.chat(
                message: message.text, conversationId: message.conversationId,
                clientMessageId: message.clientMessageId)
            do {
                let response = try await runLoop(from: round, streaming: true) { _ in }
                delivered.append(.init(message: message, response: response))
            } catch is CancellationError {
                throw CancellationError()
            } catch  where Self.isPassingFailure(error) {
                break
            } catch {
                continue
            }
        }
        return OutboxFlush(delivered: delivered, remaining: try store.outbox(scope: scope))
    }

    /// Runs the sending of `round` under the outbox: queued first (a chat with a message and a
    /// `clientMessageId`, when there is a store), removed once `body` reports the server took it
    /// (its `accepted` callback), else left pending or marked failed by the error.
    func throughOutbox<R>(
        _ round: Round, _ body: (_ accepted: @escaping @Sendable () -> Void) async throws -> R
    ) async throws -> R {
        guard let store, let scope = storeScope, case .chat(let text?, let conversationId, let id?) = round else {
            return try await body({})
        }
        let queued = OutboxMessage(
            clientMessageId: id, conversationId: conversationId, text: text, createdAt: Date(), state: .pending,
            attempts: 0, lastError: nil)
        // A message that cannot be written still goes; only its safety net is missing.
        try? store.enqueue(queued, scope: scope)
        withState { _ = $0.inFlightMessages.insert(id) }
        defer { withState { _ = $0.inFlightMessages.remove(id) } }
        let accepted = AcceptedFlag()
        do {
            let result = try await body { [store] in
                if accepted.set() { try? store.dequeue(clientMessageId: id, scope: scope) }
            }
            return result
        } catch {
            if !accepted.isSet {
                if error is CancellationError {
                    try? store.dequeue(clientMessageId: id, scope: scope)
                } else {
                    let passing = Self.isPassingFailure(error)
                    try? store.noteAttempt(clientMessageId: id, failed: !passing, error: "\(error)", scope: scope)
                }
            }
            throw error
        }
    }

    /// The flush ``reachedServer()`` started last (tests await it).
    var automaticFlush: Task<Void, Never>? { withState { $0.automaticFlush } }

    /// After a request reached the server: sends the pending outbox in the background (when
    /// ``sendsOutboxAutomatically`` and no flush runs).
    func reachedServer() {
        guard let store, let scope = storeScope else { return }
        let start = withState { $0.sendsOutboxAutomatically && !$0.flushingOutbox }
        guard start, store.hasPending(scope: scope) else { return }
        let inFlight = withState { $0.inFlightMessages }
        guard
            (try? store.outbox(scope: scope))?.contains(where: {
                $0.state == .pending && !inFlight.contains($0.clientMessageId)
            }) == true
        else { return }
        let task = Task { _ = try? await self.flushOutbox() }
        withState { $0.automaticFlush = task }
    }
}

/// Set once, from any thread.
final class AcceptedFlag: Sendable {
    private let value = Mutex(false)
    /// Sets the flag; true the first time.
    func set() -> Bool {
        value.withLock { value in
            defer { value = true }
            return !value
        }
    }
    var isSet: Bool { value.withLock { $0 } }
}
