// ReplyRunner+Stream: one streamed round, and its resumption (PROTOCOLS.md section 8): the round's events are decoded
// and applied to one MessageAssembler across every connection the reply needs, so the app gets
// each event once and the final message is whole.
//
// When the stream breaks (the connection is lost or reset, no event came for the idle timeout:
// a stalled stream or one of comments alone (EventIdleWatch), the body ends before `[DONE]`), the reply is picked up again, under the retry policy's
// backoff and budget (the count of attempts starts again whenever a connection brought new events):
// - with the reply's conversation and message IDs (the `start` event, or the `X-Message-Id` header):
//   `GET .../messages/{id}/stream` from the reply's first event; the events already handed over are
//   skipped by count (a reply's events are replayed in the same order, and the decoder turns the
//   same events into the same StreamEvents), so no text is handed over twice;
// - a chat round into a known conversation without them: the same POST again, with its
//   `clientMessageId` (section 6 replays the reply made for it, or joins the one being made),
//   skipped the same way (a message that starts a conversation is not: the server would start
//   another one);
// - the route answers 404 (a server without section 8) or 410 (the events are gone): the stored
//   message is read from history (waiting, within the budget, while it is not stored yet) and only
//   what the app has not seen is handed over.
// A reply that ends with an `error` chunk (a model error, a reply cut by a server restart) is not
// resumed: it fails with everything received kept.

import ChatStream
import Foundation

extension ReplyRunner {
    /// The reply of one streamed round as it is read, over one or more connections.
    struct ReplyReading {
        var assembler = MessageAssembler()
        /// Events applied (and handed to the app) so far.
        var handedOver = 0
        /// The reply's message ID, once the stream or the response header named it.
        var messageId: String?
        /// Whether a connection since the last break brought new events.
        var progressed = false
        /// The text part still open (started, not ended), which history's rest continues.
        var openTextId: String?
        /// Whether the reply's end (its `finish`, handed over at `[DONE]`) arrived: a connection
        /// that breaks after it lost nothing.
        var ended = false

        var message: AssembledMessage { assembler.message }
        /// The message so far, named by the response's `X-Message-Id` when its `start` did not come
        /// (so a failed reply can still be retried or resumed by its ID).
        var named: AssembledMessage {
            var message = assembler.message
            if message.id == nil { message.id = messageId }
            return message
        }
    }

    /// Why reading a connection stopped early.
    enum BrokenStream: Error {
        /// Resumable: the connection broke or the body ended before `[DONE]`.
        case cut(StreamError, TransportError?)
        /// Not resumable (undecodable input).
        case failed(StreamError)
    }

    /// One streamed round: decode the UI message stream, assemble, emit an update per event,
    /// resuming a broken stream on its own (see the file's header).
    func streamRound(
        _ round: Round, index: Int, accepted: @Sendable () -> Void = {}, emit: (ChatUpdate) async -> Void
    ) async throws -> AssembledMessage {
        // Nothing to do here until the server answers: the store's log is copied back meanwhile.
        client.store?.checkpointInBackground()
        let response = try await client.perform(
            try client.streamRequest(round), extensionRoute: false, idempotent: ChatbaseClient.isIdempotent(round))
        accepted()
        var reading = ReplyReading()
        reading.messageId = response.headers["X-Message-Id"]
        // The reply is recorded as in flight once named (the store's record outlives a killed app).
        var recorded = false
        return try await readReply(round, from: response.body, reading, index: index) { update in
            if !recorded, let messageId = update.message.id,
                let conversationId = update.message.conversationId ?? round.conversationId
            {
                recorded = true
                client.recordInFlight(round, conversationId: conversationId, messageId: messageId)
            }
            await emit(update)
        }
    }

