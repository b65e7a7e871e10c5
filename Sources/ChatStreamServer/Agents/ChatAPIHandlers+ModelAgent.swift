// The reply path of an agent backed by a model (PROTOCOLS.md section 9): a chat or a tool-loop
// continuation to such an agent sends the conversation upstream, and the reply is the upstream's
// stream, decoded with its family's dialect and passed on as the home protocol as it arrives.
//
// The upstream is asked before anything is stored, so an upstream that refuses (429 with its
// Retry-After, another status as 502 CHAT_STREAMING_ERROR) leaves no trace and the app may send
// again. Once it answers 200 the user message and a generating reply are stored and the reply is
// a ReplyRun as the demo agent's are: generated to the end whether or not anyone reads, joined by
// a resend, resumable, stoppable. The upstream's own message start, metadata, steps and finish
// are replaced by the server's (its IDs and metadata); everything else passes through
// UIMessageStreamEncoder, and the text so far is saved every checkpoint interval as the demo
// agent's is. A stop ends the run; the reader sees it within a poll and closes the
// upstream connection. A broken or failing upstream stream ends the reply with an `error` chunk
// (code CHAT_STREAMING_ERROR) after the text so far, which is stored; so does a stream that passes
// the bounds of UpstreamReplyLimits (what the identity may still store, tool input size and
// depth) or the reply's share of the generating budget (Replies.modelReplyBytes, reserved whole
// when it starts, since its size is unknown): an upstream that never ends is cut there.

import ChatStream
import Foundation

extension ChatAPIHandlers {
    /// The model agent the request's path names, nil for the demo agent.
    func modelAgent(for request: HTTPServerRequest) -> AgentDefinition? {
        guard !configuration.agents.isEmpty, let id = APIRoute.agentId(of: request) else { return nil }
        return configuration.agents.first { $0.id == id }
    }

