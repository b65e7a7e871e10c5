// A reply a server restart interrupted stays marked as such in the client's local store: the next
// launch, reading the cache while the server cannot be reached, shows it failed (so the user can
// retry it) and its neighbours as they were.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@MainActor
@Suite("An interrupted reply stays interrupted in the local store", .blockingAllowed)
struct InterruptedInStoreTests {
    static let conversationId = ScriptedReply.conversationId

    /// A launch of the app: a client on the store file at `path`, its requests answered by `answer`.
    static func launch(path: String, _ answer: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) throws
        -> ChatbaseClient
    {
        ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: FakeTransport(answer),
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            retryPolicy: .init(maxAttempts: 1), store: try HistoryStore(path: path))
    }

    @Test func theNextLaunchShowsACachedInterruptedReplyFailed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatstream-interrupted-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/history.sqlite"
        let cut: JSONTree = [
            "id": "m-cut", "role": "assistant", "parts": [["type": "text", "text": "Echo: he"]],
            "createdAt": 1_700_000_001, "feedback": nil, "metadata": ["score": 1, "interrupted": true],
        ]
        let emptyCut: JSONTree = [
            "id": "m-empty-cut", "role": "assistant", "parts": [], "createdAt": 1_700_000_003, "feedback": nil,
            "metadata": ["interrupted": true],
        ]
        let stored: [JSONTree] = [
            Wire.messageJSON("u-1", text: "hello", role: "user", at: 1_700_000_000), cut,
            Wire.messageJSON("u-2", text: "again", role: "user", at: 1_700_000_002), emptyCut,
        ]
        let first = try Self.launch(path: path) { request in Wire.page(stored, request: request) }
        let fetched = try await first.listMessages(conversationId: Self.conversationId)
        #expect(fetched.data.map(\.isInterrupted) == [false, true, false, true])

        // The next launch, offline: the cache as it was, the interrupted replies marked.
        let next = try Self.launch(path: path) { _ in throw TransportError(.connectionFailed, "offline") }
        let cached = try await next.listMessages(conversationId: Self.conversationId, source: .local)
        #expect(cached.data.map(\.id) == ["u-1", "m-cut", "u-2", "m-empty-cut"])
        #expect(cached.data.map(\.isInterrupted) == [false, true, false, true])
        let state = ConversationState(client: next)
        await state.loadHistory(conversationId: Self.conversationId)
        #expect(state.error != nil)
        #expect(state.messages.map(\.messageId) == ["u-1", "m-cut", "u-2", "m-empty-cut"])
        #expect(state.messages.map(\.isError) == [false, true, false, true])
        #expect(state.messages.map(\.kind) == [.text("hello"), .text("Echo: he"), .text("again"), .text("")])
    }
}
