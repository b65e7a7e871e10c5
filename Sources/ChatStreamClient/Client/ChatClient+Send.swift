// Sending: one round is one POST (chat, continue, or retry) and its reply; the tool loop runs
// rounds until a reply does not end in tool calls, posting the client's tool results between
// them. `send` exposes the rounds as an AsyncThrowingStream of ChatUpdates; `sendMessage`
// drains the same loop and returns the final reply.

import ChatStream
import Foundation

extension ChatClient {
    /// What a round posts.
    enum Round: Sendable {
        /// `POST chat`: a message (nil: continue after tool results).
        case chat(message: String?, conversationId: String?)
        /// `POST conversations/{id}/retry`.
        case retry(conversationId: String, messageId: String)

        var conversationId: String? {
            switch self {
            case .chat(_, let id): return id
            case .retry(let id, _): return id
            }
        }
    }

    /// Streams the reply to `message`, then any tool-loop rounds.
    ///
    /// `conversationId: nil` always starts a new conversation; its ID arrives as a
    /// ``StreamEvent/conversationAssigned(id:)`` update and becomes ``currentConversationId``.
    /// Stopping iteration (or cancelling the task) cancels the request. Throws ``ChatError``.
    ///
    /// ```swift
    /// for try await update in client.send("Hi", conversationId: nil) {
    ///     if case .textDelta(_, let delta) = update.event { print(delta, terminator: "") }
    /// }
    /// ```
    public func send(_ message: String, conversationId: String? = nil) -> AsyncThrowingStream<ChatUpdate, any Error> {
        updates(from: .chat(message: message, conversationId: conversationId), streaming: true)
    }

    /// Regenerates the reply to the user message `messageId`, streamed as for ``send(_:conversationId:)``.
    public func retry(conversationId: String, messageId: String) -> AsyncThrowingStream<ChatUpdate, any Error> {
        updates(from: .retry(conversationId: conversationId, messageId: messageId), streaming: true)
    }

    /// Sends `message` and returns the finished reply, after running any tool loop.
    ///
    /// - Parameters:
    ///   - streaming: `true` (default) posts `stream: true` and calls the callbacks as deltas
    ///     arrive; `false` posts `stream: false` and calls them once the whole reply is in.
    ///   - onTextDelta: each piece of reply text.
    ///   - onToolCall: each tool call, once its input is complete.
    ///   - onToolResult: each tool result (the server's and the client's own handlers').
    ///
    /// ```swift
    /// let response = try await client.sendMessage("Weather in Paris?", onTextDelta: { print($0, terminator: "") })
    /// print("\nconversation", response.conversationId)
    /// ```
    @discardableResult
    public func sendMessage(
        _ message: String, conversationId: String? = nil, streaming: Bool = true,
        onTextDelta: (@Sendable (String) -> Void)? = nil, onToolCall: (@Sendable (ToolCallPart) -> Void)? = nil,
        onToolResult: (@Sendable (ToolResultPart) -> Void)? = nil
    ) async throws -> ChatResponse {
        try await runLoop(from: .chat(message: message, conversationId: conversationId), streaming: streaming) {
            update in
            switch update.event {
            case .textDelta(_, let delta): onTextDelta?(delta)
            case .toolInputAvailable(let id, let name, let input):
                onToolCall?(ToolCallPart(toolCallId: id, toolName: name, input: input))
            case .toolResult(let id, let name, let output, false):
                onToolResult?(ToolResultPart(toolCallId: id, toolName: name ?? "", output: output))
            default: break
            }
        }
    }

    /// Registers (or replaces) the handler for tool `name`, run when a reply ends in tool calls.
    ///
    /// ```swift
    /// client.registerTool("get_weather") { input in
    ///     ["city": input["city"] ?? .null, "temperature": 21]
    /// }
    /// ```
    public func registerTool(_ name: String, handler: @escaping ToolHandler) {
        withState { $0.tools[name] = handler }
    }

