// The limits on the model path (issue 33, item 4): what a model streams back is bounded as what a
// client sends is. A tool call ID the app could not post back (over the 128 bytes of
// `toolCallId`) is replaced consistently, so the tool loop still closes through the upstream; a
// tool call input nested deeper than a tool result may be ends the reply with an error chunk and
// keeps the history readable; the reply's size is bounded. (The client-chosen strings of the
// limits table are checked against a model agent by StringLimitsTableTests.)

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite struct ModelAgentLimitsTests {
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
        #expect(UpstreamReplyLimits.replyBytes == 4 << 20)
        // Short IDs pass unchanged; a long or empty one gets a stable replacement per call.
        var ids = UpstreamReplyLimits(messageId: "0b7e8f9a-1c2d-4e5f-8a9b-0c1d2e3f4a5b")
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
}
