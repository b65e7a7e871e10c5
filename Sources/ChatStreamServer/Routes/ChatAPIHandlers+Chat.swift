// The chat side of the API: chat, retry, tool-result and verify (PROTOCOLS.md section 1), with
// idempotent chats (`clientMessageId`, section 6).
//
// A chat stores the user message and the agent's reply in one transaction, committed before the
// first byte of the answer (so history is complete even when the client drops the stream, and a
// failed write answers 500 with nothing stored), then streams or returns the reply. A chat whose
// `clientMessageId` is already stored is a resend: nothing new is stored and the reply made for
// it is answered again, with `Idempotent-Replayed: true`.

import ChatStream
import Foundation

extension ChatAPIHandlers {
    /// POST /agents/{agentId}/chat `{"message"?, "conversationId"?, "clientMessageId"?, "stream"}`.
    func chat(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let fault = try fault(for: request)
        if let status = fault.status { throw APIError.injected(status: status, retryAfter: fault.retryAfterSeconds) }
        let body = try jsonObject(request)
        let message = try optionalString(body, "message")
        let conversationId = try optionalString(body, "conversationId")
        let stream = try optionalBool(body, "stream") ?? true
        let clientMessageId = try optionalUUID(body, "clientMessageId")
        if let message, message.trimmingSpaces().isEmpty {
            throw APIError.invalidBody("message must not be empty", field: "message")
        }
        guard message != nil || conversationId != nil else {
            throw APIError.invalidBody("message is required to start a conversation", field: "message")
        }
        let now = Self.now
        let (plan, metadata, replayed) = try store.write { store -> (ReplyPlan, ReplyMetadata, Bool) in
            if let clientMessageId, message != nil,
                let replay = try Self.replay(clientMessageId, conversationId: conversationId, caller: caller, store)
            {
                return (replay.0, replay.1, true)
            }
            let id: String
            if let conversationId {
                let conversation = try store.conversation(conversationId, for: caller)
                guard conversation.status == "ongoing" else { throw APIError.notOngoing }
                id = conversationId
            } else {
                id = Self.newID()
                _ = try store.createConversation(id: id, title: nil, for: caller, now: now)
            }
            var userSequence: Int?
            if let message {
                let stored = try store.appendMessage(
                    id: Self.newID(), role: "user", parts: [AssembledPart.text(message).jsonValue], to: id, now: now,
                    clientMessageId: clientMessageId)
                userSequence = stored.sequence
                if try store.conversation(id)?.title == nil { try store.setTitle(Self.title(for: message), of: id) }
            }
            let replyId = Self.newID()
            let plan =
                try message.map { ReplyGenerator.reply(to: $0, messageId: replyId) }
                ?? ReplyGenerator.continuation(after: store.messages(of: id))
            let (_, metadata) = try Self.storeReply(
                plan, id: replyId, in: id, replyTo: userSequence, store: store, now: now)
            try checkQuotas(store, for: caller)
            return (plan, metadata, false)
        }
        let headers = replayed ? [("Idempotent-Replayed", "true")] : []
        try send(plan, metadata, stream: stream, fault: fault, headers: headers, writer)
    }

