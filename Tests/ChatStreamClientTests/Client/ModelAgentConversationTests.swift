// Agents backed by a model, end to end without a network: ConversationState talks to ChatAPIServer,
// whose agents send their requests to a MockProvider on loopback answering with recordings from
// Fixtures/ (both families). What the app shows is what the recording says, decoded by the
// family's dialect; the tool loop runs through the upstream; history equals what was shown; a stop
// closes the upstream connection.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Model agents end to end (mock provider on loopback)", .blockingAllowed)
@MainActor
struct ModelAgentConversationTests {
    /// The mock, a server whose agents use it, and a client for one agent.
    nonisolated static func start(agent: String) throws -> (MockProvider, ChatAPIServer, ChatbaseClient) {
        let provider = try MockProvider()
        var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        for index in agents.indices { agents[index].upstream.baseURL = provider.baseURL }
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.replyDelay = .zero
        configuration.http.shutdownGracePeriod = .seconds(3)
        configuration.agents = agents
        configuration.environment = {
            ["CHATSTREAM_TEST_OPENAI_KEY": "sk-test", "CHATSTREAM_TEST_ANTHROPIC_KEY": "ak-test"][$0]
        }
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        let client = ChatbaseClient(
            agentId: agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            identityStore: InMemoryIdentityStore(), store: nil)
        return (provider, server, client)
    }

    /// The message a recording decodes to with its family's dialect (the oracle).
    nonisolated static func recorded(_ path: String, _ format: StreamFormat) throws -> AssembledMessage {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/" + path)))
        var decoder = format.makeDecoder()
        var assembler = MessageAssembler()
        do {
            try decoder.feed(bytes, into: &assembler)
            try decoder.finish(into: &assembler)
        } catch {
            return assembler.finish(error: StreamError(converting: error))[0]
        }
        return assembler.finish()[0]
    }

    /// The rows' texts and tool calls, the way the app shows them.
    static func shown(_ rows: [ConversationState.UiMessage]) -> [String] {
        rows.map { row in
            switch row.kind {
            case .text(let text): "\(row.sender == .user ? "user" : "agent"): \(text)"
            case .toolCall(let card):
                "tool \(card.toolName) \(card.toolCallId) \(render(card.input)) -> \(card.output.map(render) ?? "none")"
            }
        }
    }

    /// A JSON value as text with object members sorted (a dictionary's order is not stable).
    static func render(_ value: JSONValue) -> String {
        switch value {
        case .object(let object):
            "{" + object.keys.sorted().map { "\($0): \(render(object[$0]!))" }.joined(separator: ", ") + "}"
        case .array(let items): "[" + items.map(render).joined(separator: ", ") + "]"
        default: "\(value)"
        }
    }

    static let families: [(agent: String, format: StreamFormat, text: String)] = [
        ("openai-agent", .openAIChat, "vendor-streams/openai-chat/huggingface-novita__text.sse"),
        ("anthropic-agent", .anthropic, "vendor-streams/anthropic/anthropic__text.sse"),
    ]

    @Test(arguments: [0, 1])
    func theAppSeesTheRecordingsTextAtEveryChunkingAndHistoryMatches(_ family: Int) async throws {
        let (agent, format, path) = Self.families[family]
        let (provider, server, client) = try Self.start(agent: agent)
        defer {
            server.stop()
            provider.stop()
        }
        let expected = try Self.recorded(path, format).text
        #expect(!expected.isEmpty)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/" + path)))
        for chunking in Chunkings.all(of: bytes, seeds: [1]) {
            provider.enqueue(MockProvider.Answer(pieces: chunking.pieces))
            let state = ConversationState(client: client)
            await state.sendMessage("What is 1 + 1?")
            #expect(state.error == nil, "\(chunking)")
            #expect(Self.shown(state.messages) == ["user: What is 1 + 1?", "agent: \(expected)"], "\(chunking)")
            let reloaded = ConversationState(client: client)
            await reloaded.loadHistory(conversationId: try #require(state.conversationId))
            #expect(Self.shown(reloaded.messages) == Self.shown(state.messages), "\(chunking)")
        }
        // Each request was the family's, with the key from the environment and the user's words.
        let request = try #require(provider.received.last)
        #expect(request.method == "POST")
        #expect(request.body["stream"] == true)
        #expect(request.body["model"] != nil)
        if format == .openAIChat {
            #expect(request.path == "/v1/chat/completions")
            #expect(request.headers["authorization"] == "Bearer sk-test")
            #expect(request.body["messages"]?[0] == ["role": "system", "content": "Be brief."])
            #expect(request.body["messages"]?[1] == ["role": "user", "content": "What is 1 + 1?"])
            #expect(request.body["tools"]?[0]?["function"]?["name"] == "get_weather")
        } else {
            #expect(request.path == "/v1/messages")
            #expect(request.headers["x-api-key"] == "ak-test")
            #expect(request.headers["anthropic-version"] == "2023-06-01")
            #expect(request.body["system"] == "Be brief.")
            #expect(request.body["max_tokens"] == 512)
            #expect(
                request.body["messages"] == [
                    ["role": "user", "content": [["type": "text", "text": "What is 1 + 1?"]]]
                ])
            #expect(request.body["tools"]?[0]?["name"] == "get_weather")
        }
    }