    /// Reads a reply to its end from `first` (nil: from the resume route, for a reply named by
    /// `reading.messageId`), resuming it when its stream breaks; forgets its in-flight record
    /// when it ended.
    func readReply(
        _ round: Round, from first: HTTPBody?, _ reading: ReplyReading, index: Int, emit: (ChatUpdate) async -> Void
    ) async throws -> AssembledMessage {
        var reading = reading
        var body = first
        var retries = 0
        var waited = Duration.zero
        // Why the last resumption could not get through (a reply in flight the server cannot be
        // reached for ends with it, so its record stays).
        var unreachable: (any Error)?
        reading: while true {
            var cut: (stream: StreamError, transport: TransportError?) = (
                StreamError(.truncated, message: "the reply was left in flight"), nil
            )
            do {
                if let body {
                    try await read(body, into: &reading, round: index, emit: emit)
                    break
                }
            } catch BrokenStream.failed(let streamError) {
                throw Self.replyError(streamError, reading.named, transport: nil)
            } catch BrokenStream.cut(let streamError, let transportError) {
                if reading.ended { break }
                cut = (streamError, transportError)
            }
            while true {
                if reading.progressed {
                    retries = 0
                    waited = .zero
                }
                reading.progressed = false
                let wait = client.retryPolicy.delay(retry: retries)
                guard retries + 1 < client.retryPolicy.maxAttempts, waited + wait <= client.retryPolicy.totalBudget
                else {
                    if first == nil, reading.handedOver == 0, let unreachable { throw unreachable }
                    throw Self.replyError(cut.stream, reading.named, transport: cut.transport)
                }
                try await client.retryPolicy.sleep(wait)
                try Task.checkCancellation()
                waited += wait
                retries += 1
                let resumed: Resumption
                do {
                    resumed = try await resume(round, &reading, index: index, emit: emit)
                } catch is CancellationError {
                    throw CancellationError()
                } catch  where RequestPerformer.isPassingFailure(error) {
                    unreachable = error
                    continue  // the resumption could not get through: another attempt, within the budget
                } catch {
                    let streamError = StreamError(
                        .truncated, message: "\(cut.stream.message); resuming the reply failed: \(error)")
                    throw Self.replyError(streamError, reading.named, transport: cut.transport)
                }
                switch resumed {
                case .body(let next):
                    body = next
                    continue reading
                case .completed:
                    break reading
                case .impossible:
                    throw Self.replyError(cut.stream, reading.named, transport: cut.transport)
                }
            }
        }
        if let messageId = reading.messageId { client.forgetInFlight(messageId) }
        var message = reading.assembler.finish()[0]
        if message.id == nil { message.id = reading.messageId }
        if message.error?.code == "ABORTED" {
            // Stopped (``stopReply(conversationId:messageId:)``, here or elsewhere): the text so far is the reply.
            message.error = nil
            if message.finishReason == nil || message.finishReason == .error {
                message.finishReason = .stop
                message.rawFinishReason = "stop"
            }
        }
        if let info = message.error {
            // The model failed inside the reply: the API's documented error, the text so far kept.
            throw APIError.httpError(
                statusCode: 500,
                detail: APIErrorDetail(
                    code: info.code ?? APIErrorDetail.streamingErrorCode, message: info.message, partialReply: message))
        }
        if let id = message.conversationId { client.noteConversation(id) }
        if let userId = message.metadata?["userId"]?.stringValue { client.rememberUserId(userId) }
        return message
    }

