// Replies in flight (issue 28, background and relaunch): a streamed reply is recorded in the
// client's HistoryStore as soon as its stream names it and forgotten when it ends, so a reply the
// app was suspended or killed in is known at the next launch. `completeRepliesInFlight` finishes
// each from its first event (the resume route of PROTOCOLS.md section 8, or the stored message
// from history on a server without it) into the store, once: a reply the server ended with an
// error (cut by a restart) or no longer has (regenerated) is forgotten; one the server cannot be
// reached for stays for the next call.

import ChatStream
import Foundation

extension ChatbaseClient {
    /// The streamed replies this client (at this or an earlier launch) began reading and has not
    /// seen end, oldest first; empty without a ``store``. ChatStream's own.
    public func repliesInFlight() throws -> [ReplyInFlight] {
        guard let store, let scope = storeScope else { return [] }
        return try store.repliesInFlight(scope: scope)
    }

    /// Finishes the ``repliesInFlight()`` (those of `conversationId`, or all): each is read again
    /// from its first event (or completed from history on a server without the resume route),
    /// filed in the ``store`` with the user's message it answers, and forgotten; the responses
    /// are returned, oldest first. A reply the server ended with an error (one cut by a server
    /// restart) is forgotten without a response; one the server cannot be reached for, or cannot
    /// find (still generating, on a server without the resume route), stays for a later call,
    /// for up to 10 minutes after it began. ChatStream's own.
    ///
    /// ```swift
    /// for response in try await client.completeRepliesInFlight() {
    ///     print(response.conversationId, response.message.text)
    /// }
    /// ```
    public func completeRepliesInFlight(conversationId: String? = nil) async throws -> [ChatResponse] {
        var completed: [ChatResponse] = []
        for reply in try repliesInFlight()
        where conversationId == nil || reply.conversationId.lowercased() == conversationId?.lowercased() {
            var reading = ReplyRunner.ReplyReading()
            reading.messageId = reply.messageId
            do {
                let message = try await ReplyRunner(client: self).readReply(
                    .chat(message: nil, conversationId: reply.conversationId), from: nil, reading, index: 0
                ) { _ in }
                let response = ChatResponse(
                    assembled: message, conversationId: message.conversationId ?? reply.conversationId,
                    userMessageId: message.userMessageId)
                record(reply: response, userText: reply.userText, clientMessageId: reply.clientMessageId)
                completed.append(response)
            } catch is CancellationError {
                throw CancellationError()
            } catch APIError.httpError(_, let detail) where detail.partialReply != nil {
                forgetInFlight(reply.messageId)  // ended with an error: history has it as it ended
            } catch  where RequestPerformer.isPassingFailure(error) {
                continue  // the server cannot be reached: kept for a later call
            } catch {
                // Not found: still being generated (a server without the resume route stores it
                // at its end), or gone (regenerated since). Kept while the server could still be
                // generating it.
                if Date.now.timeIntervalSince(reply.startedAt) > Self.inFlightLifetime {
                    forgetInFlight(reply.messageId)
                }
            }
        }
        return completed
    }

    /// How long a reply in flight that the server cannot find is kept (the retention of a reply's
    /// events by PROTOCOLS.md section 8): after it, the reply is taken as gone.
    static let inFlightLifetime: TimeInterval = 10 * 60

    /// Records the reply `messageId` of `round` as in flight (with the store).
    func recordInFlight(_ round: Round, conversationId: String, messageId: String) {
        guard let store, let scope = storeScope else { return }
        var reply = ReplyInFlight(conversationId: conversationId, messageId: messageId)
        if case .chat(let text, _, let clientMessageId) = round {
            reply.userText = text
            reply.clientMessageId = clientMessageId
        }
        try? store.recordReplyInFlight(reply, scope: scope)
    }

    /// Forgets the in-flight record of `messageId` (it ended).
    func forgetInFlight(_ messageId: String) {
        guard let store, let scope = storeScope else { return }
        try? store.removeReplyInFlight(messageId: messageId, scope: scope)
    }
}
