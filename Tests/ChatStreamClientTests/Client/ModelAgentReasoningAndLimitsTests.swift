// Agents backed by a model, end to end through ConversationState (issue 33, item 5): an upstream's
// reasoning reaches the app (the reply's assembled parts, as streamed and as read back from
// history), and an upstream 429 reaches the app as the API's rate-limit error carrying the
// upstream's Retry-After, which the client honours when it retries within its budget.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Model agents: reasoning and rate limits end to end", .blockingAllowed)
@MainActor
struct ModelAgentReasoningAndLimitsTests {
    static let thinking: [(agent: String, format: StreamFormat, path: String)] = [
        ("openai-agent", .openAIChat, "vendor-streams/openai-chat/deepseek__thinking.sse"),
        ("anthropic-agent", .anthropic, "vendor-streams/anthropic/anthropic__thinking.sse"),
    ]

    /// The reasoning texts of `parts`, in order.
    static func reasoning(_ parts: [AssembledPart]) -> [String] {
        parts.compactMap { part in
            if case .reasoning(let text) = part { return text }
            return nil
        }
    }

    @Test(arguments: [0, 1])
    func theAppSeesTheUpstreamsReasoningAsStreamedAndFromHistory(_ family: Int) async throws {
        let (agent, format, path) = Self.thinking[family]
        let (provider, server, client) = try ModelAgentConversationTests.start(agent: agent)
        defer {
            server.stop()
            provider.stop()
        }
        let recorded = try ModelAgentConversationTests.recorded(path, format)
        let expected = Self.reasoning(recorded.parts)
        #expect(!expected.isEmpty && !expected.joined().isEmpty)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/" + path)))
        for chunking in Chunkings.all(of: bytes, seeds: [3]) {
            provider.enqueue(MockProvider.Answer(pieces: chunking.pieces))
            let state = ConversationState(client: client)
            var replies: [ChatResponse] = []
            state.onReply = { replies.append($0) }
            await state.sendMessage("Hello")
            #expect(state.error == nil, "\(chunking)")
            #expect(
                ModelAgentConversationTests.shown(state.messages) == ["user: Hello", "agent: \(recorded.text)"],
                "\(chunking)")
            let reply = try #require(replies.first, "\(chunking)")
            #expect(Self.reasoning(reply.assembledMessage.parts) == expected, "\(chunking)")
            let history = try await client.listMessages(conversationId: try #require(state.conversationId))
            #expect(Self.reasoning(history.data.last?.assembledParts ?? []) == expected, "\(chunking)")
            #expect(history.data.last?.text == recorded.text, "\(chunking)")
        }
    }

    @Test(arguments: [0, 1])
    func anUpstream429ReachesTheAppWithItsRetryAfter(_ family: Int) async throws {
        let (agent, _, _) = Self.thinking[family]
        let (provider, server, client) = try ModelAgentConversationTests.start(agent: agent)
        defer {
            server.stop()
            provider.stop()
        }
        // Far longer than the client's whole retry budget (30 s): it is not waited, the app gets it.
        provider.enqueue(
            MockProvider.Answer(
                status: 429, headers: [("Retry-After", "3600"), ("Content-Type", "application/json")],
                pieces: [Array(#"{"error":{"type":"rate_limit_error","message":"slow down"}}"#.utf8)]))
        let state = ConversationState(client: client)
        let started = ContinuousClock.now
        await state.sendMessage("Hello")
        // Not waited: far under the hour (a full suite on two busy cores stalled tests for over 190 s).
        #expect(ContinuousClock.now - started < .seconds(1200))
        let error = try #require(state.error as? APIError, "\(String(describing: state.error))")
        #expect(error.statusCode == 429)
        #expect(error.apiCode == "RATE_LIMIT_TOO_MANY_REQUESTS")
        #expect(error.retryAfter == 3600)
        #expect(provider.received.count == 1)
        // Nothing was stored on the server.
        #expect(try await client.listConversations().data.isEmpty)
    }

    @Test func aShortRetryAfterIsWaitedAndTheResendSucceeds() async throws {
        let (provider, server, client) = try ModelAgentConversationTests.start(agent: "openai-agent")
        defer {
            server.stop()
            provider.stop()
        }
        let path = "vendor-streams/openai-chat/huggingface-novita__text.sse"
        provider.enqueue(
            MockProvider.Answer(status: 429, headers: [("Retry-After", "1")], pieces: [Array("busy".utf8)]))
        provider.enqueue(.recording(path))
        let state = ConversationState(client: client)
        let started = ContinuousClock.now
        await state.sendMessage("What is 1 + 1?")
        let waited = ContinuousClock.now - started
        #expect(state.error == nil)
        #expect(waited >= .seconds(1), "the upstream's Retry-After was not waited: \(waited)")
        let expected = try ModelAgentConversationTests.recorded(path, .openAIChat).text
        #expect(ModelAgentConversationTests.shown(state.messages) == ["user: What is 1 + 1?", "agent: \(expected)"])
        #expect(provider.received.count == 2)
        // One conversation with one exchange: the refused attempt stored nothing.
        let history = try await client.listMessages(conversationId: try #require(state.conversationId))
        #expect(history.data.count == 2)
    }
}