    /// POST /agents/{agentId}/chat for a model agent (the body as for ``chat(_:_:)``).
    func modelChat(_ agent: AgentDefinition, _ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let chat = try chatRequest(request)
        let (caller, fault, message, conversationId, clientMessageId) =
            (chat.caller, chat.fault, chat.message, chat.conversationId, chat.clientMessageId)
        // A resend is answered from what is stored: the upstream is not asked twice.
        if let clientMessageId, message != nil,
            let replay = try store.read({
                try Self.replay(clientMessageId, conversationId: conversationId, caller: caller, $0)
            })
        {
            return try answer(
                .replay(replay.plan, replay.metadata, replay.reply), place: chat.place, fault: fault, writer)
        }
        let history = try conversationId.map { id in
            try store.read { store in
                let conversation = try store.conversation(id, for: caller)
                guard conversation.status == "ongoing" else { throw APIError.notOngoing }
                return try store.messages(of: id)
            }
        }
        var messages = (history ?? []).compactMap(Self.providerMessage)
        if let message { messages.append(ProviderRequest.Message(role: .user, parts: [.text(message)])) }
        // No request goes upstream for a reply the generating budget would refuse.
        try replies.checkRoom(for: configuration.replies.modelReplyBytes)
        let upstream = try openUpstream(agent, messages: messages)
        let now = Self.now
        let outcome: ChatOutcome
        do {
            outcome = try write { store -> ChatOutcome in
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
                        id: Self.newID(), role: "user", parts: [AssembledPart.text(message).jsonValue], to: id,
                        now: now, clientMessageId: clientMessageId)
                    userSequence = stored.sequence
                    if try store.conversation(id)?.title == nil { try store.setTitle(Self.title(for: message), of: id) }
                }
                return try reply(
                    ReplyPlan(parts: [], finishReason: "stop"), reserving: configuration.replies.modelReplyBytes,
                    id: Self.newID(), in: id, replyTo: userSequence, stream: true, caller: caller, store)
            }
        } catch {
            upstream.body.close()
            throw error
        }
        try answer(from: upstream, agent, outcome, place: chat.place, fault: fault, writer)
    }

    /// Answers a model agent's chat or retry once its reply is stored as generating: streamed, the
    /// upstream is read on a thread of its own and the request is one reader of the run; not
    /// streamed, it is read to its end here and the stored reply is answered whole. Streamed when
    /// `place` (the stream caps' place the request took) is given.
    func answer(
        from upstream: UpstreamResponse, _ agent: AgentDefinition, _ outcome: ChatOutcome, place: StreamPlace?,
        fault: ChatAPIServer.Fault, _ writer: HTTPServerResponseWriter
    ) throws {
        var upstream = upstream
        guard case .generate(_, let run) = outcome else { return upstream.body.close() }
        if let place {
            let response = upstream
            let thread = Thread { [self] in
                var response = response
                generate(from: &response, agent, into: run)
            }
            thread.name = "reply \(run.messageId)"
            thread.stackSize = 256 * 1024
            thread.start()
            try streamReply(run, after: 0, fault: fault, place: place, writer)
            return
        }
        generate(from: &upstream, agent, into: run)
        let stored = try store.read { try $0.message(run.messageId, in: run.metadata.conversationId) }
        let finishReason = try store.read { try $0.finishReason(ofMessage: run.sequence) } ?? "stop"
        try respond(
            stored?.parts ?? [], run.metadata, finishReason: finishReason, aborted: stored?.replyState == .stopped,
            writer: writer)
    }

    /// The bytes of parts the identity `ownerKey` may still store (its quota, and the store's
    /// budget, less what is stored now and less what the reply's live events take when it ends);
    /// a model's reply is cut there. Unbounded when the store cannot say (storing the reply then
    /// fails and says so).
    func storableBytes(for ownerKey: String) -> Int {
        let quotas = configuration.quotas
        // The reply's end records its message and the conversation's last message for live
        // subscribers: each whole up to inlineMessageBytes, else a preview of 1,000 characters.
        let events = 2 * max(configuration.liveEvents.inlineMessageBytes, 4000) + 1024
        let left = try? store.read { store -> Int in
            var left = quotas.storedBytesPerIdentity - (try store.usage(of: ownerKey).bytes)
            if let budget = quotas.storeBudgetBytes { left = min(left, budget - (try store.databaseBytes())) }
            return left - events
        }
        return max(0, left ?? .max)
    }

    /// A stored message as the upstream request takes it; nil for one that says nothing.
    static func providerMessage(_ record: MessageRecord) -> ProviderRequest.Message? {
        let parts = record.parts.map(AssembledPart.init(json:))
        guard !parts.isEmpty else { return nil }
        return ProviderRequest.Message(role: record.isFromUser ? .user : .assistant, parts: parts)
    }

    /// Sends the agent's request with `messages` and reads the answer's head; a refusal is thrown
    /// as the API's error (429 with the upstream's Retry-After, others 502, a timeout 504).
    func openUpstream(_ agent: AgentDefinition, messages: [ProviderRequest.Message]) throws -> UpstreamResponse {
        let upstream = agent.upstream
        let request = ProviderRequest(
            family: upstream.family, model: upstream.model, systemPrompt: agent.systemPrompt, messages: messages,
            tools: agent.actions, maxTokens: upstream.maxTokens)
        let key = upstream.apiKeyEnv.flatMap { configuration.environment($0) }
        var response: UpstreamResponse
        do {
            response = try UpstreamHTTP.post(
                request.url(baseURL: upstream.baseURL), headers: request.headers(apiKey: key),
                body: request.body.jsonBytes, timeout: upstream.timeout, caFile: upstream.caFile)
        } catch {
            throw APIError.upstream(status: error.timedOut ? 504 : 502, "the agent's model server failed: \(error)")
        }
        guard (200..<300).contains(response.status) else {
            let text = String(decoding: response.body.rest(limit: 2048), as: UTF8.self)
            response.body.close()
            let detail = "the agent's model server answered \(response.status): \(text.prefix(500))"
            if response.status == 429 {
                var error = APIError(status: 429, code: "RATE_LIMIT_TOO_MANY_REQUESTS", message: detail)
                error.headers = [("Retry-After", response.header("retry-after") ?? "2")]
                throw error
            }
            throw APIError.upstream(status: 502, detail)
        }
        return response
    }

    /// Reads the upstream's stream into `run` until it ends, fails, or the run is stopped; stores
    /// the reply once (but for a stop, which stores it itself) and closes the upstream connection.
    func generate(from upstream: inout UpstreamResponse, _ agent: AgentDefinition, into run: ReplyRun) {
        let conversationId = run.metadata.conversationId
        typing(conversationId, active: true)
        defer {
            typing(conversationId, active: false)
            upstream.body.close()
        }
        var encoder = UIMessageStreamEncoder()
        var assembler = MessageAssembler()
        var finishReason = "stop"
        var failure: String?
        let start = StreamMetadata(
            raw: [
                "conversationId": .string(conversationId), "messageId": .string(run.messageId),
                "userMessageId": run.metadata.userMessageId.map { .string($0) } ?? .null,
            ])
        var opening: [String] = []
        for event in [StreamEvent.messageStart(id: run.messageId), .metadata(start), .stepStart] {
            opening += encoder.payloads(for: event)
        }
        for payload in opening {
            guard run.append(payload, parts: []) else { return }
        }
        // The text so far is saved every checkpoint interval, so a crash keeps it (section 8).
        var appended = opening.count
        var lastSave = ContinuousClock.now
        var decoder = AnyStreamDecoder(format: agent.upstream.family.streamFormat)
        var choice = 0
        var limits = UpstreamReplyLimits(messageId: run.messageId, maxBytes: storableBytes(for: run.ownerKey))
        let heldBound = UpstreamReplyLimits.heldBound(reserved: run.plannedBytes)
        var events: [StreamEvent] = []
        let stopped = { run.phase != .generating }
        reading: while true {
            let piece: [UInt8]?
            do {
                piece = try upstream.body.next(shouldStop: stopped)
            } catch {
                if stopped() { return }
                failure = error.message
                break
            }
            if stopped() { return }
            events.removeAll(keepingCapacity: true)
            do {
                if let piece {
                    try decoder.feed(piece, into: &events)
                } else {
                    try decoder.finish(into: &events)
                }
            } catch {
                failure = "the model server's stream could not be read: \(StreamError(converting: error))"
            }
            for event in events {
                switch event {
                case .choice(let index): choice = index
                case _ where choice != 0: continue
                case .messageStart, .conversationAssigned, .metadata, .stepStart, .stepFinish, .done: continue
                case .finish(let reason, let raw): finishReason = reason?.rawValue ?? raw ?? "stop"
                case .error(let info):
                    failure = "the model server reported an error: \(info.message)"
                    break reading
                default:
                    let admitted: StreamEvent
                    do {
                        admitted = try limits.admit(event)
                    } catch {
                        failure = error.message
                        break reading
                    }
                    // Whole events only, so what was sent and what is stored stay equal.
                    let payloads = encoder.payloads(for: admitted)
                    guard run.heldBytes + UpstreamReplyLimits.sseBytes(payloads) <= heldBound else {
                        failure =
                            "the model's reply passed the \(run.plannedBytes) bytes a reply may hold "
                            + "(replies.modelReplyBytes); it was cut there"
                        break reading
                    }
                    assembler.apply(admitted)
                    let parts = assembler.message.parts.map(\.jsonValue)
                    for payload in payloads {
                        guard run.append(payload, parts: parts) else { return }
                    }
                    appended += payloads.count
                    if ContinuousClock.now - lastSave >= configuration.replies.checkpointInterval {
                        _ = try? store.write(recordingEvents: false) { store in
                            try store.saveReplyProgress(parts, events: appended, ofMessage: run.sequence)
                        }
                        lastSave = .now
                    }
                }
            }
            if failure != nil || piece == nil { break }
        }
        let parts = assembler.message.parts.map(\.jsonValue)
        if failure == nil {
            guard run.append(#"{"type":"finish-step"}"#, parts: parts) else { return }
        } else {
            finishReason = "error"
        }
        guard let (_, count) = run.claimEnd(as: nil) else { return }
        let stored = StoredParts(parts)
        do {
            try store.write { store in
                try store.setFinishReason(finishReason, ofMessage: run.sequence)
                _ = try store.endReply(stored, state: nil, events: count + 2, ofMessage: run.sequence, now: Self.now)
            }
        } catch {
            failure = failure ?? "the reply could not be stored: \(error)"
        }
        if let failure {
            let chunk: JSONTree = ["type": "error", "errorText": .string(failure), "code": "CHAT_STREAMING_ERROR"]
            run.end(appending: [chunk.jsonText, "[DONE]"])
        } else {
            let finish: JSONTree = [
                "type": "finish", "finishReason": .string(finishReason),
                "messageMetadata": run.metadata.finishMetadata(reason: finishReason),
            ]
            run.end(appending: [finish.jsonText, "[DONE]"])
        }
    }
}

extension APIError {
    /// An upstream failure before the reply began: 502 (or 504 for a timeout) `CHAT_STREAMING_ERROR`.
    static func upstream(status: Int, _ message: String) -> APIError {
        APIError(status: status, code: "CHAT_STREAMING_ERROR", message: message)
    }
}

extension StoreTransaction {
    /// Sets a reply's finish reason (known only once its upstream stream finished).
    func setFinishReason(_ reason: String, ofMessage sequence: Int) throws {
        try database.run("UPDATE messages SET finish_reason = ?2 WHERE seq = ?1", [sequence, reason])
    }

    /// A message's stored finish reason.
    func finishReason(ofMessage sequence: Int) throws -> String? {
        try database.first("SELECT finish_reason FROM messages WHERE seq = ?1", [sequence]) { $0.optionalText(0) }
            ?? nil
    }
}
