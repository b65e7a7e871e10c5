// The routes of resumable replies (PROTOCOLS.md section 8): resume a reply's stream after the last
// event a client handled, and stop a reply being generated.
//
// Both answer 404 `RESOURCE_MESSAGE_NOT_FOUND` alike for an unknown conversation, another caller's
// conversation, an unknown message or a user message, so nothing confirms what someone else has.

import ChatStream

extension ChatAPIHandlers {
    /// GET /agents/{agentId}/conversations/{id}/messages/{messageId}/stream, with `Last-Event-ID`
    /// (or `?lastEventId=`): the reply's events after that ID, live while it generates.
    func replyStream(
        _ conversationId: String, _ messageId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter
    ) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let header = request.headers["Last-Event-ID"]?.trimmingSpaces()
        let given = try Self.replyEventNumber(header ?? request.queryValue("lastEventId") ?? "")
        let message = try agentMessage(messageId, in: conversationId, for: caller)
        if let run = replies.run(message.id), run.metadata.conversationId == conversationId {
            let newest = run.events(after: .max).count
            guard given <= newest else {
                throw APIError.invalidLastEventId("event \(given) is past the reply's newest event (\(newest))")
            }
            return try streamReply(run, after: given, fault: ChatAPIServer.Fault(), place: streamPlace(request), writer)
        }
        guard message.replyState == .interrupted else { throw APIError.replyExpired }
        // Cut by a restart: its events are gone with the process that made them. End it with an
        // error, numbered after anything the client or the stored text can have seen.
        let covered = try store.read { try $0.replyEventCount(ofMessage: message.sequence) }
        let first = max(given, covered) + 1
        try writer.startStream(status: 200, headers: ReplyStreamer.headers + [("X-Message-Id", message.id)])
        try writer.write(
            "id: \(first)\ndata: \(ReplyRun.interruptedError.jsonText)\n\nid: \(first + 1)\ndata: [DONE]\n\n")
        try writer.finishStream()
    }

    /// POST /agents/{agentId}/conversations/{id}/messages/{messageId}/stop: stops the reply if it is
    /// generating (text so far kept and stored) and answers it as history shows it.
    func stopReply(
        _ conversationId: String, _ messageId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter
    ) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let message = try agentMessage(messageId, in: conversationId, for: caller)
        if let run = replies.run(message.id), run.metadata.conversationId == conversationId { stopReply(run) }
        let stored = try store.read { try $0.message(message.id, in: conversationId) } ?? message
        try respond(["data": WireShapes.message(stored)], writer)
    }

    /// The agent message `messageId` of the caller's conversation; 404 `RESOURCE_MESSAGE_NOT_FOUND`
    /// for an unknown or foreign conversation, an unknown message, or a user message.
    func agentMessage(_ messageId: String, in conversationId: String, for caller: Caller) throws -> MessageRecord {
        try store.read { store in
            guard let conversation = try store.conversation(conversationId), caller.owns(conversation),
                let message = try store.message(messageId, in: conversationId), !message.isFromUser
            else { throw APIError.messageNotFound }
            return message
        }
    }

    /// The event number a `Last-Event-ID` names: empty is 0 (from the start); anything but a
    /// decimal number of at most 9 digits is 400 `VALIDATION_INVALID_LAST_EVENT_ID`.
    static func replyEventNumber(_ text: String) throws(APIError) -> Int {
        guard !text.isEmpty else { return 0 }
        guard text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(text) else {
            throw APIError.invalidLastEventId(
                "Last-Event-ID must be an event ID of this reply (a decimal number), got \"\(text.prefix(40))\"")
        }
        return number
    }
}

extension APIError {
    /// 410: the reply's events are no longer held; its final message is in history.
    static let replyExpired = APIError(
        status: 410, code: "RESOURCE_REPLY_EXPIRED",
        message: "this reply's events are no longer held; read the message from the conversation's history")

    /// 400 for a `Last-Event-ID` that is not one of the reply's.
    static func invalidLastEventId(_ message: String) -> APIError {
        APIError(
            status: 400, code: "VALIDATION_INVALID_LAST_EVENT_ID", message: message, details: ["field": "Last-Event-ID"]
        )
    }
}