    @Test(arguments: [0, 1])
    func parallelToolCallsRunInTheAppAndTheirResultsGoUpstream(_ family: Int) async throws {
        let (agent, format, _) = Self.families[family]
        let prefix = format == .openAIChat ? "agents/streams/openai-chat" : "agents/streams/anthropic"
        let (provider, server, client) = try Self.start(agent: agent)
        defer {
            server.stop()
            provider.stop()
        }
        let calls = try Self.recorded(prefix + "-parallel-tool-calls.sse", format).parts.compactMap {
            part -> ToolCallPart? in
            if case .toolCall(let call) = part { return call }
            return nil
        }
        #expect(calls.count == 2)
        let after = try Self.recorded(prefix + "-after-tools.sse", format).text
        let bytes = Array(
            try Data(
                contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/" + prefix + "-parallel-tool-calls.sse")))
        for chunking in Chunkings.all(of: bytes, seeds: [1]) {
            provider.enqueue(MockProvider.Answer(pieces: chunking.pieces))
            provider.enqueue(.recording(prefix + "-after-tools.sse"))
            client.tool("get_weather") { input in ["city": input["city"] ?? .null, "celsius": .int(20)] }
            let state = ConversationState(client: client)
            await state.sendMessage("Weather in Paris and Rome?")
            #expect(state.error == nil, "\(chunking)")
            let cards = state.messages.compactMap { row -> ConversationState.ToolCallCard? in
                if case .toolCall(let card) = row.kind { return card }
                return nil
            }
            #expect(cards.map(\.toolCallId) == calls.map(\.toolCallId), "\(chunking)")
            #expect(cards.map(\.input) == calls.map { JSONValue($0.input) }, "\(chunking)")
            #expect(cards.allSatisfy { $0.status == .success }, "\(chunking)")
            guard case .text(let last) = state.messages.last?.kind else {
                Issue.record("no text after the tool calls: \(Self.shown(state.messages))")
                continue
            }
            #expect(last == after, "\(chunking)")
            // The continuation carried both results, in the family's shape.
            let continuation = try #require(provider.received.last).body
            let outputs = calls.map {
                Self.normalised(#"{"city":"\#($0.input["city"]?.stringValue ?? "")","celsius":20}"#)
            }
            if format == .openAIChat {
                let tools = (continuation["messages"]?.arrayValue ?? []).filter { $0["role"] == "tool" }
                #expect(tools.map { $0["tool_call_id"]?.stringValue } == calls.map(\.toolCallId), "\(chunking)")
                #expect(tools.compactMap { $0["content"]?.stringValue }.map(Self.normalised) == outputs, "\(chunking)")
            } else {
                let turns = continuation["messages"]?.arrayValue ?? []
                let results = (turns.last?["content"]?.arrayValue ?? []).filter { $0["type"] == "tool_result" }
                #expect(results.map { $0["tool_use_id"]?.stringValue } == calls.map(\.toolCallId), "\(chunking)")
                #expect(
                    results.compactMap { $0["content"]?.stringValue }.map(Self.normalised) == outputs, "\(chunking)")
            }
            let reloaded = ConversationState(client: client)
            await reloaded.loadHistory(conversationId: try #require(state.conversationId))
            #expect(Self.shown(reloaded.messages) == Self.shown(state.messages), "\(chunking)")
        }
    }

    @Test(arguments: [0, 1])
    func anErrorMidStreamKeepsTheTextSoFar(_ family: Int) async throws {
        let (agent, format, _) = Self.families[family]
        let path =
            (format == .openAIChat ? "agents/streams/openai-chat" : "agents/streams/anthropic")
            + "-error-mid-stream.sse"
        let (provider, server, client) = try Self.start(agent: agent)
        defer {
            server.stop()
            provider.stop()
        }
        let recorded = try Self.recorded(path, format)
        #expect(recorded.error != nil)
        #expect(!recorded.text.isEmpty)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.fixtures + "/" + path)))
        for chunking in Chunkings.all(of: bytes, seeds: [2]) {
            provider.enqueue(MockProvider.Answer(pieces: chunking.pieces))
            let state = ConversationState(client: client)
            await state.sendMessage("Tell me everything")
            #expect(state.error != nil, "\(chunking)")
            // The app shows the text that came before the error, and the history keeps the same.
            #expect(
                Self.shown(state.messages) == ["user: Tell me everything", "agent: \(recorded.text)"], "\(chunking)")
            let history = try await client.listMessages(conversationId: try #require(state.conversationId))
            #expect(history.data.last?.text == recorded.text, "\(chunking)")
        }
    }

    @Test func aStopFromTheAppClosesTheUpstreamConnection() async throws {
        let (provider, server, client) = try Self.start(agent: "openai-agent")
        defer {
            server.stop()
            provider.stop()
        }
        provider.enqueue(try MockProvider.Answer.firstHalfHeldOpen())
        let state = ConversationState(client: client)
        let sending = Task { await state.sendMessage("Go on") }
        // Waited on the app's state (the bound is only for a server that never answers).
        let streaming = await eventuallyOnMain(timeout: .seconds(300)) {
            guard case .text(let text) = state.messages.last?.kind, state.messages.last?.sender == .agent else {
                return false
            }
            return text == "The first half of an answer"
        }
        #expect(streaming, "\(Self.shown(state.messages))")
        await state.stop()
        await sending.value
        #expect(
            await eventually(timeout: .seconds(300)) { provider.closedByClient + provider.heldToDeadline > 0 }
                && provider.closedByClient == 1,
            "upstream streams closed by the server: \(provider.closedByClient), held to the provider's deadline: \(provider.heldToDeadline)"
        )
        let history = try await client.listMessages(conversationId: try #require(state.conversationId))
        #expect(history.data.last?.text == "The first half of an answer")
    }

    /// JSON text with its members in one order and no spaces (outputs are compared as values).
    static func normalised(_ text: String) -> String {
        guard let value = try? JSONTree(parsing: text), case .object(let object) = value else { return text }
        let sorted = JSONObject(object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return JSONTree.object(sorted).jsonText
    }
}
