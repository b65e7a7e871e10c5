// No gap between load and live (issue 28, deliverable 3): what changed between a UI state's
// `load()`/`loadHistory()` and the moment its subscription began is shown once the subscription
// is live, the state says where the subscription stands, and a reconnection resumes from the
// last event (scripted server on the fake transport, whose event stream the test drives).

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

/// A scripted server: a conversation list, one conversation's messages, and an event stream the
/// test writes to.
final class ScriptedLiveServer: Sendable {
    struct Data {
        var conversations: [JSONTree] = []
        var messages: [JSONTree] = []
        var status = "ongoing"
        var streams: [AsyncThrowingStream<[UInt8], any Error>.Continuation] = []
        var lastEventIds: [String?] = []
    }
    let data = Mutex(Data())

    static func conversation(_ id: String, updated: Double, status: String = "ongoing") -> JSONTree {
        [
            "id": .string(id), "title": .null, "createdAt": 1, "updatedAt": .number(JSONNumber(updated)),
            "userId": .null, "status": .string(status), "tags": [], "unreadCount": 0,
        ]
    }

    static func message(_ id: String, _ role: String, _ text: String, at time: Double) -> JSONTree {
        [
            "id": .string(id), "role": .string(role), "parts": [["type": "text", "text": .string(text)]],
            "createdAt": .number(JSONNumber(time)), "feedback": .null,
        ]
    }

    static func page(_ items: [JSONTree]) -> HTTPResponse {
        Wire.json([
            "data": .array(items),
            "pagination": ["cursor": .null, "hasMore": false, "total": .number(JSONNumber(items.count))],
        ])
    }

    var transport: FakeTransport {
        FakeTransport { [self] request in
            switch request.route {
            case "conversations":
                return Self.page(data.withLock { $0.conversations })
            case "conversations/c1":
                let status = data.withLock { $0.status }
                return Wire.json(["data": Self.conversation("c1", updated: 100, status: status)])
            case "conversations/c1/messages":
                return Self.page(data.withLock { $0.messages })
            case "events":
                let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
                // The position now: the given Last-Event-ID when nothing happened since, else 5.
                let position = request.headers["Last-Event-ID"] ?? "5"
                continuation.yield(Array("retry: 10\nid: \(position)\nevent: subscribed\ndata: {}\n\n".utf8))
                data.withLock {
                    $0.streams.append(continuation)
                    $0.lastEventIds.append(request.headers["Last-Event-ID"])
                }
                return HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/event-stream"], body: HTTPBody(stream))
            default:
                return Wire.error(404, "NOT_FOUND")
            }
        }
    }

    /// Writes `text` to the newest event stream.
    func send(_ text: String) { data.withLock { _ = $0.streams.last?.yield(Array(text.utf8)) } }

    /// Ends the newest event stream (the server went away).
    func closeStream() { data.withLock { $0.streams.last?.finish() } }

    func client(_ transport: FakeTransport) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: "device-gap"), retryPolicy: .none, store: nil)
    }
}

@MainActor
@Suite("No gap between load and live", .blockingAllowed)
struct LiveGapTests {
    static let options = LiveEventOptions(
        defaultRetry: .milliseconds(10), maxDelay: .milliseconds(100), jitter: 0, minimumBackoff: .milliseconds(10))

    @Test func theListShowsWhatChangedBetweenLoadAndStartLive() async throws {
        let server = ScriptedLiveServer()
        server.data.withLock { $0.conversations = [ScriptedLiveServer.conversation("c1", updated: 100)] }
        let transport = server.transport
        let list = ConversationListState(client: server.client(transport))
        await list.load()
        #expect(list.conversations.map(\.id) == ["c1"])
        #expect(list.liveState == .stopped)
        // Another device starts a conversation after the list was read and before it follows.
        server.data.withLock { $0.conversations.insert(ScriptedLiveServer.conversation("c2", updated: 200), at: 0) }
        list.startLive(options: Self.options)
        #expect(list.liveState == .connecting)
        #expect(
            await LiveUIStateTests.until { list.liveState == .live && list.conversations.map(\.id) == ["c2", "c1"] })

        // Then events: a third conversation, with an ID the next connection resumes after.
        let c3 = ScriptedLiveServer.conversation("c3", updated: 300)
        server.send("id: 6\nevent: conversation.created\ndata: {\"conversation\":\(c3.jsonText)}\n\n")
        #expect(await LiveUIStateTests.until { list.conversations.map(\.id) == ["c3", "c2", "c1"] })
        server.closeStream()
        #expect(await LiveUIStateTests.until { server.data.withLock { $0.lastEventIds.count } == 2 })
        #expect(server.data.withLock { $0.lastEventIds } == [nil, "6"])
        #expect(await LiveUIStateTests.until { list.liveState == .live })
        #expect(list.conversations.map(\.id) == ["c3", "c2", "c1"])
        list.stopLive()
        #expect(list.liveState == .stopped && !list.isLive)
    }

    @Test func theOpenConversationShowsWhatChangedBetweenLoadHistoryAndStartLive() async throws {
        let server = ScriptedLiveServer()
        server.data.withLock { $0.messages = [ScriptedLiveServer.message("m1", "user", "hello", at: 100)] }
        let transport = server.transport
        let state = ConversationState(client: server.client(transport))
        await state.loadHistory(conversationId: "c1")
        #expect(state.messages.compactMap(\.messageId) == ["m1"])
        #expect(state.status == .ongoing && state.canSend)
        // A human agent answers and ends the conversation before the screen follows.
        server.data.withLock {
            $0.messages.append(ScriptedLiveServer.message("m2", "human_agent", "closing this", at: 101))
            $0.status = "ended"
        }
        state.startLive(options: Self.options)
        #expect(await LiveUIStateTests.until { state.liveState == .live && state.messages.count == 2 })
        #expect(state.messages.compactMap(\.messageId) == ["m1", "m2"])
        #expect(state.status == .ended && !state.canSend)
        // An event for a message already shown by the catch-up is not shown twice.
        let m2 = ScriptedLiveServer.message("m2", "human_agent", "closing this", at: 101)
        server.send("id: 7\nevent: message.created\ndata: {\"conversationId\":\"c1\",\"message\":\(m2.jsonText)}\n\n")
        try await Task.sleep(for: .milliseconds(100))
        #expect(state.messages.compactMap(\.messageId) == ["m1", "m2"])
        state.stopLive()
        #expect(state.liveState == .stopped)
    }
}
