// The chat side of the API: chat, retry, tool-result and verify (PROTOCOLS.md section 1).
//
// A chat stores the user message and the agent's reply in one store update (so history is
// complete even when the client drops the stream), then streams or returns the reply.

import ChatStream

extension ChatAPIHandlers {
    /// POST /agents/{agentId}/chat `{"message"?, "conversationId"?, "stream"}`.
    func chat(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let fault = try fault(for: request)
        if let status = fault.status { throw APIError.injected(status: status, retryAfter: fault.retryAfterSeconds) }
        let body = try jsonObject(request)
        let message = try optionalString(body, "message")
        let conversationId = try optionalString(body, "conversationId")
        let stream = try optionalBool(body, "stream") ?? true
        if let message, message.trimmingSpaces().isEmpty {
            throw APIError.invalidBody("message must not be empty", field: "message")
        }
        guard message != nil || conversationId != nil else {
            throw APIError.invalidBody("message is required to start a conversation", field: "message")
        }
        let now = Self.now
        let (plan, metadata) = try store.update { state in
            let id: String
            if let conversationId {
                let conversation = try state.conversation(conversationId, for: caller)
                guard conversation.status == "ongoing" else { throw APIError.notOngoing }
                id = conversationId
            } else {
                id = Self.newID()
                state.conversations[id] = ConversationRecord(
                    id: id, title: nil, createdAt: now, updatedAt: now, updateSequence: state.nextSequence(),
                    ownerDevice: caller.deviceId, ownerUser: caller.userId, status: "ongoing", messages: [],
                    tags: [:], lastRead: [:])
            }
            if let message {
                let userMessage = MessageRecord(
                    id: Self.newID(), role: "user", parts: [AssembledPart.text(message).jsonValue], createdAt: now,
                    sequence: state.nextSequence())
                state.conversations[id]!.messages.append(userMessage)
                if state.conversations[id]!.title == nil { state.conversations[id]!.title = Self.title(for: message) }
            }
            let replyId = Self.newID()
            let plan =
                message.map { ReplyGenerator.reply(to: $0, messageId: replyId) }
                ?? ReplyGenerator.continuation(after: state.conversations[id]!.messages)
            return Self.storeReply(plan, id: replyId, in: id, state: &state, now: now)
        }
        try send(plan, metadata, stream: stream, fault: fault, writer)
    }

    /// POST /agents/{agentId}/conversations/{id}/retry `{"messageId", "stream"}`: regenerates that reply
    /// (the reply and any later messages are replaced).
    func retry(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let fault = try fault(for: request)
        if let status = fault.status { throw APIError.injected(status: status, retryAfter: fault.retryAfterSeconds) }
        let body = try jsonObject(request)
        let messageId = try requiredString(body, "messageId")
        let stream = try optionalBool(body, "stream") ?? true
        let now = Self.now
        let (plan, metadata) = try store.update { state in
            let conversation = try state.conversation(conversationId, for: caller)
            guard conversation.status == "ongoing" else { throw APIError.notOngoing }
            guard let index = conversation.messages.firstIndex(where: { $0.id == messageId && !$0.isFromUser }) else {
                throw APIError.retryMessageNotFound
            }
            let earlier = Array(conversation.messages[..<index])
            guard let userMessage = earlier.last(where: \.isFromUser) else { throw APIError.retryNoUserMessage }
            state.conversations[conversationId]!.messages.removeSubrange(index...)
            let replyId = Self.newID()
            let plan =
                earlier.last?.isFromUser == true
                ? ReplyGenerator.reply(to: userMessage.text, messageId: replyId)
                : ReplyGenerator.continuation(after: earlier)
            return Self.storeReply(plan, id: replyId, in: conversationId, state: &state, now: now)
        }
        try send(plan, metadata, stream: stream, fault: fault, writer)
    }

