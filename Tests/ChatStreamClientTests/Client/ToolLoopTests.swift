import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Tool loop (scripted transport)", .blockingAllowed)
struct ToolLoopTests {
    static func toolCallReply(_ calls: [(id: String, name: String)], conversationId: String) -> [JSONTree] {
        var events: [JSONTree] = [["type": "start", "messageId": "m-tools"]]
        for call in calls {
            events.append(["type": "tool-input-start", "toolCallId": .string(call.id), "toolName": .string(call.name)])
            events.append([
                "type": "tool-input-available", "toolCallId": .string(call.id), "toolName": .string(call.name),
                "input": ["city": "Paris"],
            ])
        }
        events.append([
            "type": "finish", "finishReason": "tool-calls",
            "messageMetadata": ["conversationId": .string(conversationId), "finishReason": "tool-calls"],
        ])
        return events
    }

    @Test func toolCallsAreRunPostedAndTheChatContinues() async throws {
        let failuresLeft = Shared(1)
        let transport = FakeTransport { request in
            switch request.route {
            case "chat" where request.json["message"] != nil:
                return Wire.stream(
                    Self.toolCallReply(
                        [("call-1", "weather"), ("call-2", "missing"), ("call-3", "broken")], conversationId: "c1"))
            case "chat":
                return Wire.stream(Wire.reply("It is sunny", conversationId: "c1"))
            case "conversations/c1/tool-result":
                var fail = false
                failuresLeft.update { if $0 > 0 { $0 -= 1; fail = true } }
                return fail ? Wire.error(503, "INTERNAL_SERVER_ERROR") : Wire.json(["data": ["success": true]])
            default:
                return Wire.error(404, "NOT_FOUND")
            }
        }
        let client = Wire.client(transport)
        struct Broken: Error {}
        client.tool("weather") { input in ["city": input["city"] ?? .null, "sky": "sunny"] }
        client.tool("broken") { _ in throw Broken() }
        let results = Mutex<[String]>([])
        let response = try await client.send("weather?") { callbacks in
            callbacks.onToolResult = { r in results.withLock { $0.append(r.toolCallId) } }
        }
        #expect(response.message.text == "It is sunny")
        #expect(response.conversationId == "c1")
        #expect(results.withLock { $0 } == ["call-1", "call-2", "call-3"])
        let posts = transport.requests.filter { $0.route.hasSuffix("tool-result") }.map(\.json)
        // call-1 failed once with 503 and was retried.
        #expect(posts.map { $0["toolCallId"]?.stringValue } == ["call-1", "call-1", "call-2", "call-3"])
        #expect(posts[0]["output"] == ["city": "Paris", "sky": "sunny"])
        #expect(posts[2]["output"]?["error"]?.stringValue?.contains("missing") == true)
        #expect(posts[3]["output"]?["error"] != nil)
        let continuation = transport.requests.last!
        #expect(continuation.route == "chat")
        #expect(continuation.json["message"] == nil)
        #expect(continuation.json["conversationId"] == "c1")
    }

    @Test func theResponseTextJoinsTheTextOfEveryRoundAndTakesTheFinalRoundsId() async throws {
        let transport = FakeTransport { request in
            switch request.route {
            case "chat" where request.json["message"] != nil:
                var events: [JSONTree] = [
                    ["type": "start", "messageId": "m-first"], ["type": "text-start", "id": "t0"],
                    ["type": "text-delta", "id": "t0", "delta": "Let me check. "], ["type": "text-end", "id": "t0"],
                ]
                events += Self.toolCallReply([("call-1", "weather")], conversationId: "c1").dropFirst()
                return Wire.stream(events)
            case "chat":
                return Wire.stream(Wire.reply("It is sunny", conversationId: "c1", messageId: "m-final"))
            default:
                return Wire.json(["data": ["success": true]])
            }
        }
        let client = Wire.client(transport)
        client.tool("weather") { _ in ["sky": "sunny"] }
        let response = try await client.send("weather?")
        #expect(response.message.text == "Let me check. It is sunny")
        #expect(response.message.id == "m-final")
        #expect(response.finishReason == .stop)
        #expect(
            response.message.parts == [
                .text("Let me check. "), .toolCall(toolCallId: "call-1", toolName: "weather", input: ["city": "Paris"]),
                .toolResult(toolCallId: "call-1", toolName: "weather", output: ["sky": "sunny"]), .text("It is sunny"),
            ])
    }

    @Test func theLoopStopsAfterMaxToolLoopSteps() async throws {
        let transport = FakeTransport { request in
            request.route == "chat"
                ? Wire.stream(Self.toolCallReply([("call-x", "again")], conversationId: "c1"))
                : Wire.json(["data": ["success": true]])
        }
        let client = Wire.client(transport, maxToolLoopSteps: 3)
        client.tool("again") { _ in "ok" }
        let error = await #expect(throws: ChatError.self) { try await client.send("loop") }
        #expect(error == .toolLoopLimitExceeded(limit: 3))
        #expect(transport.requests.filter { $0.route == "chat" }.count == 3)
    }

    @Test func persistentToolResultFailuresSurface() async throws {
        let transport = FakeTransport { request in
            request.route == "chat"
                ? Wire.stream(Self.toolCallReply([("call-1", "t")], conversationId: "c1"))
                : Wire.error(503, "INTERNAL_SERVER_ERROR")
        }
        let client = Wire.client(transport)
        let error = await #expect(throws: APIError.self) { try await client.send("x") }
        #expect(error?.statusCode == 503)
        #expect(transport.requests.filter { $0.route.hasSuffix("tool-result") }.count == 3)
    }
}
