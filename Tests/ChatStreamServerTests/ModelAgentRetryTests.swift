// Retry and `stream: false` for agents backed by a model (issue 33): both go through the upstream
// (a MockProvider on loopback). A non-streamed chat answers the upstream's reply whole; a retry
// sends the conversation as it stood before the retried reply and replaces that reply (and what
// followed it) with the upstream's new one; an upstream refusal of a retry changes nothing.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@Suite(.blockingAllowed) struct ModelAgentRetryTests {
    static let agents = ["openai-agent", "anthropic-agent"]

    /// A server whose agents (Fixtures/agents/test-agents.json) send to `provider`, for `agent`.
    static func fixture(_ provider: MockProvider, agent: String = "openai-agent") throws -> APIFixture {
        var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        for index in agents.indices { agents[index].upstream.baseURL = provider.baseURL }
        return try APIFixture(agent: agent) { configuration in
            configuration.agents = agents
            configuration.environment = { _ in nil }
        }
    }

    /// The text a recording decodes to with `agent`'s dialect (the oracle).
    static func recordedText(_ path: String, agent: String) throws -> String {
        let format: StreamFormat = agent == "openai-agent" ? .openAIChat : .anthropic
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/" + path)))
        var decoder = format.makeDecoder()
        var assembler = MessageAssembler()
        try decoder.feed(bytes, into: &assembler)
        try decoder.finish(into: &assembler)
        return assembler.finish()[0].text
    }

    /// A plain-text recording of each family, and a second one to tell a retried reply apart.
    static func texts(_ agent: String) -> (first: String, second: String) {
        agent == "openai-agent"
            ? ("vendor-streams/openai-chat/huggingface-novita__text.sse", "agents/streams/openai-chat-after-tools.sse")
            : ("vendor-streams/anthropic/anthropic__text.sse", "agents/streams/anthropic-after-tools.sse")
    }

    /// The text of a streamed answer's text deltas.
    static func streamedText(_ response: APIResponse) -> String {
        response.streamChunks.chunks.filter { $0["type"] == "text-delta" }.compactMap { $0["delta"]?.stringValue }
            .joined()
    }

    /// The text a history message or a non-streamed reply holds.
    static func text(ofParts parts: JSONTree?) -> String {
        (parts?.arrayValue ?? []).filter { $0["type"] == "text" }.compactMap { $0["text"]?.stringValue }.joined()
    }

    @Test(arguments: agents)
    func aNonStreamedChatAnswersTheUpstreamsReplyWhole(_ agent: String) throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider, agent: agent)
        let path = Self.texts(agent).first
        let expected = try Self.recordedText(path, agent: agent)
        #expect(!expected.isEmpty)
        provider.enqueue(
            .recording(path) { bytes in
                stride(from: 0, to: bytes.count, by: 7).map { Array(bytes[$0..<min($0 + 7, bytes.count)]) }
            })
        let response = try api.chat("What is 1 + 1?", stream: false)
        #expect(response.status == 200, "\(response.text.prefix(300))")
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        let message = response.json["data"]
        #expect(message?["role"] == "assistant")
        #expect(Self.text(ofParts: message?["parts"]) == expected)
        #expect(message?["metadata"]?["finishReason"] != "error")
        let conversation = try #require(message?["metadata"]?["conversationId"]?.stringValue)
        let history = try api.page(api.api("conversations/\(conversation)/messages")).items
        #expect(history.count == 2)
        #expect(history.last?["id"] == message?["id"])
        #expect(history.last?["parts"] == message?["parts"])
        // The upstream is always asked for a stream.
        #expect(provider.received.count == 1)
        #expect(provider.received.last?.body["stream"] == true)
    }

    @Test(arguments: agents, [true, false])
    func aRetryIsMadeByTheUpstreamFromTheConversationBeforeIt(_ agent: String, stream: Bool) throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider, agent: agent)
        let (first, second) = Self.texts(agent)
        provider.enqueue(.recording(first))
        let chat = try api.chat("What is 1 + 1?")
        let replyId = try #require(chat.header("X-Message-Id"))
        let conversation = try #require(
            chat.streamChunks.chunks.last?["messageMetadata"]?["conversationId"]?.stringValue)
        #expect(Self.streamedText(chat) == (try Self.recordedText(first, agent: agent)))
        let expected = try Self.recordedText(second, agent: agent)
        provider.enqueue(.recording(second))
        let retry = try api.request(
            "POST", api.api("conversations/\(conversation)/retry"),
            body: #"{"messageId":"\#(replyId)","stream":\#(stream)}"#)
        #expect(retry.status == 200, "\(retry.text.prefix(300))")
        let newId: String?
        if stream {
            #expect(Self.streamedText(retry) == expected)
            #expect(retry.streamChunks.chunks.last?["type"] == "finish")
            newId = retry.header("X-Message-Id")
        } else {
            #expect(Self.text(ofParts: retry.json["data"]?["parts"]) == expected)
            newId = retry.json["data"]?["id"]?.stringValue
        }
        #expect(newId != nil && newId != replyId)
        // The retry's request held the conversation before the retried reply: the user's words only.
        #expect(provider.received.count == 2)
        let sent = try #require(provider.received.last?.body["messages"]?.arrayValue)
        if agent == "openai-agent" {
            #expect(
                sent == [["role": "system", "content": "Be brief."], ["role": "user", "content": "What is 1 + 1?"]])
        } else {
            #expect(sent == [["role": "user", "content": [["type": "text", "text": "What is 1 + 1?"]]]])
        }
        // History: the user message, then the new reply only.
        let history = try api.page(api.api("conversations/\(conversation)/messages")).items
        #expect(history.map { $0["role"]?.stringValue } == ["user", "assistant"])
        #expect(history.last?["id"]?.stringValue == newId)
        #expect(Self.text(ofParts: history.last?["parts"]) == expected)
    }

    @Test func aRetryTheUpstreamRefusesChangesNothing() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider)
        let first = Self.texts("openai-agent").first
        provider.enqueue(.recording(first))
        let chat = try api.chat("What is 1 + 1?")
        let replyId = try #require(chat.header("X-Message-Id"))
        let conversation = try #require(
            chat.streamChunks.chunks.last?["messageMetadata"]?["conversationId"]?.stringValue)
        let before = try api.page(api.api("conversations/\(conversation)/messages")).items
        provider.enqueue(
            MockProvider.Answer(
                status: 429, headers: [("Retry-After", "11")], pieces: [Array(#"{"error":"busy"}"#.utf8)]))
        let refused = try api.request(
            "POST", api.api("conversations/\(conversation)/retry"), body: #"{"messageId":"\#(replyId)"}"#)
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "11")
        provider.enqueue(MockProvider.Answer(status: 503, headers: [], pieces: [Array("overloaded".utf8)]))
        let failed = try api.request(
            "POST", api.api("conversations/\(conversation)/retry"), body: #"{"messageId":"\#(replyId)"}"#)
        #expect(failed.status == 502)
        #expect(failed.errorCode == "CHAT_STREAMING_ERROR")
        #expect(try api.page(api.api("conversations/\(conversation)/messages")).items == before)
        // A message that is not a reply of this conversation is still 404, and the upstream is not asked.
        let unknown = try api.request(
            "POST", api.api("conversations/\(conversation)/retry"), body: #"{"messageId":"no-such-reply"}"#)
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "CHAT_RETRY_MESSAGE_NOT_FOUND")
        #expect(provider.received.count == 3)
    }

    @Test func aRetriedContinuationSendsTheToolCallsAndResultsAgain() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider)
        provider.enqueue(.recording("agents/streams/openai-chat-parallel-tool-calls.sse"))
        let chat = try api.chat("Weather in Paris and Rome?")
        let conversation = try #require(
            chat.streamChunks.chunks.last?["messageMetadata"]?["conversationId"]?.stringValue)
        let calls = chat.streamChunks.chunks.filter { $0["type"] == "tool-input-available" }
        #expect(calls.count == 2)
        for call in calls {
            let answer = try api.request(
                "POST", api.api("conversations/\(conversation)/tool-result"),
                body: #"{"toolCallId":"\#(call["toolCallId"]?.stringValue ?? "")","output":{"celsius":20}}"#)
            #expect(answer.status == 200)
        }
        let after = "agents/streams/openai-chat-after-tools.sse"
        provider.enqueue(.recording(after))
        let continuation = try api.chat(nil, conversation: conversation)
        let continuationId = try #require(continuation.header("X-Message-Id"))
        let firstRequest = try #require(provider.received.last?.body["messages"])
        provider.enqueue(.recording(after))
        let retry = try api.request(
            "POST", api.api("conversations/\(conversation)/retry"),
            body: #"{"messageId":"\#(continuationId)","stream":true}"#)
        #expect(retry.status == 200)
        #expect(Self.streamedText(retry) == (try Self.recordedText(after, agent: "openai-agent")))
        // The retry asked with the same conversation as the continuation did: the tool calls and results.
        let retried = try #require(provider.received.last?.body["messages"])
        #expect(retried == firstRequest)
        let tools = (retried.arrayValue ?? []).filter { $0["role"] == "tool" }
        #expect(tools.map { $0["tool_call_id"] } == calls.map { $0["toolCallId"] })
        let history = try api.page(api.api("conversations/\(conversation)/messages")).items
        #expect(history.count == 3)
        #expect(history.last?["id"]?.stringValue == retry.header("X-Message-Id"))
    }
}
