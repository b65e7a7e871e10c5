// Conversations are kept per agent (PROTOCOLS.md section 9: the agent's ID is the `agentId` of
// every route): one caller's conversations with two agents of the same server are listed, read and
// continued only through their own agent; through another one they answer as a missing
// conversation would (404, nothing asked upstream, nothing stored). Conversations stored before
// the store kept agents go to the first agent the server serves.

import ChatStream
import ChatStreamSQLite
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite(.blockingAllowed) struct ConversationsPerAgentTests {
    static let text = "vendor-streams/openai-chat/huggingface-novita__text.sse"
    static let anthropicText = "vendor-streams/anthropic/anthropic__text.sse"

    /// The test agents (both sending to `provider`), served with `dataFile` when given.
    static func fixture(_ provider: MockProvider, agent: String, dataFile: String? = nil) throws -> APIFixture {
        var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        for index in agents.indices { agents[index].upstream.baseURL = provider.baseURL }
        return try APIFixture(dataFile: dataFile, agent: agent) { configuration in
            configuration.agents = agents
            configuration.environment = { _ in nil }
        }
    }

    /// `path` under `agent` (`/api/sdk/agents/{agent}/{path}`).
    static func route(_ agent: String, _ path: String) -> String { "/api/sdk/agents/\(agent)/\(path)" }

    /// Starts a conversation with `agent` (answered by `recording`); its ID and the reply's.
    static func start(
        _ api: APIFixture, _ provider: MockProvider, agent: String, recording: String, clientMessageId: String? = nil
    ) throws -> (conversation: String, reply: String) {
        provider.enqueue(.recording(recording))
        var body = JSONObject()
        body["message"] = .string("Hello \(agent)")
        body["stream"] = true
        if let clientMessageId { body["clientMessageId"] = .string(clientMessageId) }
        let response = try api.request("POST", route(agent, "chat"), body: JSONTree.object(body).jsonText)
        guard response.status == 200,
            let conversation = response.streamChunks.chunks.last?["messageMetadata"]?["conversationId"]?.stringValue,
            let reply = response.header("X-Message-Id")
        else { throw APITestError(description: "chat to \(agent): \(response.status) \(response.text.prefix(300))") }
        return (conversation, reply)
    }

    @Test func eachAgentListsReadsAndContinuesOnlyItsOwnConversations() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider, agent: "openai-agent")
        let openAI = try Self.start(api, provider, agent: "openai-agent", recording: Self.text)
        let anthropic = try Self.start(api, provider, agent: "anthropic-agent", recording: Self.anthropicText)
        let ids = { (agent: String) in
            try api.page(Self.route(agent, "conversations")).items.compactMap { $0["id"]?.stringValue }
        }
        #expect(try ids("openai-agent") == [openAI.conversation])
        #expect(try ids("anthropic-agent") == [anthropic.conversation])
        #expect(try api.page(Self.route("openai-agent", "conversations")).total == 1)
        // Each one's history and conversation through its own agent only.
        #expect(
            try api.page(Self.route("openai-agent", "conversations/\(openAI.conversation)/messages")).items.count == 2)
        let asked = provider.received.count
        let other = "anthropic-agent"
        let crossed: [(String, String, String?)] = [
            ("GET", "conversations/\(openAI.conversation)/messages", nil),
            ("GET", "conversations/\(openAI.conversation)", nil),
            ("POST", "chat", #"{"message":"and now?","conversationId":"\#(openAI.conversation)"}"#),
            ("POST", "chat", #"{"conversationId":"\#(openAI.conversation)","stream":false}"#),
            ("POST", "conversations/\(openAI.conversation)/retry", #"{"messageId":"\#(openAI.reply)"}"#),
            ("POST", "conversations/\(openAI.conversation)/tool-result", #"{"toolCallId":"call_1","output":1}"#),
            ("POST", "conversations/\(openAI.conversation)/close", nil),
            ("PUT", "conversations/\(openAI.conversation)/tags", #"{"tags":["x"]}"#),
            ("POST", "conversations/\(openAI.conversation)/read", #"{"messageId":"\#(openAI.reply)"}"#),
            ("GET", "conversations/\(openAI.conversation)/messages/\(openAI.reply)/stream", nil),
            ("POST", "conversations/\(openAI.conversation)/messages/\(openAI.reply)/stop", nil),
        ]
        for (method, path, body) in crossed {
            let answer = try api.request(method, Self.route(other, path), body: body)
            #expect(answer.status == 404, "\(method) \(path): \(answer.status) \(answer.text.prefix(200))")
            #expect(
                ["RESOURCE_CONVERSATION_NOT_FOUND", "RESOURCE_MESSAGE_NOT_FOUND"].contains(answer.errorCode ?? ""),
                "\(method) \(path): \(answer.text.prefix(200))")
        }
        #expect(provider.received.count == asked, "another agent's conversation was sent upstream")
        // Making a conversation with another agent's ID is a conflict, as with another owner's.
        let taken = try api.request(
            "POST", Self.route(other, "conversations"), body: #"{"id":"\#(openAI.conversation)"}"#)
        #expect(taken.status == 409)
        // Nothing changed: the conversation is still ongoing with its two messages, untagged.
        let own = try api.request("GET", Self.route("openai-agent", "conversations/\(openAI.conversation)"))
        #expect(own.json["data"]?["status"] == "ongoing")
        #expect(own.json["data"]?["tags"] == [])
        #expect(
            try api.page(Self.route("openai-agent", "conversations/\(openAI.conversation)/messages")).items.count == 2)
    }

    @Test func aResendIsRecognisedOnlyByItsOwnAgent() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider, agent: "openai-agent")
        let clientMessageId = UUID().uuidString.lowercased()
        let first = try Self.start(
            api, provider, agent: "openai-agent", recording: Self.text, clientMessageId: clientMessageId)
        // The same clientMessageId with no conversation to another agent is a new chat, not a replay.
        let second = try Self.start(
            api, provider, agent: "anthropic-agent", recording: Self.anthropicText, clientMessageId: clientMessageId)
        #expect(second.conversation != first.conversation)
        #expect(provider.received.count == 2)
        // To its own agent it is a replay: nothing asked upstream.
        let replay = try api.request(
            "POST", Self.route("openai-agent", "chat"),
            body: #"{"message":"Hello openai-agent","clientMessageId":"\#(clientMessageId)"}"#)
        #expect(replay.header("Idempotent-Replayed") == "true")
        #expect(replay.header("X-Message-Id") == first.reply)
        #expect(provider.received.count == 2)
    }

    @Test func conversationsStoredBeforeAgentsWereKeptGoToTheFirstAgent() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("per-agent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("store.sqlite").path
        let provider = try MockProvider()
        defer { provider.stop() }
        var conversation = ""
        do {
            let api = try Self.fixture(provider, agent: "anthropic-agent", dataFile: file)
            conversation = try Self.start(
                api, provider, agent: "anthropic-agent", recording: Self.anthropicText
            ).conversation
            api.server.stop()
        }
        // As a store from before version 5 holds it: no agent.
        try SQLiteDatabase(path: file).run("UPDATE conversations SET agent_id = NULL")
        let api = try Self.fixture(provider, agent: "openai-agent", dataFile: file)
        #expect(
            try api.page(Self.route("openai-agent", "conversations")).items.compactMap { $0["id"]?.stringValue }
                == [conversation])
        #expect(try api.page(Self.route("anthropic-agent", "conversations")).items.isEmpty)
        #expect(
            try api.request("GET", Self.route("anthropic-agent", "conversations/\(conversation)")).status == 404)
    }
}

