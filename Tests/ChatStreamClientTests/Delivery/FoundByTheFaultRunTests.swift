// Bugs the fault-proxy end-to-end run found, each pinned by a small test against a scripted server:
// a live `reset` while a send streams no longer drops the send's rows (the reload waits for the send
// to end); a reply a restart interrupted before its first part still shows as a failed row (history
// keeps it, so it can be retried); a reply whose `start` never came is still named by the response's
// `X-Message-Id` when it fails, so retry(messageId:) can regenerate it.

import ChatStream
import Foundation
import Synchronization
import Testing

@testable import ChatStreamClient

@MainActor
@Suite("Bugs the fault-proxy run found")
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
        #expect(await eventuallyOnMain(timeout: .seconds(10)) { state.messages.last?.kind == .text("Ech") })
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