    /// POST /agents/{agentId}/conversations/{id}/tool-result `{"toolCallId", "output"}`.
    func toolResult(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let body = try jsonObject(request)
        let toolCallId = try requiredString(body, "toolCallId")
        guard let output = body["output"] else { throw APIError.invalidBody("output is required", field: "output") }
        let now = Self.now
        try store.update { state in
            try state.withConversation(conversationId, for: caller) { conversation in
                for index in conversation.messages.indices.reversed() where !conversation.messages[index].isFromUser {
                    let parts = conversation.messages[index].parts
                    guard
                        let call = parts.first(where: {
                            $0["type"]?.stringValue == "tool-call" && $0["toolCallId"]?.stringValue == toolCallId
                        })
                    else { continue }
                    let result = AssembledPart.toolResult(
                        ToolResultPart(
                            toolCallId: toolCallId, toolName: call["toolName"]?.stringValue ?? "", output: output))
                    conversation.messages[index].parts.removeAll {
                        $0["type"]?.stringValue == "tool-result" && $0["toolCallId"]?.stringValue == toolCallId
                    }
                    conversation.messages[index].parts.append(result.jsonValue)
                    return
                }
                throw APIError.toolCallNotFound
            }
            state.touch(conversationId, now: now)
        }
        try respond(["data": ["success": true]], writer)
    }

    /// POST /agents/{agentId}/verify `{"token"}`: the device's anonymous conversations now belong to the token's user.
    func verify(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let body = try jsonObject(request)
        let token = try requiredString(body, "token")
        let userId = try verifier.verifiedSubject(of: token)
        guard let device = request.headers["X-Device-Id"]?.trimmingSpaces(), !device.isEmpty else {
            throw APIError.invalidBody("the X-Device-Id header is required", field: "X-Device-Id")
        }
        try store.update { state in
            for (id, conversation) in state.conversations
            where conversation.ownerUser == nil && conversation.ownerDevice == device {
                state.conversations[id]!.ownerUser = userId
                // The device's tags and read state become the user's (unless the user has their own).
                let user = Caller.userIdentity(userId)
                if let tags = conversation.tags[device], conversation.tags[user] == nil {
                    state.conversations[id]!.tags[user] = tags
                }
                if let read = conversation.lastRead[device] {
                    state.conversations[id]!.lastRead[user] = max(read, conversation.lastRead[user] ?? 0)
                }
            }
        }
        try respond([:], writer)
    }

    // MARK: - Replies

    /// Appends the agent message for `plan` and returns what streaming it needs.
    static func storeReply(
        _ plan: ReplyPlan, id replyId: String, in conversationId: String, state: inout StoreState, now: Int
    ) -> (ReplyPlan, ReplyMetadata) {
        let reply = MessageRecord(
            id: replyId, role: "assistant", parts: plan.parts.map(\.jsonValue), createdAt: now,
            sequence: state.nextSequence())
        state.conversations[conversationId]!.messages.append(reply)
        state.touch(conversationId, now: now)
        let conversation = state.conversations[conversationId]!
        let metadata = ReplyMetadata(
            conversationId: conversationId, messageId: replyId,
            userMessageId: conversation.messages.last(where: \.isFromUser)?.id, userId: conversation.ownerUser)
        return (plan, metadata)
    }

    /// Streams the reply as a UI message stream, or answers `{"data":{"id","role","parts","metadata"}}`.
    func send(
        _ plan: ReplyPlan, _ metadata: ReplyMetadata, stream: Bool, fault: ChatAPIServer.Fault,
        _ writer: HTTPServerResponseWriter
    ) throws {
        if stream {
            // The owner's live stream sees the agent typing while the reply streams.
            typing(metadata.conversationId, active: true)
            defer { typing(metadata.conversationId, active: false) }
            let events = UIMessageStreamEncoder.events(UIMessageStreamEncoder.chunks(for: plan, metadata: metadata))
            try ReplyStreamer(pacing: configuration.replyDelay, fault: fault).stream(events, to: writer)
        } else {
            let message: JSONTree = [
                "id": .string(metadata.messageId), "role": "assistant", "parts": .array(plan.parts.map(\.jsonValue)),
                "metadata": metadata.finishMetadata(reason: plan.finishReason),
            ]
            try respond(["data": message], writer)
        }
    }

    /// Records a `typing` live event for the agent.
    private func typing(_ conversationId: String, active: Bool) {
        store.recordLiveEvent(
            type: "typing",
            data: ["conversationId": .string(conversationId), "participant": "agent", "active": .bool(active)],
            conversationId: conversationId)
    }

    /// A conversation title from its first message: at most 60 characters.
    static func title(for message: String) -> String {
        let flat = message.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingSpaces()
        return flat.count <= 60 ? flat : flat.prefix(59).trimmingSpaces() + "…"
    }
}
