import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("ChatbaseClient sending (scripted transport)", .blockingAllowed)
struct ChatClientSendTests {
    @Test func newConversationIsAssignedFromTheStreamThenContinued() async throws {
        let transport = FakeTransport { request in
            let id = request.json["conversationId"]?.stringValue ?? "conv-new"
            return Wire.stream(Wire.reply("Hello there", conversationId: id))
        }
        let client = Wire.client(transport)
        var assigned: [String] = []
        var text = ""
        for try await update in client.updates(sending: "hi") {
            switch update.event {
            case .conversationAssigned(let id): assigned.append(id)
            case .textDelta(_, let delta): text += delta
            default: break
            }
        }
        #expect(assigned == ["conv-new"])
        #expect(text == "Hello there")
        #expect(client.currentConversationId == "conv-new")

        let second = try await client.send("more", conversationId: client.currentConversationId)
        #expect(second.conversationId == "conv-new")
        #expect(second.userMessageId == "u-1")
        #expect(second.finishReason == .stop)
        #expect(second.usage == Usage(credits: 1))
        #expect(second.rawUsage == ["credits": 1])
        // nil never falls back to the remembered conversation.
        _ = try await client.send("fresh")
        let bodies = transport.requests.map(\.json)
        #expect(bodies[0]["conversationId"] == nil)
        #expect(bodies[1]["conversationId"] == "conv-new")
        #expect(bodies[2]["conversationId"] == nil)
        #expect(bodies.allSatisfy { $0["stream"] == true })
        #expect(transport.requests[0].route == "chat")
        #expect(transport.requests[0].headers["Accept"] == "text/event-stream")
        client.newConversation()
        #expect(client.currentConversationId == nil)
    }

    @Test func nonStreamingSendDecodesTheDataEnvelope() async throws {
        let transport = FakeTransport { _ in
            Wire.json([
                "data": [
                    "id": "m9", "role": "assistant", "parts": [["type": "text", "text": "Whole reply"]],
                    "metadata": ["conversationId": "c9", "userMessageId": "u9", "finishReason": "stop"],
                ]
            ])
        }
        let client = Wire.client(transport)
        let deltas = Mutex<[String]>([])
        let response = try await client.sendNonStreaming("hi")
        #expect(response.message.text == "Whole reply")
        #expect(response.conversationId == "c9")
        #expect(response.userMessageId == "u9")
        #expect(deltas.withLock { $0 }.isEmpty)
        #expect(transport.requests[0].json["stream"] == false)
        #expect(client.currentConversationId == "c9")
    }

    @Test func endedConversationAnswers403NotOngoing() async throws {
        let client = Wire.client(FakeTransport { _ in Wire.error(403, "CHAT_CONVERSATION_NOT_ONGOING", "ended") })
        let error = await #expect(throws: APIError.self) { try await client.send("hi", conversationId: "c1") }
        #expect(error?.statusCode != nil)
        #expect(error?.statusCode == 403)
        #expect(error?.isConversationNotOngoing == true)
        #expect(error?.description == "403 CHAT_CONVERSATION_NOT_ONGOING: ended")
    }

    /// `updates(sending:)` hands every delta over with the message as it stands (its text so far),
    /// while `send`'s callbacks, which read the events alone, get the same deltas.
    @Test func everyDeltasUpdateCarriesTheTextSoFar() async throws {
        let transport = FakeTransport { _ in Wire.stream(Wire.reply("Hello there", conversationId: "c1")) }
        let client = Wire.client(transport)
        var text = ""
        var seen: [String] = []
        for try await update in client.updates(sending: "hi") {
            guard case .textDelta(_, let delta) = update.event else { continue }
            text += delta
            seen.append(update.message.text)
            #expect(update.message.id == "m-reply")
        }
        #expect(seen == ["Hel", "Hello there"])
        let deltas = Shared<[String]>([])
        let response = try await client.send("hi") { callbacks in
            callbacks.onTextDelta = { deltas.value.append($0) }
        }
        #expect(deltas.value == ["Hel", "lo there"])
        #expect(response.message.text == "Hello there")
    }

