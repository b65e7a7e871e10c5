// Bugs the fault-proxy end-to-end run found, each pinned by a small test against a scripted server:
// a live `reset` while a send streams no longer drops the send's rows (the reload waits for the send
// to end); a reply a restart interrupted before its first part still shows as a failed row (history
// keeps it, so it can be retried); a reply whose `start` never came is still named by the response's
// `X-Message-Id` when it fails, so retry(messageId:) can regenerate it; a retry whose answer was
// lost before it named the new reply reloads the conversation; a failed send the live stream shows
// stored settles its rows and leaves the outbox.

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@MainActor
@Suite("Bugs the fault-proxy run found", .blockingAllowed)
struct FoundByTheFaultRunTests {
    static let conversationId = ScriptedReply.conversationId

    @Test func aResetWhileSendingReloadsAfterTheSendInsteadOfDroppingItsRows() async throws {
        let (body, feed) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let pages = Mutex(0)
        let stored: [JSONTree] = [
            Wire.messageJSON("u-1", text: "hello", role: "user"), Wire.messageJSON("m-reply", text: "Echo: hello"),
        ]
        let transport = FakeTransport { request in
            switch request.route {
            case "chat":
                return HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"], body: HTTPBody(body))
            case "conversations/\(Self.conversationId)/messages":
                pages.withLock { $0 += 1 }
                return Wire.page(stored, request: request)
            default:
                return Wire.error(404, "NOT_FOUND")
            }
        }
        let state = ConversationState(client: Wire.client(transport), conversationId: Self.conversationId)
        let events = Wire.reply("Echo: hello", conversationId: Self.conversationId)
        let send = Task { await state.sendMessage("hello") }
        feed.yield(Wire.sse(Array(events.prefix(3)), done: false))
        #expect(await eventuallyOnMain(timeout: .seconds(120)) { state.messages.last?.kind == .text("Ech") })
        await state.handleLive(LiveEvent(id: nil, kind: .reset))
        // The send's rows stay while it streams: nothing reloaded yet.
        #expect(state.messages.map(\.kind) == [.text("hello"), .text("Ech")])
        #expect(pages.withLock { $0 } == 0)
        feed.yield(Wire.sse(Array(events.dropFirst(3))))
        feed.finish()
        await send.value
        // Then the reload: the conversation as the server has it.
        #expect(pages.withLock { $0 } == 1)
        #expect(state.messages.map(\.messageId) == ["u-1", "m-reply"])
        #expect(state.messages.map(\.kind) == [.text("hello"), .text("Echo: hello")])
        #expect(!state.messages.contains { $0.isError || $0.isStreaming })
    }

    @Test func anInterruptedReplyWithoutPartsShowsAsAFailedRow() throws {
        let interrupted: JSONTree = [
            "id": "m-cut", "role": "assistant", "parts": [], "createdAt": 1_700_000_000,
            "metadata": ["interrupted": true],
        ]
        let message = try #require(try WireDecoding.decodeValue(interrupted, WireDecoding.message))
        #expect(message.isInterrupted && message.parts.isEmpty)
        let rows = ConversationState.rows(for: message)
        #expect(rows.map(\.messageId) == ["m-cut"])
        #expect(rows.map(\.isError) == [true])
        // A message without parts that was not interrupted is still skipped.
        let empty: JSONTree = ["id": "m-empty", "role": "assistant", "parts": [], "createdAt": 1_700_000_000]
        #expect(try WireDecoding.decodeValue(empty, WireDecoding.message) == nil)
    }

    @Test func aReplyWhoseStartNeverCameIsNamedByItsHeaderWhenItFails() async throws {
        let transport = FakeTransport { request in
            switch request.route {
            case "chat":
                // The head names the reply; the body is cut before its first event.
                return HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/event-stream", "X-Message-Id": "m-named"],
                    body: HTTPBody(bytes: []))
            default:
                // The resume route: the reply was cut by a restart.
                return HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/event-stream"],
                    body: HTTPBody(bytes: Wire.sse([["type": "error", "errorText": "interrupted"]])))
            }
        }
        let state = ConversationState(client: Wire.client(transport), conversationId: Self.conversationId)
        await state.sendMessage("hello")
        let reply = try #require(state.messages.last)
        #expect(reply.sender == .agent && reply.isError)
        #expect(reply.messageId == "m-named")
        #expect(state.messages.first?.delivery == .sent)
    }
}

