// Rules of the Chatbase iOS SDK that ChatStreamClient follows, each checked against a scripted
// transport: the documented declarations by their exact names, the name of a tool result the
// server produced, where the tool loop stops, and how history text parts are joined.

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Chatbase SDK fidelity (scripted transport)", .blockingAllowed)
struct ChatbaseFidelityTests {
    @Test func theDocumentedDeclarationsAreReferencedByTheirExactNames() async throws {
        let transport = FakeTransport { request in
            switch request.route {
            case "chat" where request.json["stream"] == false:
                return Wire.json([
                    "data": [
                        "id": "m-plain", "role": "assistant", "parts": [["type": "text", "text": "plain"]],
                        "metadata": ["conversationId": "c1", "finishReason": "stop"],
                    ]
                ])
            case "chat": return Wire.stream(Wire.reply("Hello there", conversationId: "c1"))
            case "conversations":
                return Wire.page([Wire.conversationJSON("c1", updated: 1_700_000_100)], request: request)
            case "conversations/c1/messages":
                return Wire.page([Wire.messageJSON("m1", text: "hi", role: "user")], request: request)
            default: return Wire.error(404, "NOT_FOUND")
            }
        }
        let client = Wire.client(transport)
        let send: (String, String?, @Sendable (inout StreamCallbacks) -> Void) async throws -> ChatResponse =
            client.send(_:conversationId:configure:)
        let sendNonStreaming: (String, String?) async throws -> ChatResponse =
            client.sendNonStreaming(_:conversationId:)
        let listConversations: (String?, Int?) async throws -> PaginatedResponse<Conversation> =
            client.listConversations(cursor:limit:)
        let listMessages: (String, String?, Int?) async throws -> PaginatedResponse<Message> =
            client.listMessages(conversationId:cursor:limit:)

        let deltas = Mutex<[String]>([])
        let response = try await send("hi", "c1") { callbacks in
            callbacks.onTextDelta = { chunk in deltas.withLock { $0.append(chunk) } }
        }
        #expect(response.message.text == "Hello there")
        #expect(deltas.withLock { $0.joined() } == "Hello there")
        #expect(try await sendNonStreaming("again", "c1").message.text == "plain")
        #expect(try await listConversations(nil, 5).data.map(\.id) == ["c1"])
        #expect(try await listMessages("c1", nil, 7).data.map(\.text) == ["hi"])

        let requests = transport.requests
        #expect(requests.map(\.route) == ["chat", "chat", "conversations", "conversations/c1/messages"])
        #expect(requests[0].json["conversationId"] == "c1")
        #expect(requests[0].json["clientMessageId"]?.stringValue?.isEmpty == false)
        #expect(requests[1].json["stream"] == false)
        #expect(requests[2].query("limit") == ["5"])
        #expect(requests[3].query("limit") == ["7"])

        // Ordinary calls, with and without ChatStream's extra parameters, stay unambiguous.
        _ = try await client.send("a")
        _ = try await client.send("b", conversationId: "c1") { _ in }
        _ = try await client.send("c", clientMessageId: "fixed-id")
        _ = try await client.listConversations(limit: 3)
        _ = try await client.listConversations(cursor: nil, limit: 3, source: .network)
        _ = try await client.listMessages(conversationId: "c1")
        #expect(transport.requests.count == 10)
        #expect(transport.requests[6].json["clientMessageId"] == "fixed-id")
    }

    @Test func aToolResultTheServerProducedIsNamedAfterItsCall() async throws {
        let transport = FakeTransport { _ in
            Wire.stream([
                ["type": "start", "messageId": "m1"],
                [
                    "type": "tool-input-start", "toolCallId": "srv-1", "toolName": "web_search",
                    "providerExecuted": true,
                ],
                [
                    "type": "tool-input-available", "toolCallId": "srv-1", "toolName": "web_search",
                    "input": ["q": "swift"], "providerExecuted": true,
                ],
                ["type": "tool-output-available", "toolCallId": "srv-1", "output": ["hits": 3]],
                ["type": "text-start", "id": "t1"], ["type": "text-delta", "id": "t1", "delta": "Found 3."],
                ["type": "text-end", "id": "t1"],
                ["type": "finish", "finishReason": "stop", "messageMetadata": ["conversationId": "c1"]],
            ])
        }
        let client = Wire.client(transport)
        let results = Mutex<[ToolResultInfo]>([])
        _ = try await client.send("search") { callbacks in
            callbacks.onToolResult = { info in results.withLock { $0.append(info) } }
        }
        #expect(results.withLock { $0.map(\.toolName) } == ["web_search"])
        #expect(results.withLock { $0.map(\.toolCallId) } == ["srv-1"])

        var names: [String?] = []
        for try await update in client.updates(sending: "search") {
            if case .toolResult(_, let name, _, _) = update.event { names.append(name) }
        }
        #expect(names == ["web_search"])
    }