    @Test func rateLimitCarriesRetryAfter() async throws {
        let client = Wire.client(
            FakeTransport { _ in
                Wire.error(429, "RATE_LIMIT_TOO_MANY_REQUESTS", "slow down", headers: ["Retry-After": "7"])
            })
        let error = await #expect(throws: APIError.self) {
            for try await _ in client.updates(sending: "hi") {}
        }
        #expect(error?.isRateLimited == true)
        #expect(error?.retryAfter == 7)
        #expect(error?.isNotFound == false)
    }

    @Test func unparseableErrorBodyHasCodeUnknown() async throws {
        let client = Wire.client(
            FakeTransport { _ in HTTPResponse(status: 502, body: HTTPBody(bytes: Array("bad gateway".utf8))) })
        let error = await #expect(throws: APIError.self) { try await client.send("hi") }
        #expect(error?.apiCode == "UNKNOWN")
        #expect(error?.statusCode == 502)
        #expect(error?.detail?.message == "bad gateway")
    }

    @Test func droppedConnectionIsATruncationWithThePartialMessage() async throws {
        let client = Wire.client(
            FakeTransport { _ in
                let head = Wire.sse(Array(Wire.reply("Hello there", conversationId: "c1").prefix(3)), done: false)
                let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
                    continuation.yield(head)
                    continuation.finish(throwing: TransportError(.connectionLost, "reset by peer"))
                }
                return HTTPResponse(status: 200, body: HTTPBody(body))
            })
        let error = await #expect(throws: APIError.self) { try await client.send("hi") }
        #expect(error?.replyStreamError?.streamError.kind == .truncated)
        #expect(error?.replyStreamError?.transportError?.kind == .connectionLost)
        #expect(error?.replyStreamError?.partialMessage.text == "Hel")
    }

    @Test func streamEndingWithoutDoneIsATruncation() async throws {
        let client = Wire.client(
            FakeTransport { _ in
                Wire.stream(Array(Wire.reply("Hello there", conversationId: "c1").prefix(4)), done: false)
            })
        let error = await #expect(throws: APIError.self) { try await client.send("hi") }
        #expect(error?.replyStreamError?.streamError.kind == .truncated)
        #expect(error?.replyStreamError?.partialMessage.text == "Hello there")
    }

    @Test func stoppingIterationCancelsTheResponseBody() async throws {
        let terminated = Shared(false)
        let client = Wire.client(
            FakeTransport { _ in
                let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
                    continuation.yield(
                        Wire.sse(Array(Wire.reply("Hello there", conversationId: "c1").prefix(3)), done: false))
                    continuation.onTermination = { _ in terminated.value = true }
                    // Never finishes on its own: only cancellation ends it.
                }
                return HTTPResponse(status: 200, body: HTTPBody(body))
            })
        for try await update in client.updates(sending: "hi") {
            if case .textDelta = update.event { break }
        }
        #expect(await eventually(timeout: .seconds(60)) { terminated.value })
    }

    @Test func identityHeadersAndIdentify() async throws {
        let transport = FakeTransport { request in
            request.route == "verify" ? Wire.json([:]) : Wire.stream(Wire.reply("ok ok", conversationId: "c1"))
        }
        let client = Wire.client(transport)
        _ = try await client.send("anonymous")
        try await client.identify(token: "jwt-123")
        #expect(client.isIdentified)
        _ = try await client.send("identified")
        client.logout()
        _ = try await client.send("anonymous again")
        let requests = transport.requests
        #expect(requests.map(\.route) == ["chat", "verify", "chat", "chat"])
        #expect(requests.allSatisfy { $0.headers["X-Device-Id"] == "0f0e0d0c-0b0a-4908-8706-050403020100" })
        #expect(requests.allSatisfy { $0.headers["User-Agent"] == "ChatStream/\(ChatbaseClient.version)" })
        #expect(requests[1].json["token"] == "jwt-123")
        #expect(requests[0].headers["X-User-Token"] == nil)
        #expect(requests[2].headers["X-User-Token"] == "jwt-123")
        #expect(requests[3].headers["X-User-Token"] == nil)
    }

    @Test func rejectedIdentifyKeepsTheClientAnonymous() async throws {
        let client = Wire.client(FakeTransport { _ in Wire.error(401, "AUTH_INVALID_JWT", "bad token") })
        await #expect(throws: APIError.self) { try await client.identify(token: "nope") }
        #expect(!client.isIdentified)
    }
}