extension FoundByTheFaultRunTests {
    /// The retry's request reached the server (which replaced the reply) but its answer was lost
    /// before the new reply was named: the failed row had no ID, so nothing could retry it and it
    /// never matched the server. The conversation is read again instead.
    @Test func aRetryWhoseAnswerWasLostShowsTheConversationAsTheServerHasIt() async throws {
        let retried = Mutex(false)
        let cut: JSONTree = [
            "id": "m-cut", "role": "assistant", "parts": [], "createdAt": 1_700_000_001, "feedback": nil,
            "metadata": ["interrupted": true],
        ]
        let user = Wire.messageJSON("u-1", text: "hello", role: "user")
        let transport = FakeTransport { request in
            switch request.route {
            case "conversations/\(Self.conversationId)/retry":
                retried.withLock { $0 = true }
                throw TransportError(.connectionLost, "the connection broke before the response head")
            case "conversations/\(Self.conversationId)/messages":
                let reply =
                    retried.withLock { $0 } ? Wire.messageJSON("m-new", text: "Echo: hello", at: 1_700_000_002) : cut
                return Wire.page([user, reply], request: request)
            default:
                return Wire.error(404, "NOT_FOUND")
            }
        }
        let state = ConversationState(client: Wire.client(transport), conversationId: Self.conversationId)
        await state.loadHistory(conversationId: Self.conversationId)
        #expect(state.messages.map(\.isError) == [false, true])
        await state.retry(messageId: "m-cut")
        #expect(state.error != nil)
        #expect(state.messages.map(\.messageId) == ["u-1", "m-new"])
        #expect(state.messages.map(\.kind) == [.text("hello"), .text("Echo: hello")])
        #expect(!state.messages.contains { $0.isError || $0.isStreaming })
    }
}

extension FoundByTheFaultRunTests {
    /// A send whose answer read as a failure (a garbled head) though the server stored the message:
    /// the row was failed, the outbox kept it failed, and when the live stream showed the message
    /// and its reply, the empty failed reply row stayed beside the real one (and the outbox entry
    /// came back as a failed row at the next reload). The live stream settles all three.
    @Test func aFailedSendTheLiveStreamShowsStoredSettlesItsRowsAndTheOutbox() async throws {
        let transport = FakeTransport { request in
            if request.route == "chat" { throw TransportError(.invalidResponse, "a garbled answer") }
            return Wire.error(404, "NOT_FOUND")
        }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            retryPolicy: .init(maxAttempts: 1), store: HistoryStore.inMemory(), outbox: .automatic)
        let state = ConversationState(client: client, conversationId: Self.conversationId)
        await state.sendMessage("hello")
        #expect(state.messages.map(\.sender) == [.user, .agent])
        #expect(state.messages.map(\.isError) == [true, true])
        #expect(try client.outbox().map(\.state) == [.failed])
        let clientMessageId = try #require(transport.requests.first?.json["clientMessageId"]?.stringValue)

        var user = Message(id: "u-1", text: "hello", sender: .user, date: Date())
        user.clientMessageId = clientMessageId
        let reply = Message(
            id: "m-reply", text: "Echo: hello", sender: .agent, date: Date(), parts: [.text("Echo: hello")])
        for (index, message) in [user, reply].enumerated() {
            await state.handleLive(
                LiveEvent(
                    id: String(index), kind: .messageCreated(conversationId: Self.conversationId, message: message)))
        }
        #expect(state.messages.map(\.messageId) == ["u-1", "m-reply"])
        #expect(state.messages.map(\.kind) == [.text("hello"), .text("Echo: hello")])
        #expect(!state.messages.contains { $0.isError || $0.isPending })
        #expect(try client.outbox().isEmpty)
    }
}

extension FoundByTheFaultRunTests {
    /// The same failed send, the live stream off: the next reload showed the stored message and,
    /// at the end, its outbox entry again as a failed row. The server's page settles the outbox.
    @Test func aFailedSendTheServersPageHoldsLeavesTheOutbox() async throws {
        let stored = Mutex<[JSONTree]>([])
        let transport = FakeTransport { request in
            switch request.route {
            case "chat":
                // The server stores the message, then its answer is garbled.
                let user: JSONTree = [
                    "id": "u-1", "role": "user", "parts": [["type": "text", "text": "hello"]],
                    "createdAt": 1_700_000_000, "feedback": nil,
                    "clientMessageId": request.json["clientMessageId"] ?? .null,
                ]
                let reply = Wire.messageJSON("m-reply", text: "Echo: hello", at: 1_700_000_001)
                stored.withLock { $0 = [user, reply] }
                throw TransportError(.invalidResponse, "a garbled answer")
            case "conversations/\(Self.conversationId)/messages":
                return Wire.page(stored.withLock { $0 }, request: request)
            default:
                return Wire.error(404, "NOT_FOUND")
            }
        }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            retryPolicy: .init(maxAttempts: 1), store: HistoryStore.inMemory(), outbox: .automatic)
        let state = ConversationState(client: client, conversationId: Self.conversationId)
        await state.sendMessage("hello")
        #expect(try client.outbox().map(\.state) == [.failed])
        await state.loadHistory(conversationId: Self.conversationId)
        #expect(state.messages.map(\.messageId) == ["u-1", "m-reply"])
        #expect(!state.messages.contains { $0.isError || $0.isPending })
        #expect(try client.outbox().isEmpty)
    }
}

/// Polls `condition` on the main actor until it holds or `timeout` passes.
@MainActor
func eventuallyOnMain(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
