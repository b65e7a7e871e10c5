// A model agent's reply is checkpointed as the demo agent's is (PROTOCOLS.md section 8): while
// the upstream still streams, the text so far and the count of events sent are saved in the
// generating row, which is what a restart after a crash stores as the interrupted reply
// (ReplyStopAndRestartTests covers that restart for any generating row).

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite struct ModelAgentCheckpointTests {
    @Test func theTextSoFarIsSavedWhileTheUpstreamStillStreams() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        agents[0].upstream.baseURL = provider.baseURL
        let api = try APIFixture(agent: "openai-agent") { configuration in
            configuration.agents = agents
            configuration.environment = { _ in nil }
            configuration.replies.checkpointInterval = .zero
        }
        // Two text chunks ("The first half of an answer"), then the stream stays open.
        let bytes = Array(
            try Data(
                contentsOf: URL(
                    fileURLWithPath: ProjectPaths.fixtures + "/agents/streams/openai-chat-error-mid-stream.sse")))
        let text = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).prefix(2)
            .flatMap { Array($0) + Array("\n\n".utf8) }
        provider.enqueue(MockProvider.Answer(pieces: [text], ending: .holdOpen))
        let chat = api.background("POST", api.api("chat"), body: APIFixture.chatBody("Go on"))
        #expect(eventually(within: 150) { api.server.generatingReplyCount == 1 })
        let run = try #require(api.server.handlers.replies.generating.first)
        // What a restart after a crash would find for it: the text so far, and the events it covers.
        func checkpoint() throws -> (parts: [JSONTree], events: Int)? {
            try api.server.handlers.store.read { try $0.generatingReplies() }
                .first { $0.sequence == run.sequence }.map { ($0.parts, $0.events) }
        }
        let expected = [AssembledPart.text("The first half of an answer").jsonValue]
        let saved = try eventually(within: 150) { try checkpoint()?.parts == expected }
        let found = try checkpoint()
        #expect(saved, "\(String(describing: found))")
        // Every event the run holds is covered: nothing more comes while the upstream is quiet.
        #expect(found?.events == run.events(after: 0).count)
        #expect(run.events(after: 0).count > 2)
        let stop = try api.request(
            "POST", api.api("conversations/\(run.metadata.conversationId)/messages/\(run.messageId)/stop"))
        #expect(stop.status == 200, "\(stop.text)")
        #expect(ModelAgentLimitsTests.upstreamClosedByServer(provider))
        _ = try? chat.wait()
    }
}
