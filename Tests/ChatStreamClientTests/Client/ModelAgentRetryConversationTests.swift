// Retry for agents backed by a model, end to end through ConversationState (issue 33, item 1): the
// app's retry of the agent's reply is answered by the upstream again (MockProvider, both
// families), the rows show the new reply in place of the old one, and history equals the rows.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Model agents: retry end to end", .blockingAllowed)
@MainActor
struct ModelAgentRetryConversationTests {
    static let recordings: [(agent: String, format: StreamFormat, first: String, second: String)] = [
        (
            "openai-agent", .openAIChat, "vendor-streams/openai-chat/huggingface-novita__text.sse",
            "agents/streams/openai-chat-after-tools.sse"
        ),
        (
            "anthropic-agent", .anthropic, "vendor-streams/anthropic/anthropic__text.sse",
            "agents/streams/anthropic-after-tools.sse"
        ),
    ]

    @Test(arguments: [0, 1])
    func theAppsRetryIsAnsweredByTheUpstreamAgain(_ family: Int) async throws {
        let (agent, format, first, second) = Self.recordings[family]
        let (provider, server, client) = try ModelAgentConversationTests.start(agent: agent)
        defer {
            server.stop()
            provider.stop()
        }
        let firstText = try ModelAgentConversationTests.recorded(first, format).text
        let secondText = try ModelAgentConversationTests.recorded(second, format).text
        #expect(firstText != secondText)
        provider.enqueue(.recording(first))
        let state = ConversationState(client: client)
        await state.sendMessage("What is 1 + 1?")
        #expect(ModelAgentConversationTests.shown(state.messages) == ["user: What is 1 + 1?", "agent: \(firstText)"])
        let replyId = try #require(state.messages.last?.messageId)
        provider.enqueue(.recording(second))
        await state.retry(messageId: replyId)
        #expect(state.error == nil)
        #expect(ModelAgentConversationTests.shown(state.messages) == ["user: What is 1 + 1?", "agent: \(secondText)"])
        #expect(state.messages.last?.messageId != replyId)
        #expect(provider.received.count == 2)
        let reloaded = ConversationState(client: client)
        await reloaded.loadHistory(conversationId: try #require(state.conversationId))
        #expect(
            ModelAgentConversationTests.shown(reloaded.messages) == ModelAgentConversationTests.shown(state.messages))
    }
}
