// ChatbaseClient's documented behaviour, against the real ChatAPIServer over loopback HTTP.

import ChatStream
import ChatStreamServer
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ChatbaseClient as the Chatbase SDK documents it", .blockingAllowed)
struct DocumentedClientTests {
    @Test func theDocumentedInitializerHasTheDocumentedDefaults() async throws {
        let client = ChatbaseClient(agentId: "agent-x")
        #expect(client.baseURL.absoluteString == "https://www.chatbase.co/api/sdk")
        #expect(client.maxToolLoopSteps == 10)
        #expect(client.authState == .anonymous)
        #expect(client.currentUserId == nil)
        #expect(client.currentConversationId == nil)
        let configured = ChatbaseClient(
            agentId: "agent-x", configuration: .ephemeral, maxToolLoopSteps: 20)
        #expect(configured.maxToolLoopSteps == 20)
        let broken = ChatbaseClient(agentId: "agent-x", baseURL: "not a url")
        await #expect(throws: ChatError.invalidURL("not a url")) { try await broken.send("hi") }
    }

    @Test func sendAwaitsTheWholeReplySoItsErrorsSurface() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            let id = try await client.send("first").conversationId
            _ = try await client.closeConversation(id: id)
            await #expect(throws: APIError.self) { _ = try await client.send("again", conversationId: id) }
            let deltas = Mutex("")
            let response = try await client.send("streamed") { callbacks in
                callbacks.onTextDelta = { chunk in deltas.withLock { $0 += chunk } }
            }
            #expect(response.message.text == deltas.withLock { $0 })
            #expect(response.message.text.contains("streamed"))
            #expect(response.finishReason == .stop)
            #expect(response.usage.credits > 0)
            #expect(response.message.sender == .agent)
        }
    }

    @Test func onToolResultFiresOnlyOnceTheServerHasTheResult() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            let order = Mutex<[String]>([])
            client.tool("get_weather") { input in
                order.withLock { $0.append("handler") }
                return ["city": input["city"] ?? .null, "sky": "clear"]
            }
            let seenOnServer = Mutex<Bool?>(nil)
            let response = try await client.send("weather in Oslo?") { callbacks in
                callbacks.onToolCall = { info in
                    order.withLock { $0.append("call \(info.toolName) \(info.input["city"]?.stringValue ?? "?")") }
                }
                callbacks.onToolResult = { info in
                    order.withLock { $0.append("result \(info.output["sky"]?.stringValue ?? "?")") }
                    // The result is in the conversation's history when the callback runs.
                    let id = client.currentConversationId ?? ""
                    let history = try? await client.listMessages(conversationId: id)
                    let posted = history?.data.contains { message in
                        message.parts.contains {
                            if case .toolResult(let callId, _, _) = $0 { return callId == info.toolCallId }
                            return false
                        }
                    }
                    seenOnServer.withLock { $0 = posted }
                }
            }
            #expect(order.withLock { $0 } == ["call get_weather Oslo", "handler", "result clear"])
            #expect(seenOnServer.withLock { $0 } == true)
            #expect(response.message.text.contains("The weather in Oslo"))
        }
    }

    @Test func sendNonStreamingDoesNotRunTheToolLoop() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            let runs = Mutex(0)
            client.tool("get_weather") { _ in
                runs.withLock { $0 += 1 }
                return "sunny"
            }
            let response = try await client.sendNonStreaming("weather in Rome?")
            #expect(runs.withLock { $0 } == 0)
            #expect(response.finishReason == .toolCalls)
            #expect(
                response.message.parts == [
                    .toolCall(toolCallId: toolCallId(response), toolName: "get_weather", input: ["city": "Rome"])
                ])
            let history = try await client.listMessages(conversationId: response.conversationId)
            #expect(history.data.count == 2)
            let plain = try await client.sendNonStreaming("hello", conversationId: response.conversationId)
            #expect(plain.finishReason == .stop)
            #expect(plain.message.text.contains("hello"))
        }
    }

    func toolCallId(_ response: ChatResponse) -> String {
        for case .toolCall(let id, _, _) in response.message.parts { return id }
        return "none"
    }

    @Test func unknownAndThrowingToolsAnswerWithAnErrorObject() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            let results = Mutex<[JSONValue]>([])
            let response = try await client.send("weather in Lima?") { callbacks in
                callbacks.onToolResult = { info in results.withLock { $0.append(info.output) } }
            }
            let output = try #require(results.withLock { $0 }.first)
            #expect(output["error"]?.stringValue?.contains("get_weather") == true)
            #expect(response.message.text.contains("error"))

            struct Unavailable: LocalizedError {
                var errorDescription: String? { "the weather service is down" }
            }
            client.tool("get_weather") { _ in throw Unavailable() }
            results.withLock { $0 = [] }
            _ = try await client.send("weather in Lima?") { callbacks in
                callbacks.onToolResult = { info in results.withLock { $0.append(info.output) } }
            }
            #expect(results.withLock { $0 } == [["error": "the weather service is down"]])
        }
    }

    @Test func exceedingTheToolLoopLimitIsCaughtByItsCase() async throws {
        let transport = FakeTransport { request in
            request.route == "chat"
                ? Wire.stream(ToolLoopTests.toolCallReply([("call-x", "again")], conversationId: "c1"))
                : Wire.json(["data": ["success": true]])
        }
        let client = Wire.client(transport, maxToolLoopSteps: 2)
        client.tool("again") { _ in "ok" }
        var caught: Int? = nil
        do {
            _ = try await client.send("loop")
        } catch ChatError.toolLoopLimitExceeded(let limit) {
            caught = limit
        }
        #expect(caught == 2)
    }

    @Test func errorsReadWellThroughLocalizedDescription() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            let id = try await client.send("first").conversationId
            _ = try await client.closeConversation(id: id)
            do {
                _ = try await client.send("again", conversationId: id)
                Issue.record("sending to an ended conversation succeeded")
            } catch {
                let text = error.localizedDescription
                #expect(!text.contains("could not be completed"))
                #expect(text.contains("403"))
                #expect(text.contains("CHAT_CONVERSATION_NOT_ONGOING"))
            }
        }
        let limit = ChatError.toolLoopLimitExceeded(limit: 4) as any Error
        #expect(limit.localizedDescription.contains("4 tool rounds"))
        let refused = APIError.invalidArgument("limit", "must be between 1 and 100, got 0") as any Error
        #expect(refused.localizedDescription.hasPrefix("limit must be between 1 and 100, got 0"))
        let network = APIError.networkError(TransportError(.connectionFailed, "connection refused")) as any Error
        #expect(network.localizedDescription.contains("connection refused"))
    }

    @Test func aRequestThatCannotConnectIsANetworkErrorHoldingTheURLError() async throws {
        // Bound, never listening, and held: a port a stopped server gave back could be taken by
        // another test's server meanwhile (seen once: a 404 from it instead of a refusal).
        let reserved = try ReservedPort()
        let client = ChatbaseClient(
            agentId: "agent-x", baseURL: URL(string: "http://127.0.0.1:\(reserved.port)")!,
            identityStore: InMemoryIdentityStore())
        var underlying: URLError? = nil
        do {
            _ = try await client.send("hi")
        } catch APIError.networkError(let error as URLError) {
            underlying = error
        }
        #expect(underlying != nil)
        #expect(APIError.networkError(try #require(underlying)).isTransient)
        withExtendedLifetime(reserved) {}
    }

    @Test func identityIsAPropertyAndAnAuthState() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient("0f0e0d0c-0b0a-4908-8706-050403020100")
            #expect(client.deviceId == "0f0e0d0c-0b0a-4908-8706-050403020100")
            #expect("\(client.deviceId)" == "0f0e0d0c-0b0a-4908-8706-050403020100")
            _ = try await client.send("anonymous")
            #expect(client.currentUserId == nil)
            let token = EndToEndTests.token("user-7")
            try await client.identify(token: token)
            #expect(client.authState == .identified(token: token))
            _ = try await client.send("identified")
            #expect(client.currentUserId == "user-7")
            client.logout()
            #expect(client.authState == .anonymous)
            #expect(client.currentUserId == nil)
        }
    }
}
