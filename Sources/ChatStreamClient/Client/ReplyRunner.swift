// ReplyRunner: one send or retry of ChatbaseClient, as rounds. A round is one POST (chat,
// continuation or retry) and its reply; the tool loop runs rounds until a reply does not end in
// tool calls the client must answer, running the registered tools and posting their results
// between rounds. A streamed round resumes a broken reply on its own (ReplyRunner+Stream), or
// completes it from history (ReplyRunner+History); a non-streamed round reads the whole reply at
// once. The runner holds no state of its own: it is made per send, over its client.

import ChatStream
import Foundation

/// Runs the rounds of one send or retry of `client`: the tool loop, streamed and non-streamed
/// rounds, and the resumption of a broken reply.
struct ReplyRunner: Sendable {
    typealias Round = ChatbaseClient.Round

    /// The client whose requests, tools, retry policy and store the rounds use.
    let client: ChatbaseClient
    /// The clock of the replies' idle timeout (tests pass their own).
    var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
}

extension ReplyRunner {
    /// Runs rounds from `first` until a reply does not end in tool calls the client must answer,
    /// running those tools and posting their results between rounds; `accepted` is called once
    /// the server took the first round.
    func run(
        from first: Round, streaming: Bool, accepted: @escaping @Sendable () -> Void,
        emit: (ChatUpdate) async -> Void
    ) async throws -> ChatResponse {
        var round = first
        var index = 0
        var userMessageId: String? = nil
        var conversationId = first.conversationId
        // Every round's parts, in order: the response's text joins every round's text.
        var merged: AssembledMessage? = nil
        while true {
            var onAccepted: @Sendable () -> Void = {}
            if index == 0 { onAccepted = accepted }
            var message = try await client.intoKnownConversation(round) { round in
                streaming
                    ? try await streamRound(round, index: index, accepted: onAccepted, emit: emit)
                    : try await plainRound(round, index: index, accepted: onAccepted, emit: emit)
            }
            if let id = message.conversationId { conversationId = id }
            if userMessageId == nil { userMessageId = message.userMessageId }
            let answered = Set(
                message.parts.compactMap { part -> String? in
                    if case .toolResult(let result) = part { return result.toolCallId }
                    return nil
                })
            let calls = message.toolCalls.filter { !$0.providerExecuted && !answered.contains($0.toolCallId) }
            guard message.finishReason == .toolCalls, !calls.isEmpty else {
                guard let conversationId else { throw ChatError.noContent }
                let response = ChatResponse(
                    assembled: Self.merge(merged, message), conversationId: conversationId, userMessageId: userMessageId
                )
                client.recordReply(response, to: first)
                return response
            }
            guard let conversationId else { throw ChatError.noContent }
            for call in calls {
                try Task.checkCancellation()
                let output = try await runTool(call)
                try await postToolResult(conversationId: conversationId, toolCallId: call.toolCallId, output: output)
                // Reported once the server has the result.
                let result = ToolResultPart(toolCallId: call.toolCallId, toolName: call.toolName, output: output)
                message.parts.append(.toolResult(result))
                await emit(
                    ChatUpdate(
                        event: .toolResult(
                            id: call.toolCallId, name: call.toolName, output: output, preliminary: false),
                        message: message, round: index))
            }
            merged = Self.merge(merged, message)
            // As the SDK counts: `maxToolLoopSteps` chat requests at most, so the limit ends the
            // loop before a request past it is sent.
            guard index + 1 < client.maxToolLoopSteps else {
                throw ChatError.toolLoopLimitExceeded(limit: client.maxToolLoopSteps)
            }
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

    /// Runs the registered handler; an unknown tool or a throwing handler gives `{"error": ...}`
    /// (a cancelled one ends the send).
    func runTool(_ call: ToolCallPart) async throws -> JSONTree {
        guard let handler = client.withState({ $0.tools[call.toolName] }) else {
            return ["error": .string("no handler is registered for tool \(call.toolName)")]
        }
        do {
            return try await handler(JSONValue(call.input)).jsonTree
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return ["error": .string(error.localizedDescription)]
        }
    }

    /// Posts one tool result (idempotent: the same call's result again changes nothing), retried
    /// under ``ChatbaseClient/retryPolicy``.
    func postToolResult(conversationId: String, toolCallId: String, output: JSONTree) async throws {
        _ = try await client.performForBytes(
            "POST", ["conversations", conversationId, "tool-result"],
            body: ["toolCallId": .string(toolCallId), "output": output], extensionRoute: false, idempotent: true)
    }

    /// One non-streamed round: the whole reply at once, emitted as synthetic events.
    func plainRound(
        _ round: Round, index: Int, accepted: @Sendable () -> Void = {}, emit: (ChatUpdate) async -> Void
    ) async throws -> AssembledMessage {
        let response = try await client.perform(
            try client.roundRequest(round, streaming: false), extensionRoute: false,
            idempotent: ChatbaseClient.isIdempotent(round))
        accepted()
        let bytes: [UInt8]
        do {
            bytes = try await response.body.collect(upTo: 64 << 20)
        } catch {
            throw ErrorMapping.wrapping(error)
        }
        var message = try WireDecoding.chatMessage(bytes)
        if message.conversationId == nil { message.conversationId = round.conversationId }
        if let userId = message.metadata?["userId"]?.stringValue { client.rememberUserId(userId) }
        if let id = message.conversationId {
            client.noteConversation(id)
            await emit(ChatUpdate(event: .conversationAssigned(id: id), message: message, round: index))
        }
        for part in message.parts {
            switch part {
            case .text(let text):
                await emit(
                    ChatUpdate(event: .textDelta(id: message.id ?? "text", delta: text), message: message, round: index)
                )
            case .toolCall(let call):
                await emit(
                    ChatUpdate(
                        event: .toolInputAvailable(id: call.toolCallId, name: call.toolName, input: call.input),
                        message: message, round: index))
            case .toolResult(let result):
                await emit(
                    ChatUpdate(
                        event: .toolResult(
                            id: result.toolCallId, name: result.toolName, output: result.output, preliminary: false),
                        message: message, round: index))
            default: break
            }
        }
        await emit(
            ChatUpdate(
                event: .finish(reason: message.finishReason, rawReason: message.rawFinishReason), message: message,
                round: index))
        return message
    }
}
