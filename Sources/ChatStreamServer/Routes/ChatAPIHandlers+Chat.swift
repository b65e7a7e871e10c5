// The chat side of the API: chat, retry, tool-result and verify (PROTOCOLS.md section 1), with
// idempotent chats (`clientMessageId`, section 6).
//
// A chat stores the user message and its reply in one transaction, committed before the first
// byte of the answer (a failed write answers 500 with nothing stored). A non-streamed reply is
// stored whole; a streamed one is stored as generating and then generated on a thread of its own
// whether or not anyone reads it (PROTOCOLS.md section 8, ChatAPIHandlers+ReplyStreams.swift),
// and the request becomes one reader of it. A streamed reply with no pacing to keep (the demo
// agent's, `replyDelay` zero) is known whole before the write: it is stored finished in that one
// transaction, like a non-streamed one, and its run only has its events encoded (on a reply
// thread, streamed as they come): a chat costs one commit instead of two (the generating row, then
// its end), and resumes work the same. A chat whose `clientMessageId` is already stored is a
// resend: nothing new is stored and the reply made for it is answered again (joined while it is
// still generating), with `Idempotent-Replayed: true`.

import ChatStream
import Foundation

extension ChatAPIHandlers {
    /// A chat request, checked: its caller, its injected fault, and its body's fields.
    struct ChatRequest {
        var caller: Caller
        var fault: ChatAPIServer.Fault
        var message: String?
        var conversationId: String?
        var stream: Bool
        var clientMessageId: String?
        /// The stream caps' place a streamed answer takes (nil when not streamed).
        var place: StreamPlace?
    }

    /// Reads and checks what POST /agents/{agentId}/chat was sent (the demo agent's route and a
    /// model agent's take the same body); an injected fault status is thrown here.
    func chatRequest(_ request: HTTPServerRequest) throws -> ChatRequest {
        let caller = try Caller(request: request, verifier: verifier)
        let fault = try fault(for: request)
        if let status = fault.status { throw APIError.injected(status: status, retryAfter: fault.retryAfterSeconds) }
        let body = try jsonObject(request)
        let message = try optionalString(body, "message")
        let conversationId = try optionalString(body, "conversationId").map(APIRoute.normalizedID)
        let stream = try optionalBool(body, "stream") ?? true
        let clientMessageId = try optionalUUID(body, "clientMessageId")
        if let message, message.trimmingSpaces().isEmpty {
            throw APIError.invalidBody("message must not be empty", field: "message")
        }
        guard message != nil || conversationId != nil else {
            throw APIError.invalidBody("message is required to start a conversation", field: "message")
        }
        // Taken before anything is stored: a stream beyond the caps is refused with nothing changed.
        let place = stream ? try streamPlace(request) : nil
        return ChatRequest(
            caller: caller, fault: fault, message: message, conversationId: conversationId, stream: stream,
            clientMessageId: clientMessageId, place: place)
    }