    /// Removes the handler for tool `name`.
    public func unregisterTool(_ name: String) {
        withState { $0.tools[name] = nil }
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

    /// Runs rounds until a reply does not end in tool calls that the client must answer.
    func runLoop(
        from first: Round, streaming: Bool, emit: (ChatUpdate) -> Void
    ) async throws -> ChatResponse {
        var round = first
        var index = 0
        var userMessageId: String? = nil
        var conversationId = first.conversationId
        // Every round's parts, in order: the response's text joins every round's text.
        var merged: AssembledMessage? = nil
        while true {
            var message =
                streaming
                ? try await streamRound(round, index: index, emit: emit)
                : try await plainRound(round, index: index, emit: emit)
            if let id = message.conversationId { conversationId = id }
            if userMessageId == nil { userMessageId = message.userMessageId }
            let answered = Set(
                message.parts.compactMap { part -> String? in
                    if case .toolResult(let result) = part { return result.toolCallId }
                    return nil
                })
            let calls = message.toolCalls.filter { !$0.providerExecuted && !answered.contains($0.toolCallId) }
            guard message.finishReason == .toolCalls, !calls.isEmpty else {
                guard let conversationId else {
                    throw ChatError(.decoding, "the reply did not say which conversation it belongs to")
                }
                return ChatResponse(
                    assembled: Self.merge(merged, message), conversationId: conversationId,
                    userMessageId: userMessageId)
            }
            guard let conversationId else {
                throw ChatError(.decoding, "the reply asked for tools but did not name its conversation")
            }
            guard index < maxToolLoopSteps else {
                throw ChatError(
                    .toolLoopLimitExceeded,
                    "the agent still asked for tools after \(maxToolLoopSteps) tool-loop rounds",
                    partialMessage: message)
            }
            for call in calls {
                try Task.checkCancellation()
                let output = await runTool(call)
                let result = ToolResultPart(toolCallId: call.toolCallId, toolName: call.toolName, output: output)
                message.parts.append(.toolResult(result))
                emit(
                    ChatUpdate(
                        event: .toolResult(
                            id: call.toolCallId, name: call.toolName, output: output, preliminary: false),
                        message: message, round: index))
                try await postToolResult(conversationId: conversationId, toolCallId: call.toolCallId, output: output)
            }
            merged = Self.merge(merged, message)
            index += 1
            round = .chat(message: nil, conversationId: conversationId)
        }
    }

    /// `round` appended to the rounds before it: their parts then its parts, its ID (when it has
    /// one), finish, usage and metadata.
    static func merge(_ earlier: AssembledMessage?, _ round: AssembledMessage) -> AssembledMessage {
        guard var merged = earlier else { return round }
        merged.parts += round.parts
        merged.id = round.id ?? merged.id
        merged.conversationId = round.conversationId ?? merged.conversationId
        merged.userMessageId = merged.userMessageId ?? round.userMessageId
        merged.finishReason = round.finishReason
        merged.rawFinishReason = round.rawFinishReason
        merged.usage = round.usage
        merged.metadata = round.metadata ?? merged.metadata
        merged.error = round.error
        merged.isFinished = round.isFinished
        return merged
    }

    /// Runs the registered handler; an unknown tool or a throwing handler gives `{"error": ...}`.
    func runTool(_ call: ToolCallPart) async -> JSONTree {
        guard let handler = withState({ $0.tools[call.toolName] }) else {
            return ["error": .string("unknown tool \(call.toolName)")]
        }
        do {
            return try await handler(call.input)
        } catch {
            return ["error": .string("\(error)")]
        }
    }

    /// Posts one tool result, retrying transient failures with exponential backoff.
    func postToolResult(conversationId: String, toolCallId: String, output: JSONTree) async throws {
        var delay = retryPolicy.baseDelay
        var attempt = 1
        while true {
            do {
                _ = try await performForBytes(
                    "POST", ["conversations", conversationId, "tool-result"],
                    body: ["toolCallId": .string(toolCallId), "output": output], extensionRoute: false)
                return
            } catch let error as ChatError where error.isTransient && attempt < retryPolicy.maxAttempts {
                var wait = delay
                if let retryAfter = error.retryAfter {
                    wait = max(wait, .milliseconds(Int64(retryAfter * 1000)))
                }
                try await Task.sleep(for: min(wait, retryPolicy.maxDelay))
                delay = delay * 2
                attempt += 1
            }
        }
    }

    func roundRequest(_ round: Round, streaming: Bool) throws -> HTTPRequest {
        let accept = streaming ? "text/event-stream" : "application/json"
        switch round {
        case .chat(let message, let conversationId):
            var body = JSONObject()
            if let message { body["message"] = .string(message) }
            if let conversationId { body["conversationId"] = .string(conversationId) }
            body["stream"] = .bool(streaming)
            return try request("POST", ["chat"], body: .object(body), accept: accept)
        case .retry(let conversationId, let messageId):
            return try request(
                "POST", ["conversations", conversationId, "retry"],
                body: ["messageId": .string(messageId), "stream": .bool(streaming)], accept: accept)
        }
    }

    /// One streamed round: decode the UI message stream, assemble, emit an update per event.
    func streamRound(_ round: Round, index: Int, emit: (ChatUpdate) -> Void) async throws -> AssembledMessage {
        let response = try await perform(try roundRequest(round, streaming: true), extensionRoute: false)
        var assembler = MessageAssembler()
        do {
            for try await event in response.body.streamEvents(format: .uiMessageStream) {
                assembler.apply(event)
                if case .conversationAssigned(let id) = event { noteConversation(id) }
                emit(ChatUpdate(event: event, message: assembler.takeSnapshot(), round: index))
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            let streamError: StreamError
            var transportError: TransportError? = nil
            switch error {
            case let error as StreamError: streamError = error
            case let error as TransportError:
                if error.kind == .cancelled { throw CancellationError() }
                transportError = error
                streamError = StreamError(.truncated, message: "the connection broke mid-stream: \(error.message)")
            default: streamError = StreamError(converting: error)
            }
            let partial = assembler.finish(error: streamError)[0]
            throw ChatError(
                .stream, streamError.description, streamError: streamError, partialMessage: partial,
                transportError: transportError)
        }
        let message = assembler.finish()[0]
        if let info = message.error {
            let streamError = StreamError(.remote, message: info.message, code: info.code)
            throw ChatError(
                .stream, streamError.description, code: info.code, streamError: streamError, partialMessage: message)
        }
        if let id = message.conversationId { noteConversation(id) }
        if let userId = message.metadata?["userId"]?.stringValue { rememberUserId(userId) }
        return message
    }

    /// One non-streamed round: the whole reply at once, emitted as synthetic events.
    func plainRound(_ round: Round, index: Int, emit: (ChatUpdate) -> Void) async throws -> AssembledMessage {
        let response = try await perform(try roundRequest(round, streaming: false), extensionRoute: false)
        let bytes: [UInt8]
        do {
            bytes = try await response.body.collect(upTo: 64 << 20)
        } catch {
            throw ChatError.wrapping(error)
        }
        var message = try WireDecoding.chatMessage(bytes)
        if message.conversationId == nil { message.conversationId = round.conversationId }
        if let userId = message.metadata?["userId"]?.stringValue { rememberUserId(userId) }
        if let id = message.conversationId {
            noteConversation(id)
            emit(ChatUpdate(event: .conversationAssigned(id: id), message: message, round: index))
        }
        for part in message.parts {
            switch part {
            case .text(let text):
                emit(
                    ChatUpdate(event: .textDelta(id: message.id ?? "text", delta: text), message: message, round: index)
                )
            case .toolCall(let call):
                emit(
                    ChatUpdate(
                        event: .toolInputAvailable(id: call.toolCallId, name: call.toolName, input: call.input),
                        message: message, round: index))
            case .toolResult(let result):
                emit(
                    ChatUpdate(
                        event: .toolResult(
                            id: result.toolCallId, name: result.toolName, output: result.output, preliminary: false),
                        message: message, round: index))
            default: break
            }
        }
        emit(
            ChatUpdate(
                event: .finish(reason: message.finishReason, rawReason: message.rawFinishReason), message: message,
                round: index))
        return message
    }
}
