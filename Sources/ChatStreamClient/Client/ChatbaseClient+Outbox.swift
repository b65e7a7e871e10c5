// The outbox (an explicit option, OutboxPolicy): with a store and a policy other than `.off`, a
// chat message is written to the outbox before its first attempt and removed the moment the
// server answers 2xx (it has the message). A send that cannot reach the server (no connection,
// timeout, 429, 5xx; after the retry policy gave up) leaves it pending; a refusal (another 4xx)
// marks it failed, kept until discarded and never sent again. Pending messages go again, with the
// same clientMessageId, on `flushOutbox()` and (`.automatic`) after the next request that reaches
// the server, so a message whose answer was lost (the app died) is delivered once: the server
// stores it once and answers the reply it made.
//
// A message is queued with the conversation it was written in; one written for a new
// conversation gets a client-made UUID then, and its delivery creates that conversation when the
// server does not know it yet (section 6), so it never lands in another conversation.

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

    /// What happens to a message the server could not be reached for (the initialiser's
    /// `outbox:`; ``OutboxPolicy/off`` for the documented initialiser). Needs a ``store``.
    public var outboxPolicy: OutboxPolicy {
        get { withState { $0.outboxPolicy } }
        set { withState { $0.outboxPolicy = newValue } }
    }

    /// Whether pending messages are sent by themselves after the next request that reaches the
    /// server: ``outboxPolicy`` is ``OutboxPolicy/automatic``. Setting it switches between
    /// ``OutboxPolicy/automatic`` and ``OutboxPolicy/manual``; it changes nothing while the
    /// policy is ``OutboxPolicy/off``.
    public var sendsOutboxAutomatically: Bool {
        get { outboxPolicy == .automatic }
        set {
            withState { state in
                guard state.outboxPolicy != .off else { return }
                state.outboxPolicy = newValue ? .automatic : .manual
            }
        }
    }

    /// Sends every pending message of the outbox, oldest first, each with its `clientMessageId`
    /// into the conversation it was written in (its tool rounds run as for
    /// ``send(_:conversationId:clientMessageId:configure:)``). Stops at the first that cannot
    /// reach the server; a refused one is marked failed (once: it is never sent again) and the
    /// next goes. Returns what was delivered and what remains. Flushes run one after another.
    ///
    /// ```swift
    /// let flush = try await client.flushOutbox()
    /// for delivery in flush.delivered { print(delivery.response.message.text) }
    /// ```
    /// - Throws: ``ChatError/decodingFailed(_:)`` (`local history store: ...`) when the outbox cannot be read; the failures of
    ///   the sends themselves are in ``OutboxMessage/lastError``.
    @discardableResult
    public func flushOutbox() async throws -> OutboxFlush {
        guard store != nil, storeScope != nil else { return OutboxFlush(delivered: [], remaining: []) }
        return try await outboxQueue.serially { try await self.deliverPending() }
    }

    /// One flush (run by ``Outbox/serially(_:)``).
    private func deliverPending() async throws -> OutboxFlush {
        guard let store, let scope = storeScope else { return OutboxFlush(delivered: [], remaining: []) }
        var delivered: [OutboxFlush.Delivery] = []
        for message in try store.outbox(scope: scope) where message.state == .pending {
            try Task.checkCancellation()
            guard await !outboxQueue.isInFlight(message.clientMessageId) else { continue }
            let round = Round.chat(
                message: message.text, conversationId: message.conversationId,
                clientMessageId: message.clientMessageId)
            do {
                let response = try await runLoop(from: round, streaming: true, outbox: .manual) { _ in }
                let delivery = OutboxFlush.Delivery(message: message, response: response)
                delivered.append(delivery)
                outboxQueue.tell(.delivered(delivery))
            } catch is CancellationError {
                throw CancellationError()
            } catch  where RequestPerformer.isPassingFailure(error) {
                break
            } catch {
                if (try? store.outbox(scope: scope))?.contains(where: {
                    $0.clientMessageId == message.clientMessageId && $0.state == .failed
                }) == true {
                    outboxQueue.tell(.refused(message, error))
                }
                continue
            }
        }
        return OutboxFlush(delivered: delivered, remaining: try store.outbox(scope: scope))
    }

    /// Runs the sending of `round` under the outbox (`policy`, when there is a store and the
    /// round is a chat with a message and a `clientMessageId`): queued first, removed once `body`
    /// reports the server took it (its `accepted` callback), else left pending or marked failed
    /// by the error. A queued message for a new conversation gets a client-made conversation ID
    /// here; `body` gets the round as queued.
    func throughOutbox<R>(
        _ round: Round, policy: OutboxPolicy,
        _ body: (_ round: Round, _ accepted: @escaping @Sendable () -> Void) async throws -> R
    ) async throws -> R {
        guard policy != .off, let store, let scope = storeScope,
            case .chat(let text?, let conversationId, let id?) = round
        else {
            return try await body(round, {})
        }
        let minted = conversationId == nil ? Self.newClientMessageId() : nil
        let queuedRound = Round.chat(
            message: text, conversationId: conversationId ?? minted, clientMessageId: id)
        // Marked in flight before it is written, so no flush can take it meanwhile.
        let mine = await outboxQueue.begin(id)
        let queued = OutboxMessage(
            clientMessageId: id, conversationId: queuedRound.conversationId, text: text, createdAt: Date(),
            state: .pending, attempts: 0, lastError: nil)
        // A message that cannot be written still goes; only its safety net is missing. A new
        // conversation is created while its first message is written (the request runs on the
        // transport's thread meanwhile): the message waits for the longer of the two rather than
        // for both in turn (half a millisecond of a `chatstream chat` on loopback). How it went is
        // taken by the first send (intoKnownConversation), as if it had been created there; the
        // conversation is filed in the store once the server took the message (NewConversation).
        let newConversation: NewConversation?
        if let minted {
            async let creation = Self.outcome { try await self.createdConversation(id: minted) }
            try? store.enqueue(queued, scope: scope)
            newConversation = NewConversation(id: minted, creation: await creation)
        } else {
            try? store.enqueue(queued, scope: scope)
            newConversation = nil
        }
        let accepted = AcceptedFlag()
        let result: Result<R, any Error>
        do {
            result = .success(
                try await Outbox.$createsMissingConversation.withValue(true) {
                    try await Outbox.$newConversation.withValue(newConversation) {
                        try await body(queuedRound) { [store] in
                            if accepted.set() { try? store.dequeue(clientMessageId: id, scope: scope) }
                            // Before the reply is read, so the reply is filed after its conversation.
                            newConversation?.record(in: self)
                        }
                    }
                })
        } catch {
            if !accepted.isSet {
                if error is CancellationError {
                    try? store.dequeue(clientMessageId: id, scope: scope)
                } else {
                    let passing = RequestPerformer.isPassingFailure(error)
                    try? store.noteAttempt(clientMessageId: id, failed: !passing, error: "\(error)", scope: scope)
                }
            }
            result = .failure(error)
        }
        // Created but never accepted (or sent without it): filed all the same.
        newConversation?.record(in: self)
        if mine { await outboxQueue.end(id) }
        return try result.get()
    }

    /// Sends a queued chat round (only under ``Outbox/createsMissingConversation``) into the conversation it was written in: when the server does
    /// not know the conversation yet (404 `RESOURCE_CONVERSATION_NOT_FOUND`), creates it with that
    /// ID (idempotent) and sends again (a conversation made for the message just now,
    /// ``Outbox/newConversation``, is created before the first send); a server without client-made conversations gets the
    /// message without a conversation ID (it starts one).
    func intoKnownConversation<R>(_ round: Round, _ send: (Round) async throws -> R) async throws -> R {
        guard Outbox.createsMissingConversation else { return try await send(round) }
        // A conversation the client made for this message just now: created first (no 404 round trip).
        if case .chat(let text, let conversationId?, let clientMessageId) = round,
            let new = Outbox.newConversation, new.claim(conversationId)
        {
            do {
                try new.creation.get()
            } catch let refusal as APIError where refusal.isNotSupportedByServer {
                return try await send(.chat(message: text, conversationId: nil, clientMessageId: clientMessageId))
            }
        }
        do {
            return try await send(round)
        } catch let error as APIError
            where error.statusCode == 404 && error.apiCode == "RESOURCE_CONVERSATION_NOT_FOUND"
        {
            guard case .chat(let text, let conversationId?, let clientMessageId) = round else { throw error }
            do {
                try await createConversation(id: conversationId)
            } catch let refusal as APIError where refusal.isNotSupportedByServer {
                return try await send(.chat(message: text, conversationId: nil, clientMessageId: clientMessageId))
            }
            return try await send(round)
        }
    }

    /// How `body` went, as a value (to be thrown later, where it would have been thrown).
    static func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// Waits for every outbox flush started so far (tests).
    func outboxSettled() async { await outboxQueue.settled() }

    /// After a request reached the server: sends the pending outbox in the background (when
    /// ``outboxPolicy`` is ``OutboxPolicy/automatic``; not from inside a flush).
    func reachedServer() {
        guard !Outbox.insideFlush, outboxPolicy == .automatic, let store, let scope = storeScope,
            store.hasPending(scope: scope)
        else { return }
        let queue = outboxQueue
        let scheduling = Task { await queue.scheduleAutomatic { _ = try? await self.deliverPending() } }
        queue.lastScheduling.withLock { $0 = scheduling }
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