    /// Reads one connection's events into `reading`, skipping the first `reading.handedOver`
    /// (a replay from the reply's first event); throws ``BrokenStream`` when it ends early,
    /// among others when no event came for the client's idle timeout (comments do not count).
    ///
    /// The events of each network read are taken in one synchronous step (`nextOutputs()`), not
    /// through an asynchronous `next()` per event.
    func read(
        _ body: HTTPBody, into reading: inout ReplyReading, round: Int, emit: (ChatUpdate) async -> Void
    ) async throws {
        let skip = reading.handedOver
        var seen = 0
        let watch = EventIdleWatch(idleTimeout: client.idleTimeout, now: now)
        var events = IdleWatchedBody(body: body, watch: watch).streamEvents(format: .uiMessageStream)
            .makeAsyncIterator()
        do {
            while let batch = try await events.nextOutputs() {
                for event in batch {
                    watch.noteActivity()
                    seen += 1
                    // An error was never handed over before a break (it ends the reply), so it is
                    // never skipped: a reply cut by a restart resumes with nothing but its error.
                    if seen <= skip, !Self.isError(event) { continue }
                    await apply(event, to: &reading, round: round, emit: emit)
                }
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            switch error {
            case let error as TransportError:
                if error.kind == .cancelled { throw CancellationError() }
                throw BrokenStream.cut(
                    StreamError(.truncated, message: "the connection broke mid-stream: \(error.message)"), error)
            case let error as StreamError where error.kind == .truncated:
                throw BrokenStream.cut(error, nil)
            case let error as StreamError:
                throw BrokenStream.failed(error)
            default:
                throw BrokenStream.cut(StreamError(converting: error), nil)
            }
        }
    }

    /// Applies one event of the reply to `reading` and hands the update to `emit`.
    func apply(
        _ event: StreamEvent, to reading: inout ReplyReading, round: Int, emit: (ChatUpdate) async -> Void
    ) async {
        reading.assembler.apply(event)
        reading.handedOver += 1
        reading.progressed = true
        switch event {
        case .messageStart(let id?): reading.messageId = id
        case .textStart(let id), .textDelta(let id, _): reading.openTextId = id
        case .textEnd: reading.openTextId = nil
        case .finish, .done: reading.ended = true
        case .conversationAssigned(let id): client.noteConversation(id)
        default: break
        }
        // One snapshot of the message per update, moved into it (each copy retains every field of
        // the assembler's message).
        let message = reading.message
        let named = Self.naming(event, in: message)
        await emit(ChatUpdate(event: named, message: consume message, round: round))
    }

    /// How a broken reply goes on.
    enum Resumption {
        /// The rest comes on this body (a replay from the reply's first event).
        case body(HTTPBody)
        /// The reply was completed from history.
        case completed
        /// Nothing names the reply: it cannot be picked up.
        case impossible
    }

    static func isError(_ event: StreamEvent) -> Bool {
        if case .error = event { return true }
        return false
    }

    /// Picks a broken reply up again (see the file's header).
    func resume(
        _ round: Round, _ reading: inout ReplyReading, index: Int, emit: (ChatUpdate) async -> Void
    ) async throws -> Resumption {
        let conversationId = reading.message.conversationId ?? round.conversationId
        if let conversationId, let messageId = reading.messageId {
            let request = try client.request(
                "GET", ["conversations", conversationId, "messages", messageId, "stream"],
                accept: "text/event-stream")
            do {
                return .body(try await client.perform(request, extensionRoute: true, idempotent: true).body)
            } catch let error where Self.meansEventsGone(error) {
                try await completeFromHistory(
                    &reading, conversationId: conversationId, messageId: messageId, index: index, emit: emit)
                return .completed
            }
        }
        // A resend is idempotent only within its conversation: a message that starts one is not resent.
        guard ChatbaseClient.isIdempotent(round), round.conversationId != nil else { return .impossible }
        let response = try await client.perform(
            try client.streamRequest(round), extensionRoute: false, idempotent: true)
        if reading.messageId == nil { reading.messageId = response.headers["X-Message-Id"] }
        return .body(response.body)
    }

    /// Whether the resume route's answer means "read the reply from history": the route is missing
    /// (404 from a server without section 8) or the reply's events are no longer held (410).
    static func meansEventsGone(_ error: any Error) -> Bool {
        if let error = error as? APIError, let status = error.statusCode { return status == 404 || status == 410 }
        return false
    }

    /// `event`, a tool result that does not name its tool (a server's `tool-output-available`
    /// carries only the call's ID), with the name of the call it answers in `message`.
    static func naming(_ event: StreamEvent, in message: AssembledMessage) -> StreamEvent {
        guard case .toolResult(let id, .none, let output, let preliminary) = event,
            let call = message.toolCalls.first(where: { $0.toolCallId == id })
        else { return event }
        return .toolResult(id: id, name: call.toolName, output: output, preliminary: preliminary)
    }

    /// The error a broken reply ends with: everything received is in its partial message.
    static func replyError(_ streamError: StreamError, _ partial: AssembledMessage, transport: TransportError?)
        -> APIError
    {
        var message = partial
        message.error = streamError.info
        return APIError.networkError(
            ReplyStreamError(streamError: streamError, partialMessage: message, transportError: transport))
    }
}