    @Test func theToolLoopLimitStopsBeforeSendingPastIt() async throws {
        for limit in [1, 3] {
            let transport = FakeTransport { request in
                request.route == "chat"
                    ? Wire.stream(ToolLoopTests.toolCallReply([("call-x", "again")], conversationId: "c1"))
                    : Wire.json(["data": ["success": true]])
            }
            let client = Wire.client(transport, maxToolLoopSteps: limit)
            client.tool("again") { _ in "ok" }
            let error = await #expect(throws: ChatError.self) { try await client.send("loop") }
            #expect(error == .toolLoopLimitExceeded(limit: limit))
            // As the SDK: `limit` chat requests, each reply's tools run and posted, then no more.
            #expect(transport.requests.filter { $0.route == "chat" }.count == limit)
            #expect(transport.requests.filter { $0.route.hasSuffix("tool-result") }.count == limit)
            #expect(transport.requests.last?.route.hasSuffix("tool-result") == true)
        }
    }

    @Test func aReplyWithinTheLimitFinishes() async throws {
        let rounds = Shared(0)
        let transport = FakeTransport { request in
            guard request.route == "chat" else { return Wire.json(["data": ["success": true]]) }
            var round = 0
            rounds.update {
                $0 += 1
                round = $0
            }
            return round < 3
                ? Wire.stream(ToolLoopTests.toolCallReply([("call-\(round)", "again")], conversationId: "c1"))
                : Wire.stream(Wire.reply("done now", conversationId: "c1"))
        }
        let client = Wire.client(transport, maxToolLoopSteps: 3)
        client.tool("again") { _ in "ok" }
        let response = try await client.send("loop")
        #expect(response.message.text == "done now")
        #expect(transport.requests.filter { $0.route == "chat" }.count == 3)
    }

    @Test func historyTextPartsAreJoinedOnePerLine() async throws {
        let parts: JSONTree = [
            ["type": "text", "text": "First line"], ["type": "text", "text": ""],
            ["type": "tool-call", "toolCallId": "t1", "toolName": "x", "input": [:]],
            ["type": "text", "text": "Second line"], ["type": "text", "text": "Third"],
        ]
        let transport = FakeTransport { request in
            if request.route == "chat" {
                return Wire.json([
                    "data": [
                        "id": "m-plain", "role": "assistant", "parts": parts,
                        "metadata": ["conversationId": "c1", "finishReason": "stop"],
                    ]
                ])
            }
            return Wire.page(
                [["id": "m1", "role": "assistant", "parts": parts, "createdAt": 1_700_000_000]], request: request)
        }
        let client = Wire.client(transport)
        let page = try await client.listMessages(conversationId: "c1")
        #expect(page.data.map(\.text) == ["First line\nSecond line\nThird"])
        #expect(page.data.first?.parts.count == 5)
        // A non-streamed reply is read as the SDK reads it, the same way.
        #expect(try await client.sendNonStreaming("x").message.text == "First line\nSecond line\nThird")
        // Decoded through Codable (the local store's path) too.
        let wire: JSONTree = ["id": "m1", "role": "user", "parts": parts]
        let decoded = try JSONDecoder().decode(Message.self, from: Data(wire.jsonBytes))
        #expect(decoded.text == "First line\nSecond line\nThird")
    }

    @Test(arguments: [
        (
            ["type": "error", "error": ["code": "CHAT_STREAMING_ERROR", "message": "the model is overloaded"]]
                as JSONTree,
            "CHAT_STREAMING_ERROR", "the model is overloaded"
        ),
        (["type": "error", "errorText": "upstream failed"] as JSONTree, "CHAT_STREAMING_ERROR", "upstream failed"),
        (
            ["type": "error", "error": ["code": "MODEL_TIMEOUT", "message": "slow"]] as JSONTree, "MODEL_TIMEOUT",
            "slow"
        ),
    ])
    func aModelErrorMidReplyIsTheDocumentedErrorWithTheTextSoFar(errorChunk: JSONTree, code: String, message: String)
        async throws
    {
        let transport = FakeTransport { _ in
            Wire.stream([
                ["type": "start", "messageId": "m1"], ["type": "text-start", "id": "t1"],
                ["type": "text-delta", "id": "t1", "delta": "The answer "],
                ["type": "text-delta", "id": "t1", "delta": "is"], errorChunk,
            ])
        }
        let client = Wire.client(transport)
        let deltas = Mutex<[String]>([])
        let error = await #expect(throws: APIError.self) {
            try await client.send("question") { callbacks in
                callbacks.onTextDelta = { chunk in deltas.withLock { $0.append(chunk) } }
            }
        }
        guard case .httpError(let status, let detail)? = error else {
            Issue.record("not an httpError: \(String(describing: error))")
            return
        }
        #expect(status == 500)
        #expect(detail.code == code)
        #expect(detail.message == message)
        #expect(detail.partialReply?.text == "The answer is")
        #expect(error?.replyStreamError?.partialMessage.text == "The answer is")
        #expect(error?.replyStreamError?.streamError.kind == .remote)
        #expect(error?.isTransient == false)
        #expect(error?.localizedDescription.contains(message) == true)
        #expect(deltas.withLock { $0.joined() } == "The answer is")
    }
}