    /// POST /agents/{agentId}/chat `{"message"?, "conversationId"?, "clientMessageId"?, "stream"}`.
    func chat(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        if let agent = modelAgent(for: request) { return try modelChat(agent, request, writer) }
        let chat = try chatRequest(request)
        let (caller, fault, message, conversationId, stream, clientMessageId) =
            (chat.caller, chat.fault, chat.message, chat.conversationId, chat.stream, chat.clientMessageId)
        let now = Self.now
        // The message's stored forms (JSON, search text, preview), the title it would give, the
        // reply to it, the reply's stored forms and its streamed size are made before the write lock: for a 1 MiB
        // message they took over a second under it (WriteLockHoldTests).
        let prepared = message.map { StoredParts([AssembledPart.text($0).jsonValue]) }
        let derivedTitle = message.map(Self.title(for:))
        // The IDs too (each draws on the system's random source): the reply's, and the new
        // conversation's and the user message's the write may give.
        let replyId = Self.newID()
        let newConversationId = Self.newID()
        let userMessageId = Self.newID()
        let plannedReply = message.map { ReplyGenerator.reply(to: $0, messageId: replyId) }
        let preparedReply = plannedReply.map { StoredParts($0.parts.map(\.jsonValue)) }
        // Counted with the metadata the write will most likely settle: then it need not count
        // again, and a short reply stored whole (no pacing) streams the chunks counted.
        let likelyMetadata = ReplyMetadata(
            conversationId: conversationId ?? newConversationId, messageId: replyId, userMessageId: userMessageId,
            userId: caller.userId)
        let countedReply =
            stream
            ? plannedReply.map {
                CountedReply(
                    $0, metadata: likelyMetadata, numbered: configuration.resumableReplies,
                    keepingUpTo: configuration.replyDelay == .zero ? Self.inlineEncodingBytes : 0)
            } : nil
        let outcome = try write { store -> ChatOutcome in
            if let clientMessageId, message != nil,
                let replay = try Self.replay(clientMessageId, conversationId: conversationId, caller: caller, store)
            {
                return .replay(replay.plan, replay.metadata, replay.reply)
            }
            let id: String
            let existing: ConversationRecord?
            if let conversationId {
                let conversation = try store.conversation(conversationId, for: caller)
                guard conversation.status == "ongoing" else { throw APIError.notOngoing }
                id = conversationId
                existing = conversation
            } else {
                // A new conversation with a message takes its title from it at once.
                id = newConversationId
                existing = nil
                _ = try store.createConversation(id: id, title: derivedTitle, for: caller, now: now)
            }
            var userSequence: Int?
            var known: KnownReplyContext?
            if message != nil, let prepared {
                let stored = try store.appendMessage(
                    id: userMessageId, role: "user", prepared: prepared, to: id, now: now,
                    clientMessageId: clientMessageId)
                userSequence = stored.sequence
                if let existing, existing.title == nil, let derivedTitle {
                    try store.setTitle(derivedTitle, of: id)
                }
                known = KnownReplyContext(
                    userMessageId: stored.id, ownerUser: existing.map(\.ownerUser) ?? caller.userId)
            }
            let plan = try plannedReply ?? ReplyGenerator.continuation(after: store.messages(of: id))
            return try reply(
                plan, prepared: preparedReply, counted: countedReply, id: replyId, in: id,
                replyTo: userSequence, stream: stream, caller: caller, known: known, store)
        }
        try answer(outcome, place: chat.place, fault: fault, counted: countedReply, writer)
    }

    /// The reply already made for the user message sent with `clientMessageId`, nil when there is none.
    static func replay(
        _ clientMessageId: String, conversationId: String?, caller: Caller, _ store: StoreTransaction
    ) throws -> (plan: ReplyPlan, metadata: ReplyMetadata, reply: MessageRecord)? {
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
        return (plan, metadata, reply)
    }

    /// POST /agents/{agentId}/conversations/{id}/retry `{"messageId", "stream"}`: regenerates that reply
    /// (the reply and any later messages are replaced).
    func retry(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        if let agent = modelAgent(for: request) { return try modelRetry(agent, conversationId, request, writer) }
        let caller = try Caller(request: request, verifier: verifier)
        let fault = try fault(for: request)
        if let status = fault.status { throw APIError.injected(status: status, retryAfter: fault.retryAfterSeconds) }
        let body = try jsonObject(request)
        let messageId = APIRoute.normalizedID(try requiredString(body, "messageId"))
        let stream = try optionalBool(body, "stream") ?? true
        let place = stream ? try streamPlace(request) : nil
        // A reply still generating at or after the one retried is stopped first (its streams end).
        let target = try store.read { store in
            _ = try store.conversation(conversationId, for: caller)
            return try store.messages(of: conversationId)
        }
        if let retried = target.first(where: { $0.id == messageId && !$0.isFromUser }) {
            for message in target where message.replyState == .generating && message.sequence >= retried.sequence {
                if let run = replies.run(message.id) { stopReply(run) }
            }
        }
        let outcome = try write { store -> ChatOutcome in
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
            return try reply(
                plan, id: replyId, in: conversationId, replyTo: answersUser ? userMessage.sequence : nil,
                stream: stream,
                caller: caller, store)
        }
        try answer(outcome, place: place, fault: fault, writer)
    }