    /// The reply already made for the user message sent with `clientMessageId`, nil when there is none.
    static func replay(
        _ clientMessageId: String, conversationId: String?, caller: Caller, _ store: StoreTransaction
    ) throws -> (ReplyPlan, ReplyMetadata)? {
        let found: (MessageRecord, String)?
        if let conversationId {
            _ = try store.conversation(conversationId, for: caller)
            found = try store.message(clientMessageId: clientMessageId, in: conversationId).map { ($0, conversationId) }
        } else {
            found = try store.message(clientMessageId: clientMessageId, for: caller)
        }
        guard let (userMessage, conversation) = found,
            let (reply, finishReason) = try store.reply(to: userMessage.sequence)
        else { return nil }
        let plan = ReplyPlan(parts: reply.parts.compactMap(ReplyPart.init(stored:)), finishReason: finishReason)
        let metadata = ReplyMetadata(
            conversationId: conversation, messageId: reply.id, userMessageId: userMessage.id,
            userId: try store.conversation(conversation)?.ownerUser)
        return (plan, metadata)
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
        let (plan, metadata) = try store.write { store in
            let conversation = try store.conversation(conversationId, for: caller)
            guard conversation.status == "ongoing" else { throw APIError.notOngoing }
            let messages = try store.messages(of: conversationId)
            guard let index = messages.firstIndex(where: { $0.id == messageId && !$0.isFromUser }) else {
                throw APIError.retryMessageNotFound
            }
            let earlier = Array(messages[..<index])
            guard let userMessage = earlier.last(where: \.isFromUser) else { throw APIError.retryNoUserMessage }
            try store.deleteMessages(of: conversationId, from: messages[index].sequence)
            let replyId = Self.newID()
            let answersUser = earlier.last?.isFromUser == true
            let plan =
                answersUser
                ? ReplyGenerator.reply(to: userMessage.text, messageId: replyId)
                : ReplyGenerator.continuation(after: earlier)
            let stored = try Self.storeReply(
                plan, id: replyId, in: conversationId, replyTo: answersUser ? userMessage.sequence : nil,
                store: store, now: now)
            try checkQuotas(store, for: caller)
            return stored
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
        try store.write { store in
            _ = try store.conversation(conversationId, for: caller)
            for message in try store.messages(of: conversationId).reversed() where !message.isFromUser {
                guard
                    let call = message.parts.first(where: {
                        $0["type"]?.stringValue == "tool-call" && $0["toolCallId"]?.stringValue == toolCallId
                    })
                else { continue }
                let result = AssembledPart.toolResult(
                    ToolResultPart(
                        toolCallId: toolCallId, toolName: call["toolName"]?.stringValue ?? "", output: output))
                var parts = message.parts
                parts.removeAll {
                    $0["type"]?.stringValue == "tool-result" && $0["toolCallId"]?.stringValue == toolCallId
                }
                parts.append(result.jsonValue)
                try store.setParts(parts, ofMessage: message.sequence)
                try store.touch(conversationId, now: now)
                try checkQuotas(store, for: caller)
                return
            }
            throw APIError.toolCallNotFound
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
        try store.write { store in try store.assignAnonymousConversations(ofDevice: device, toUser: userId) }
        try respond([:], writer)
    }

    // MARK: - Replies

    /// Appends the agent message for `plan` (answering the user message `replyTo`, if any) and
    /// returns what streaming it needs.
    static func storeReply(
        _ plan: ReplyPlan, id replyId: String, in conversationId: String, replyTo: Int?, store: StoreTransaction,
        now: Int
    ) throws -> (ReplyPlan, ReplyMetadata) {
        try store.appendMessage(
            id: replyId, role: "assistant", parts: plan.parts.map(\.jsonValue), to: conversationId, now: now,
            replyTo: replyTo, finishReason: plan.finishReason)
        try store.touch(conversationId, now: now)
        let metadata = ReplyMetadata(
            conversationId: conversationId, messageId: replyId,
            userMessageId: try store.lastUserMessageId(of: conversationId),
            userId: try store.conversation(conversationId)?.ownerUser)
        return (plan, metadata)
    }

    /// Streams the reply as a UI message stream, or answers `{"data":{"id","role","parts","metadata"}}`.
    func send(
        _ plan: ReplyPlan, _ metadata: ReplyMetadata, stream: Bool, fault: ChatAPIServer.Fault,
        headers: [(String, String)] = [], _ writer: HTTPServerResponseWriter
    ) throws {
        if stream {
            // The owner's live stream sees the agent typing while the reply streams.
            typing(metadata.conversationId, active: true)
            defer { typing(metadata.conversationId, active: false) }
            let events = UIMessageStreamEncoder.events(UIMessageStreamEncoder.chunks(for: plan, metadata: metadata))
            try ReplyStreamer(pacing: configuration.replyDelay, fault: fault).stream(
                events, to: writer, extraHeaders: headers)
        } else {
            let message: JSONTree = [
                "id": .string(metadata.messageId), "role": "assistant", "parts": .array(plan.parts.map(\.jsonValue)),
                "metadata": metadata.finishMetadata(reason: plan.finishReason),
            ]
            try writer.respond(
                status: 200, headers: [("Content-Type", "application/json; charset=utf-8")] + headers,
                body: (["data": message] as JSONTree).jsonBytes)
        }
    }

    /// Records a `typing` live event for the agent, when someone is listening: typing is a passing
    /// state, not worth a durable write (and two commits per chat) when no stream would carry it.
    private func typing(_ conversationId: String, active: Bool) {
        guard store.liveEventSignal.subscriberCount > 0 else { return }
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

extension ReplyPart {
    /// The reply part a stored history part stands for (text or tool call); nil for others.
    init?(stored part: JSONTree) {
        switch part["type"]?.stringValue {
        case "text": self = .text(part["text"]?.stringValue ?? "")
        case "tool-call":
            self = .toolCall(
                id: part["toolCallId"]?.stringValue ?? "", name: part["toolName"]?.stringValue ?? "",
                input: part["input"] ?? .null)
        default: return nil
        }
    }
}
