// The limits on the model path (issue 33, item 4): what a model streams back is bounded as what a
// client sends is. A tool call ID the app could not post back (over the 128 bytes of
// `toolCallId`) is replaced consistently, so the tool loop still closes through the upstream; a
// tool call input nested deeper than a tool result may be ends the reply with an error chunk and
// keeps the history readable; the reply's size is bounded: an upstream that never ends is cut at
// the bytes the reply reserved of the generating budget, or at what its identity may still store,
// with the text so far sent and stored alike; and a reply the generating budget has no room for is
// refused before anything is asked upstream. (The client-chosen strings of the limits table are
// checked against a model agent by StringLimitsTableTests.)

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite(.blockingAllowed) struct ModelAgentLimitsTests {
    /// One OpenAI-compatible chunk with `delta`.
    static func chunk(_ delta: JSONTree, finish: String? = nil) -> String {
        let choice: JSONTree = [
            "index": 0, "delta": delta, "finish_reason": finish.map { .string($0) } ?? .null,
        ]
        return "data: " + (["id": "chatcmpl-9", "choices": [choice]] as JSONTree).jsonText + "\n\n"
    }

    /// A stream of a text, then one tool call with `id` and `arguments`, then the finish.
    static func toolCallStream(id: String, arguments: String) -> [UInt8] {
        let call: JSONTree = [
            "index": 0, "id": .string(id), "type": "function",
            "function": ["name": "get_weather", "arguments": .string(arguments)],
        ]
        return Array(
            (chunk(["role": "assistant", "content": "Checking."]) + chunk(["tool_calls": [call]])
                + chunk([:], finish: "tool_calls") + "data: [DONE]\n\n").utf8)
    }

    @Test func aToolCallIdTooLongToPostBackIsReplacedAndTheLoopStillCloses() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try ModelAgentRetryTests.fixture(provider)
        let longId = "call_" + String(repeating: "x", count: 200)
        provider.enqueue(MockProvider.Answer(pieces: [Self.toolCallStream(id: longId, arguments: #"{"city":"Oslo"}"#)]))
        let chat = try api.chat("Weather in Oslo?")
        #expect(chat.status == 200)
        let calls = chat.streamChunks.chunks.filter { $0["type"] == "tool-input-available" }
        let shownId = try #require(calls.first?["toolCallId"]?.stringValue)
        #expect(calls.count == 1)
        #expect(shownId != longId && shownId.utf8.count <= StringLimits.idBytes)
        // Every event of the call names the same replacement.
        let named = chat.streamChunks.chunks.compactMap { $0["toolCallId"]?.stringValue }
        #expect(!named.isEmpty && named.allSatisfy { $0 == shownId })
        let conversation = try #require(
            chat.streamChunks.chunks.last?["messageMetadata"]?["conversationId"]?.stringValue)
        // The app posts its result with the ID it was shown, and the loop continues upstream.
        let posted = try api.request(
            "POST", api.api("conversations/\(conversation)/tool-result"),
            body: #"{"toolCallId":"\#(shownId)","output":{"celsius":4}}"#)
        #expect(posted.status == 200, "\(posted.text)")
        provider.enqueue(.recording("agents/streams/openai-chat-after-tools.sse"))
        let continuation = try api.chat(nil, conversation: conversation)
        #expect(continuation.status == 200)
        let sent = try #require(provider.received.last?.body["messages"]?.arrayValue)
        let assistant = sent.first { $0["role"] == "assistant" }
        #expect(assistant?["tool_calls"]?[0]?["id"]?.stringValue == shownId)
        #expect(sent.first { $0["role"] == "tool" }?["tool_call_id"]?.stringValue == shownId)
    }

    @Test func aToolCallInputNestedTooDeepEndsTheReplyAndHistoryStaysReadable() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try ModelAgentRetryTests.fixture(provider)
        let depth = StringLimits.toolOutputDepth + 6
        let arguments =
            #"{"city":"# + String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth) + "}"
        provider.enqueue(MockProvider.Answer(pieces: [Self.toolCallStream(id: "call_deep", arguments: arguments)]))
        let chat = try api.chat("Weather?")
        #expect(chat.status == 200)
        let (chunks, done) = chat.streamChunks
        #expect(done)
        #expect(chunks.last?["type"] == "error")
        #expect(chunks.last?["code"] == "CHAT_STREAMING_ERROR")
        #expect(chunks.last?["errorText"]?.stringValue?.contains("levels deep") == true, "\(chunks.last ?? .null)")
        #expect(!chunks.contains { $0["type"] == "tool-input-available" })
        let conversation = try #require(chunks.first?["messageMetadata"]?["conversationId"]?.stringValue)
        let history = try api.page(api.api("conversations/\(conversation)/messages"))
        #expect(history.status == 200)
        #expect(ModelAgentRetryTests.text(ofParts: history.items.last?["parts"]) == "Checking.")
    }

    @Test func theReplyStopsAtItsByteBound() throws {
        var limits = UpstreamReplyLimits(messageId: "0b7e8f9a-1c2d-4e5f-8a9b-0c1d2e3f4a5b", maxBytes: 10)
        #expect(throws: Never.self) { _ = try limits.admit(.textDelta(id: "t", delta: "12345")) }
        #expect(throws: Never.self) { _ = try limits.admit(.reasoningDelta(id: "r", delta: "123")) }
        #expect(throws: UpstreamReplyLimits.Exceeded.self) {
            _ = try limits.admit(.toolInputDelta(id: "c", delta: "123"))
        }
        // Counted as stored: escapes take their JSON bytes.
        #expect(UpstreamReplyLimits.storedBytes("a\"\\\n\u{01}é") == 1 + 2 + 2 + 2 + 6 + 2)
        var escaped = UpstreamReplyLimits(messageId: "0b7e8f9a-1c2d-4e5f-8a9b-0c1d2e3f4a5b", maxBytes: 11)
        #expect(throws: UpstreamReplyLimits.Exceeded.self) {
            _ = try escaped.admit(.textDelta(id: "t", delta: "\u{01}\u{02}"))
        }
        // Short IDs pass unchanged; a long or empty one gets a stable replacement per call.
        var ids = UpstreamReplyLimits(messageId: "0b7e8f9a-1c2d-4e5f-8a9b-0c1d2e3f4a5b", maxBytes: .max)
        let long = String(repeating: "y", count: 129)
        let first = try ids.admit(.toolCallStart(id: long, name: "f", providerExecuted: false))
        let again = try ids.admit(.toolInputDelta(id: long, delta: "{}"))
        let other = try ids.admit(.toolCallStart(id: "", name: "g", providerExecuted: false))
        let short = try ids.admit(.toolCallStart(id: "call_1", name: "h", providerExecuted: false))
        guard case .toolCallStart(let firstId, _, _) = first, case .toolInputDelta(let againId, _) = again,
            case .toolCallStart(let otherId, _, _) = other, case .toolCallStart(let shortId, _, _) = short
        else {
            Issue.record("events changed kind")
            return
        }
        #expect(firstId == againId && firstId != long && firstId.utf8.count <= StringLimits.idBytes)
        #expect(otherId != firstId && !otherId.isEmpty)
        #expect(shortId == "call_1")
    }

    /// A server whose agents send to `provider`, configured further by `configure`.
    static func fixture(
        _ provider: MockProvider, configure: @escaping (inout ChatAPIServer.Configuration) -> Void
    ) throws -> APIFixture {
        var agents = try AgentDefinition.load(contentsOf: ProjectPaths.fixtures + "/agents/test-agents.json")
        for index in agents.indices { agents[index].upstream.baseURL = provider.baseURL }
        return try APIFixture(agent: "openai-agent") { configuration in
            configuration.agents = agents
            configuration.environment = { _ in nil }
            configure(&configuration)
        }
    }

    /// An upstream that starts a text and then streams more of it without end.
    static func endless() -> MockProvider.Answer {
        MockProvider.Answer(
            pieces: [Array(chunk(["role": "assistant", "content": "Start. "]).utf8)],
            ending: .endless(Array(chunk(["content": "more words "]).utf8)))
    }

    /// Waits until the provider's endless or held stream ended, and says whether the server closed it.
    static func upstreamClosedByServer(_ provider: MockProvider) -> Bool {
        // The bound only ends the wait if the server never closes it (the provider gives up at holdCap).
        _ = eventually(within: 300) { provider.closedByClient + provider.heldToDeadline > 0 }
        return provider.closedByClient == 1 && provider.heldToDeadline == 0
    }

    @Test(arguments: [true, false])
    func anUpstreamThatNeverEndsIsCutAtTheReplysReservedBytesWithTheTextKept(_ stream: Bool) throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let reserved = 64 << 10
        let api = try Self.fixture(provider) { $0.replies.modelReplyBytes = reserved }
        provider.enqueue(Self.endless())
        let chat = try api.chat("Talk forever", stream: stream)
        #expect(chat.status == 200)
        let shown: String
        let conversation: String
        if stream {
            let (chunks, done) = chat.streamChunks
            #expect(done)
            #expect(chunks.last?["type"] == "error")
            #expect(chunks.last?["code"] == "CHAT_STREAMING_ERROR")
            #expect(
                chunks.last?["errorText"]?.stringValue?.contains("replies.modelReplyBytes") == true,
                "\(chunks.last ?? .null)")
            // Everything sent, closing events included, fits what the reply reserved.
            #expect(chat.body.count <= reserved, "\(chat.body.count)")
            shown = ModelAgentRetryTests.streamedText(chat)
            conversation = try #require(chunks.first?["messageMetadata"]?["conversationId"]?.stringValue)
        } else {
            let message = chat.json["data"]
            #expect(message?["metadata"]?["finishReason"] == "error", "\(chat.text.prefix(300))")
            shown = ModelAgentRetryTests.text(ofParts: message?["parts"])
            conversation = try #require(
                message?["metadata"]?["conversationId"]?.stringValue, "\(chat.text.prefix(300))")
        }
        // Cut well past the start and near the bound: about one text delta per 80 bytes of events.
        #expect(shown.hasPrefix("Start. more words more words "))
        #expect(shown.utf8.count > reserved / 16, "\(shown.utf8.count)")
        let history = try api.page(api.api("conversations/\(conversation)/messages"))
        #expect(ModelAgentRetryTests.text(ofParts: history.items.last?["parts"]) == shown)
        #expect(
            Self.upstreamClosedByServer(provider), "closed \(provider.closedByClient), held \(provider.heldToDeadline)")
        // Its reservation was released: the next reply has room again.
        #expect(eventually(within: 150) { api.server.generatingReplyCount == 0 })
        provider.enqueue(.recording("agents/streams/openai-chat-after-tools.sse"))
        #expect(try api.chat("Short one", stream: stream).status == 200)
    }

    @Test func anUpstreamThatNeverEndsIsCutAtWhatItsIdentityMayStillStore() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let quota = 32 << 10
        let api = try Self.fixture(provider) { $0.quotas.storedBytesPerIdentity = quota }
        provider.enqueue(Self.endless())
        let chat = try api.chat("Talk forever")
        #expect(chat.status == 200)
        let (chunks, done) = chat.streamChunks
        #expect(done)
        #expect(chunks.last?["code"] == "CHAT_STREAMING_ERROR")
        #expect(chunks.last?["errorText"]?.stringValue?.contains("may still store") == true, "\(chunks.last ?? .null)")
        let shown = ModelAgentRetryTests.streamedText(chat)
        #expect(shown.hasPrefix("Start. more words "))
        let conversation = try #require(chunks.first?["messageMetadata"]?["conversationId"]?.stringValue)
        let history = try api.page(api.api("conversations/\(conversation)/messages"))
        #expect(ModelAgentRetryTests.text(ofParts: history.items.last?["parts"]) == shown)
        // What the identity stores (the reply's live events included) stays within its quota, and
        // the reply took a good part of it.
        let usage = try api.server.handlers.store.read {
            try $0.usage(of: Caller.ownerKey(user: nil, device: "device-a"))
        }
        #expect(usage.bytes <= quota, "\(usage)")
        #expect(usage.bytes > quota / 2, "\(usage)")
        #expect(shown.utf8.count > quota / 4, "\(shown.utf8.count)")
        #expect(
            Self.upstreamClosedByServer(provider), "closed \(provider.closedByClient), held \(provider.heldToDeadline)")
    }

    @Test func aModelReplyTheGeneratingBudgetHasNoRoomForIs503AndAsksNothingUpstream() throws {
        let provider = try MockProvider()
        defer { provider.stop() }
        let api = try Self.fixture(provider) { configuration in
            configuration.replies.modelReplyBytes = 64 << 10
            configuration.replies.generatingBytes = 100 << 10
        }
        // One model reply holds its 64 KiB while the upstream stays open.
        provider.enqueue(
            MockProvider.Answer(
                pieces: [Array(Self.chunk(["role": "assistant", "content": "Thinking"]).utf8)], ending: .holdOpen))
        let first = api.background("POST", api.api("chat"), body: APIFixture.chatBody("take your time"))
        #expect(eventually(within: 150) { api.server.generatingReplyCount == 1 })
        let run = try #require(api.server.handlers.replies.generating.first)
        #expect(run.plannedBytes == 64 << 10)
        // A second does not fit: refused before the upstream is asked, nothing stored.
        let refused = try api.chat("and me?")
        #expect(refused.status == 503)
        #expect(refused.errorCode == "SERVER_BUSY")
        #expect(refused.header("Retry-After") == "1")
        #expect(provider.received.count == 1)
        #expect(api.server.conversationCount == 1)
        // Stopping the first releases its bytes and closes its upstream; then there is room.
        let stop = try api.request(
            "POST", api.api("conversations/\(run.metadata.conversationId)/messages/\(run.messageId)/stop"))
        #expect(stop.status == 200, "\(stop.text)")
        #expect(eventually(within: 150) { api.server.generatingReplyCount == 0 })
        #expect(
            Self.upstreamClosedByServer(provider), "closed \(provider.closedByClient), held \(provider.heldToDeadline)")
        _ = try? first.wait()
        provider.enqueue(.recording("agents/streams/openai-chat-after-tools.sse"))
        #expect(try api.chat("room again").status == 200)
        #expect(provider.received.count == 2)
    }
}
