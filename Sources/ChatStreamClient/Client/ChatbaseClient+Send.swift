// Sending: one round is one POST (chat, continue, or retry) and its reply; the tool loop runs
// rounds until a reply does not end in tool calls, posting the client's tool results between
// them. `send` and `retry` drain the loop, calling the StreamCallbacks, and return the response;
// `updates(sending:)` and `updates(retrying:)` expose the same rounds as an AsyncThrowingStream
// of ChatUpdates; `sendNonStreaming` posts one non-streamed round and runs no tools.

import ChatStream
import Foundation

extension ChatbaseClient {
    /// What a round posts.
    enum Round: Sendable {
        /// `POST chat`: a message (nil: continue after tool results) with the client's ID for it
        /// (the same on every resend of that message; nil for a continuation).
        case chat(message: String?, conversationId: String?, clientMessageId: String? = nil)
        /// `POST conversations/{id}/retry`.
        case retry(conversationId: String, messageId: String)

        var conversationId: String? {
            switch self {
            case .chat(_, let id, _): return id
            case .retry(let id, _): return id
            }
        }
    }

    /// Sends `message`, streams the reply into `configure`'s callbacks, runs the registered tools
    /// (posting their results and continuing) and returns the finished response. Returns only
    /// when the reply is complete; throws ``APIError`` or ``ChatError``.
    ///
    /// `conversationId: nil` always starts a new conversation (it never falls back to
    /// ``currentConversationId``).
    ///
    /// The message goes with a `clientMessageId` (a fresh UUID unless `clientMessageId` names
    /// one), the same on every retry of it, so a server with idempotent sends stores it once
    /// however often it arrives; a server without them ignores it.
    ///
    /// ```swift
    /// let response = try await client.send("Tell me a story") { callbacks in
    ///     callbacks.onTextDelta = { chunk in print(chunk, terminator: "") }
    /// }
    /// print(response.conversationId)
    /// ```
    @discardableResult
    public func send(
        _ message: String, conversationId: String? = nil, clientMessageId: String? = nil,
        configure: @Sendable (inout StreamCallbacks) -> Void = { _ in }
    ) async throws -> ChatResponse {
        try await send(
            message, conversationId: conversationId, clientMessageId: clientMessageId, outbox: nil,
            configure: configure)
    }

    /// ``send(_:conversationId:clientMessageId:configure:)`` under `outbox` (nil: ``outboxPolicy``).
    func send(
        _ message: String, conversationId: String?, clientMessageId: String?, outbox: OutboxPolicy?,
        configure: @Sendable (inout StreamCallbacks) -> Void
    ) async throws -> ChatResponse {
        var callbacks = StreamCallbacks()
        configure(&callbacks)
        return try await runLoop(
            from: .chat(
                message: message, conversationId: conversationId,
                clientMessageId: clientMessageId ?? Self.newClientMessageId()),
            streaming: true, outbox: outbox, emit: Self.calling(callbacks))
    }

    /// Regenerates the reply to the user message before `messageId`, as ``send(_:conversationId:clientMessageId:configure:)``
    /// does (tools included).
    ///
    /// ```swift
    /// let response = try await client.retry(conversationId: id, messageId: reply.id)
    /// ```
    @discardableResult
    public func retry(
        conversationId: String, messageId: String, configure: @Sendable (inout StreamCallbacks) -> Void = { _ in }
    ) async throws -> ChatResponse {
        var callbacks = StreamCallbacks()
        configure(&callbacks)
        return try await runLoop(
            from: .retry(conversationId: conversationId, messageId: messageId), streaming: true,
            emit: Self.calling(callbacks))
    }

    /// Sends `message` without streaming and returns the whole reply in one answer. The tool
    /// loop does not run: a reply that asks for tools is returned as it is, with
    /// ``FinishReason/toolCalls``.
    ///
    /// ```swift
    /// let response = try await client.sendNonStreaming("Hello", conversationId: id)
    /// print(response.message.text, response.finishReason, response.usage.credits)
    /// ```
    @discardableResult
    public func sendNonStreaming(
        _ message: String, conversationId: String? = nil, clientMessageId: String? = nil
    ) async throws -> ChatResponse {
        let round = Round.chat(
            message: message, conversationId: conversationId,
            clientMessageId: clientMessageId ?? Self.newClientMessageId())
        let reply = try await throughOutbox(round, policy: outboxPolicy) { round, accepted in
            try await intoKnownConversation(round) { round in
                try await ReplyRunner(client: self).plainRound(round, index: 0, accepted: accepted) { _ in }
            }
        }
        guard let id = reply.conversationId ?? conversationId else { throw ChatError.noContent }
        // The SDK reads a non-streamed reply's text as it reads history: text parts one per line.
        let response = ChatResponse(
            assembled: reply, conversationId: id, userMessageId: reply.userMessageId, text: Message.sdkText(reply.parts)
        )
        recordReply(response, to: round)
        return response
    }