extension ConversationsPerAgentTests {
    /// `GET .../events` of `agent` for device-a, read until `subscribed` after a resume from 0
    /// (every held event), then until `enough`.
    static func liveEvents(
        _ api: APIFixture, agent: String, until enough: @escaping ([UInt8]) -> Bool = { _ in true }
    ) throws -> String {
        let connection = try RawHTTPConnection(port: api.server.port, timeout: 1)
        try connection.send(
            "GET \(route(agent, "events")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: device-a\r\n"
                + "Last-Event-ID: 0\r\n\r\n")
        let bytes = LiveEventRouteTests.read(connection.fd, for: .seconds(120)) { bytes in
            LiveEventRouteTests.occurrences(of: "event: subscribed", in: bytes) == 1 && enough(bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func eachAgentsLiveStreamCarriesOnlyItsConversations() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider, agent: "openai-agent")
        let openAI = try Self.start(api, provider, agent: "openai-agent", recording: Self.text)
        let anthropic = try Self.start(api, provider, agent: "anthropic-agent", recording: Self.anthropicText)
        // Read until `subscribed` and the agent's own conversation (120 s at most): a fresh-clone CI
        // run once had the anthropic stream without it by `subscribed`; the text is in the message.
        let mentions = { (conversation: String) in
            { (bytes: [UInt8]) in String(decoding: bytes, as: UTF8.self).contains(conversation) }
        }
        let toOpenAI = try Self.liveEvents(api, agent: "openai-agent", until: mentions(openAI.conversation))
        let toAnthropic = try Self.liveEvents(api, agent: "anthropic-agent", until: mentions(anthropic.conversation))
        #expect(toOpenAI.contains("event: conversation.created"), "\(toOpenAI)")
        #expect(toOpenAI.contains(openAI.conversation) && !toOpenAI.contains(anthropic.conversation), "\(toOpenAI)")
        #expect(
            toAnthropic.contains(anthropic.conversation) && !toAnthropic.contains(openAI.conversation),
            "\(toAnthropic)")
        // Live, after `subscribed`: a new conversation with one agent reaches only its stream.
        let connection = try RawHTTPConnection(port: api.server.port, timeout: 1)
        try connection.send(
            "GET \(Self.route("anthropic-agent", "events")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: device-a\r\n\r\n"
        )
        _ = LiveEventRouteTests.read(connection.fd, for: .seconds(120)) {
            LiveEventRouteTests.occurrences(of: "event: subscribed", in: $0) == 1
        }
        let later = try Self.start(api, provider, agent: "openai-agent", recording: Self.text)
        let mine = try Self.start(api, provider, agent: "anthropic-agent", recording: Self.anthropicText)
        let live = String(
            decoding: LiveEventRouteTests.read(connection.fd, for: .seconds(120)) {
                String(decoding: $0, as: UTF8.self).contains("\"conversationId\":\"\(mine.conversation)\"")
            }, as: UTF8.self)
        #expect(live.contains(mine.conversation))
        #expect(!live.contains(later.conversation))
    }
}