    /// POST /agents/{agentId}/conversations/{id}/tool-result `{"toolCallId", "output"}`.
    func toolResult(_ conversationId: String, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let body = try jsonObject(request)
        let toolCallId = try requiredString(body, "toolCallId")
        guard let output = body["output"] else { throw APIError.invalidBody("output is required", field: "output") }
        // Bounded so the message that stores it can always be read back (and is no large write).
        try StringLimits.check(
            json: output, field: "output", maxBytes: StringLimits.toolOutputBytes,
            maxDepth: StringLimits.toolOutputDepth)
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
        try StringLimits.check(userId, field: "sub", maxBytes: StringLimits.subjectBytes)
        guard let device = request.headers["X-Device-Id"]?.trimmingSpaces(), !device.isEmpty else {
            throw APIError.invalidBody("the X-Device-Id header is required", field: "X-Device-Id")
        }
        try StringLimits.check(device, field: "X-Device-Id", maxBytes: StringLimits.deviceIdBytes)
        try store.write { store in try store.assignAnonymousConversations(ofDevice: device, toUser: userId) }
        try respond([:], writer)
    }

    // MARK: - Replies

    /// Appends the agent message for `plan` (answering the user message `replyTo`, if any): whole
    /// for a non-streamed answer or a streamed one without pacing (`replyDelay` zero), else as a
    /// generating reply whose run is registered (streamed), and
    /// checks the quotas counting the whole planned reply. `prepared`: the plan's stored forms when
    /// they were made before the transaction; `counted`: the plan's streamed size, likewise;
    /// `reserving`: the bytes a reply of unknown size reserves instead (a model agent's); `known`:
    /// the message answered and the conversation's owner when the caller has them (else read here).
    func reply(
        _ plan: ReplyPlan, prepared: StoredParts? = nil, counted: CountedReply? = nil, reserving: Int? = nil,
        id replyId: String,
        in conversationId: String, replyTo: Int?, stream: Bool, caller: Caller, known: KnownReplyContext? = nil,
        _ store: StoreTransaction
    ) throws -> ChatOutcome {
        let now = Self.now
        // A streamed reply known whole with no pacing to keep is stored finished at once.
        let whole = !stream || (reserving == nil && configuration.replyDelay == .zero)
        let stored = prepared ?? (whole ? StoredParts(plan.parts.map(\.jsonValue)) : nil)
        let record: MessageRecord
        if !whole {
            record = try store.beginReply(
                id: replyId, in: conversationId, replyTo: replyTo, finishReason: plan.finishReason, now: now)
        } else {
            record = try store.appendMessage(
                id: replyId, role: "assistant", prepared: stored!, to: conversationId, now: now, replyTo: replyTo,
                finishReason: plan.finishReason)
        }
        try store.touch(conversationId, now: now)
        let metadata = ReplyMetadata(
            conversationId: conversationId, messageId: replyId,
            userMessageId: try known?.userMessageId ?? store.lastUserMessageId(of: conversationId),
            userId: try known.map(\.ownerUser) ?? store.conversation(conversationId)?.ownerUser)
        let pending = whole ? 0 : stored?.size ?? JSONTree.array(plan.parts.map(\.jsonValue)).jsonText.utf8.count
        try checkQuotas(store, for: caller, pendingBytes: pending)
        guard stream else { return .stored(plan, metadata) }
        // Typing is recorded only while someone follows live events (see `typing(_:active:)`).
        if whole, self.store.liveEventSignal.subscriberCount > 0 { store.changes.typing(around: record.sequence) }
        let run = ReplyRun(
            metadata: metadata, sequence: record.sequence, ownerKey: caller.ownerKey,
            numbered: configuration.resumableReplies,
            plannedBytes: reserving ?? counted?.bytes(for: metadata)
                ?? ReplyRun.plannedBytes(of: plan, metadata: metadata, numbered: configuration.resumableReplies),
            storedWhole: whole)
        let dropped = try replies.register(run)
        if !dropped.isEmpty { store.changes.keep(dropped) }
        return .generate(plan, run)
    }

    /// Runs `body` in a store write; a reply it registered is forgotten when the write fails.
    func write(_ body: (StoreTransaction) throws -> ChatOutcome) throws -> ChatOutcome {
        var registered: ReplyRun?
        do {
            return try store.write { store in
                let outcome = try body(store)
                if case .generate(_, let run) = outcome { registered = run }
                return outcome
            }
        } catch {
            if let registered { replies.forget(registered) }
            throw error
        }
    }