    /// Every step of the reply to `message` and of its tool rounds, as an async sequence of
    /// updates (each event with the round's message as it stands). ChatStream's own; it runs the
    /// same tool loop as ``send(_:conversationId:clientMessageId:configure:)``.
    ///
    /// Stopping iteration (or cancelling the task) cancels the request.
    ///
    /// ```swift
    /// for try await update in client.updates(sending: "Hi") {
    ///     if case .textDelta(_, let delta) = update.event { print(delta, terminator: "") }
    /// }
    /// ```
    public func updates(sending message: String, conversationId: String? = nil) -> AsyncThrowingStream<
        ChatUpdate, any Error
    > {
        updates(
            from: .chat(message: message, conversationId: conversationId, clientMessageId: Self.newClientMessageId()),
            streaming: true)
    }

    /// Every step of a regenerated reply, as ``updates(sending:conversationId:)`` gives them.
    public func updates(retrying messageId: String, conversationId: String) -> AsyncThrowingStream<
        ChatUpdate, any Error
    > {
        updates(from: .retry(conversationId: conversationId, messageId: messageId), streaming: true)
    }

    /// Registers (or replaces) the handler for tool `name`, run when a reply asks for it.
    ///
    /// ```swift
    /// client.tool("get_weather") { input in
    ///     .object(["city": input["city"] ?? .null, "temperature": .int(21)])
    /// }
    /// ```
    public func tool(_ name: String, handler: @escaping ToolHandler) {
        withState { $0.tools[name] = handler }
    }

    /// Removes the handler for tool `name`.
    public func removeTool(_ name: String) {
        withState { $0.tools[name] = nil }
    }

    /// The update handler that calls `callbacks`: text deltas, tool calls once their input is
    /// complete, and final tool results (the server's, and the client's once posted).
    static func calling(_ callbacks: StreamCallbacks) -> @Sendable (ChatUpdate) async -> Void {
        { update in
            switch update.event {
            case .textDelta(_, let delta): await callbacks.onTextDelta?(delta)
            case .toolInputAvailable(let id, let name, let input):
                await callbacks.onToolCall?(ToolCallInfo(toolCallId: id, toolName: name, input: JSONValue(input)))
            case .messageStart, .conversationAssigned:
                if let reply = update.message.id, let conversation = update.message.conversationId {
                    await callbacks.onReplyNamed?(conversation, reply)
                }
            case .toolResult(let id, let name, let output, false):
                await callbacks.onToolResult?(
                    ToolResultInfo(toolCallId: id, toolName: name ?? "", output: JSONValue(output)))
            default: break
            }
        }
    }

    func updates(from round: Round, streaming: Bool) -> AsyncThrowingStream<ChatUpdate, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    _ = try await self.runLoop(from: round, streaming: streaming) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Runs rounds until a reply does not end in tool calls that the client must answer (a
    /// ``ReplyRunner``), through the outbox `outbox` names (nil: ``outboxPolicy``).
    func runLoop(
        from first: Round, streaming: Bool, outbox: OutboxPolicy? = nil, emit: (ChatUpdate) async -> Void
    ) async throws -> ChatResponse {
        try await throughOutbox(first, policy: outbox ?? outboxPolicy) { first, accepted in
            try await ReplyRunner(client: self).run(from: first, streaming: streaming, accepted: accepted, emit: emit)
        }
    }

    /// Files a finished reply in the store, with the user's message the first round sent.
    func recordReply(_ response: ChatResponse, to first: Round) {
        guard store != nil else { return }
        switch first {
        case .chat(let text, _, let clientMessageId):
            record(reply: response, userText: text, clientMessageId: clientMessageId)
        case .retry(_, let messageId):
            record(reply: response, userText: nil, clientMessageId: nil, retried: messageId)
        }
    }

    /// A fresh `clientMessageId`: a random UUID v4, lowercase (PROTOCOLS.md section 6).
    static func newClientMessageId() -> String { UUID().uuidString.lowercased() }

    /// Whether sending `round` twice stores nothing twice: a chat carrying its `clientMessageId`.
    static func isIdempotent(_ round: Round) -> Bool {
        if case .chat(_, _, let id?) = round { return !id.isEmpty }
        return false
    }

    /// The request of a streamed `round` (only events keep its reply alive, see EventIdleWatch:
    /// PROTOCOLS.md has no heartbeat for chat streams).
    func streamRequest(_ round: Round) throws -> HTTPRequest {
        try roundRequest(round, streaming: true)
    }

    func roundRequest(_ round: Round, streaming: Bool) throws -> HTTPRequest {
        let accept = streaming ? "text/event-stream" : "application/json"
        switch round {
        case .chat(let message, let conversationId, let clientMessageId):
            var body = JSONObject()
            if let message { body["message"] = .string(message) }
            if let clientMessageId { body["clientMessageId"] = .string(clientMessageId) }
            if let conversationId { body["conversationId"] = .string(conversationId) }
            body["stream"] = .bool(streaming)
            return try request("POST", ["chat"], body: .object(body), accept: accept)
        case .retry(let conversationId, let messageId):
            return try request(
                "POST", ["conversations", conversationId, "retry"],
                body: ["messageId": .string(messageId), "stream": .bool(streaming)], accept: accept)
        }
    }

}
