// The model-agent reply path at the API level, against a MockProvider: an upstream refusal is
// answered before anything is stored (429 with its Retry-After, 502 CHAT_STREAMING_ERROR), a
// stream that breaks ends with an error chunk after the text so far (stored, numbered events),
// and the agent file is checked field by field.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@Suite(.blockingAllowed) struct ModelAgentAPITests {
    static func fixture(_ provider: MockProvider) throws -> APIFixture {
        var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        for index in agents.indices { agents[index].upstream.baseURL = provider.baseURL }
        return try APIFixture(agent: "openai-agent") { configuration in
            configuration.agents = agents
            configuration.environment = { _ in nil }
        }
    }

    @Test func anUpstream429IsPassedOnWithItsRetryAfterAndNothingIsStored() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider)
        provider.enqueue(
            MockProvider.Answer(
                status: 429, headers: [("Retry-After", "7"), ("Content-Type", "application/json")],
                pieces: [Array(#"{"error":{"message":"slow down"}}"#.utf8)]))
        let response = try api.chat("hello")
        #expect(response.status == 429)
        #expect(response.header("Retry-After") == "7")
        #expect(response.errorCode == "RATE_LIMIT_TOO_MANY_REQUESTS")
        #expect(response.json["error"]?["message"]?.stringValue?.contains("slow down") == true)
        #expect(try api.page(api.api("conversations")).items.isEmpty)
        // No key configured: none sent.
        #expect(provider.received.first?.headers["authorization"] == nil)
    }

    @Test func anUpstreamFailureBeforeTheStreamIs502AndNothingIsStored() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider)
        provider.enqueue(MockProvider.Answer(status: 500, headers: [], pieces: [Array("model crashed".utf8)]))
        let response = try api.chat("hello")
        #expect(response.status == 502)
        #expect(response.errorCode == "CHAT_STREAMING_ERROR")
        #expect(response.json["error"]?["message"]?.stringValue?.contains("model crashed") == true)
        #expect(try api.page(api.api("conversations")).items.isEmpty)
    }

    @Test func aBrokenUpstreamStreamEndsWithAnErrorChunkAndKeepsTheTextSoFar() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider)
        let bytes = Array(
            try Data(
                contentsOf: URL(
                    fileURLWithPath: ProjectPaths.fixtures + "/agents/streams/openai-chat-after-tools.sse")))
        // Cut after the third event: "Paris is 18°C and sunny; " has arrived.
        let events = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n\n")
        provider.enqueue(
            MockProvider.Answer(
                pieces: [Array((events.prefix(3).joined(separator: "\n\n") + "\n\n").utf8)], ending: .cut))
        let response = try api.chat("weather?")
        #expect(response.status == 200)
        let messageId = try #require(response.header("X-Message-Id"))
        let (chunks, done) = response.streamChunks
        #expect(done)
        let text = chunks.filter { $0["type"] == "text-delta" }.compactMap { $0["delta"]?.stringValue }.joined()
        #expect(text == "Paris is 18°C and sunny; ")
        #expect(chunks.first?["type"] == "start")
        #expect(chunks.first?["messageId"]?.stringValue == messageId)
        #expect(chunks.last?["type"] == "error")
        #expect(chunks.last?["code"] == "CHAT_STREAMING_ERROR")
        // Every event is numbered for resuming.
        let blocks = response.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(blocks.allSatisfy { $0.hasPrefix("id: ") })
        let conversation = try #require(chunks.first?["messageMetadata"]?["conversationId"]?.stringValue)
        let stored = try api.page(api.api("conversations/\(conversation)/messages")).items
        #expect(stored.last?["id"]?.stringValue == messageId)
        #expect(stored.last?["parts"] == [["type": "text", "text": "Paris is 18°C and sunny; "]])
    }

    @Test func theAgentFilesAreReadAndABadFieldIsNamed() throws {
        let example = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/ollama.json")
        #expect(example.map(\.id) == ["local"])
        #expect(example[0].upstream.family == .openAIChat)
        #expect(example[0].upstream.apiKeyEnv == nil)
        #expect(example[0].actions.map(\.name) == ["get_weather"])
        let tests = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        #expect(tests[1].upstream.family == .anthropic)
        #expect(tests[1].upstream.maxTokens == 512)
        #expect(tests[1].upstream.timeout == .seconds(150))
        let cases: [(JSONTree, String)] = [
            (["agents": []], "names no agent"),
            (["agents": [["name": "x"]]], "agents[0].id is required"),
            (
                ["agents": [["id": "a", "upstream": ["family": "gemini", "baseURL": "http://h/v1", "model": "m"]]]],
                "agents[0].upstream.family"
            ),
            (
                ["agents": [["id": "a", "upstream": ["family": "anthropic", "baseURL": "ftp://h", "model": "m"]]]],
                "agents[0].upstream.baseURL"
            ),
            (
                [
                    "agents": [
                        [
                            "id": "a", "upstream": ["family": "anthropic", "baseURL": "http://h", "model": "m"],
                            "actions": [["description": "no name"]],
                        ]
                    ]
                ],
                "agents[0].actions[0].name"
            ),
        ]
        for (json, expected) in cases {
            #expect(throws: AgentDefinition.FileError.self) { try AgentDefinition.agents(in: json) }
            do {
                _ = try AgentDefinition.agents(in: json)
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
    }
}