    /// Answers a chat or retry: starts generating and streams the new reply, or streams or joins
    /// the reply a resend replays, or answers the whole reply as JSON. Streamed when `place` (the
    /// stream caps' place the request took) is given. `counted`: the new reply as counted before
    /// the write (a short one stored whole streams the chunks it kept).
    func answer(
        _ outcome: ChatOutcome, place: StreamPlace?, fault: ChatAPIServer.Fault, counted: CountedReply? = nil,
        _ writer: HTTPServerResponseWriter
    ) throws {
        switch outcome {
        case .generate(let plan, let run):
            // A short reply stored whole is encoded here, whole, before its stream starts (a thread
            // hop and a wake-up of the stream writer for each event cost more than it), or taken
            // as `counted` encoded it before the write; a long one is encoded on a reply thread
            // while it streams, so its first byte does not wait for its last.
            if run.storedWhole, let chunks = counted?.chunks(for: run.metadata) {
                append(chunks, into: run)
            } else if run.storedWhole && run.plannedBytes <= Self.inlineEncodingBytes {
                encode(plan, into: run)
            } else {
                startGenerating(plan, run)
            }
            guard let place else {  // `reply` makes `.generate` only for a streamed answer
                throw APIError(status: 500, code: "INTERNAL_SERVER_ERROR", message: "a new reply is only streamed")
            }
            try streamReply(run, after: 0, fault: fault, place: place, writer)
        case .stored(let plan, let metadata):
            try respond(plan.parts.map(\.jsonValue), metadata, finishReason: plan.finishReason, writer: writer)
        case .replay(let plan, let metadata, let reply):
            let headers = [("Idempotent-Replayed", "true")]
            let held = replies.run(reply.id)
            if let place {
                let run =
                    held
                    ?? ReplyRun.ended(plan, metadata, state: reply.replyState, numbered: configuration.resumableReplies)
                try streamReply(run, after: 0, fault: fault, headers: headers, place: place, writer)
                return
            }
            if let held { _ = held.waitForEnd(timeout: .seconds(60)) }
            let stored = try store.read { try $0.message(reply.id, in: metadata.conversationId) } ?? reply
            var finishReason = plan.finishReason
            if stored.replyState == .interrupted { finishReason = "error" }
            try respond(
                stored.parts, metadata, finishReason: finishReason, aborted: stored.replyState == .stopped,
                headers: headers, writer: writer)
        }
    }

    /// The largest reply stored whole whose events are encoded on the request's thread (64 KiB).
    static let inlineEncodingBytes = 64 << 10

    /// Answers `{"data":{"id","role","parts","metadata"}}`.
    func respond(
        _ parts: [JSONTree], _ metadata: ReplyMetadata, finishReason: String, aborted: Bool = false,
        headers: [(String, String)] = [], writer: HTTPServerResponseWriter
    ) throws {
        let message: JSONTree = [
            "id": .string(metadata.messageId), "role": "assistant", "parts": .array(parts),
            "metadata": metadata.finishMetadata(reason: finishReason, aborted: aborted),
        ]
        try writer.respond(
            status: 200, headers: [("Content-Type", "application/json; charset=utf-8")] + headers,
            body: (["data": message] as JSONTree).jsonBytes)
    }

    /// A conversation title from its first message: at most 60 characters and
    /// ``StringLimits/titleBytes`` bytes.
    static func title(for message: String) -> String {
        let flat = message.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingSpaces()
        let short = flat.count <= 60 ? flat : flat.prefix(59).trimmingSpaces() + "…"
        return StringLimits.prefix(short, maxBytes: StringLimits.titleBytes)
    }
}

/// What a chat's transaction already knows when it makes the reply's metadata: the user message
/// the reply answers (the newest, just appended) and the conversation's owning user.
struct KnownReplyContext {
    var userMessageId: String
    var ownerUser: String?
}

/// What a chat or retry answers with.
enum ChatOutcome {
    /// A new streamed reply to generate (or, stored whole, only to encode into its run).
    case generate(ReplyPlan, ReplyRun)
    /// A new reply stored whole (not streamed).
    case stored(ReplyPlan, ReplyMetadata)
    /// A resend: the reply already made (or being made) for its `clientMessageId`.
    case replay(ReplyPlan, ReplyMetadata, MessageRecord)
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
