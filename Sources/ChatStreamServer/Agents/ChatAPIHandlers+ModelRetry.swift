// Retry for an agent backed by a model (PROTOCOLS.md sections 1 and 9): the reply named is made
// again by the upstream, from the conversation as it stood before that reply.
//
// As for a chat, the upstream is asked before anything changes: a refusal (429 with its
// Retry-After, 502) leaves the old reply and everything after it in place. Once the upstream
// answers 200, the reply and every later message are deleted and the new reply is stored as
// generating in the same write, then streamed or answered whole as the chat is.

import ChatStream
import Foundation

extension ChatAPIHandlers {
    /// POST /agents/{agentId}/conversations/{id}/retry `{"messageId", "stream"}` for a model agent.
    func modelRetry(
        _ agent: AgentDefinition, _ conversationId: String, _ request: HTTPServerRequest,
        _ writer: HTTPServerResponseWriter
    ) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let fault = try fault(for: request)
        if let status = fault.status { throw APIError.injected(status: status, retryAfter: fault.retryAfterSeconds) }
        let body = try jsonObject(request)
        let messageId = APIRoute.normalizedID(try requiredString(body, "messageId"))
        let stream = try optionalBool(body, "stream") ?? true
        let place = stream ? try streamPlace(request) : nil
        let messages = try store.read { store in
            let conversation = try store.conversation(conversationId, for: caller)
            guard conversation.status == "ongoing" else { throw APIError.notOngoing }
            return try store.messages(of: conversationId)
        }
        guard let index = messages.firstIndex(where: { $0.id == messageId && !$0.isFromUser }) else {
            throw APIError.retryMessageNotFound
        }
        let earlier = messages[..<index]
        guard earlier.contains(where: \.isFromUser) else { throw APIError.retryNoUserMessage }
        try replies.checkRoom(for: configuration.replies.modelReplyBytes)
        let upstream = try openUpstream(agent, messages: earlier.compactMap(Self.providerMessage))
        // A reply still generating at or after the one retried is stopped first (its streams end).
        for message in messages[index...] where message.replyState == .generating {
            if let run = replies.run(message.id) { stopReply(run) }
        }
        let outcome: ChatOutcome
        do {
            outcome = try write { store -> ChatOutcome in
                let conversation = try store.conversation(conversationId, for: caller)
                guard conversation.status == "ongoing" else { throw APIError.notOngoing }
                guard let retried = try store.messages(of: conversationId).first(where: { $0.id == messageId }) else {
                    throw APIError.retryMessageNotFound
                }
                try store.deleteMessages(of: conversationId, from: retried.sequence)
                let answersUser = earlier.last?.isFromUser == true
                return try reply(
                    ReplyPlan(parts: [], finishReason: "stop"), reserving: configuration.replies.modelReplyBytes,
                    id: Self.newID(), in: conversationId,
                    replyTo: answersUser ? earlier.last?.sequence : nil, stream: true, caller: caller, store)
            }
        } catch {
            upstream.body.close()
            throw error
        }
        try answer(from: upstream, agent, outcome, place: place, fault: fault, writer)
    }
}
