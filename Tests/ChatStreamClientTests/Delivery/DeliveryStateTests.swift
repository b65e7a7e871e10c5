// One visible state per outgoing message (issue 28, deliverable 2), against a scripted server:
// without an outbox a failed send is failed and never goes later by itself; with one it is pending,
// goes by itself into the conversation it was written in (created with the client-made ID when
// the server does not know it), and its row settles as sent with its reply, or as failed, once,
// when the server refuses it. Every attempt reuses the message's clientMessageId.

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

/// A scripted chat server that can be taken offline, refuse chats, and knows the conversations
/// created with client-made IDs.
final class ScriptedChatServer: Sendable {
    struct Scripted {
        var online = false
        var refusal: (status: Int, code: String)? = nil
        var conversations: Set<String> = []
        var chats: [JSONTree] = []
    }
    final class Box: Sendable { let value = Mutex(Scripted()) }
    private let box: Box
    let transport: FakeTransport

    init() {
        let box = Box()
        self.box = box
        transport = FakeTransport { request in try Self.answer(request, box) }
    }

    func withState<R>(_ body: (inout Scripted) -> R) -> R { box.value.withLock { body(&$0) } }

    var online: Bool {
        get { withState { $0.online } }
        set { withState { $0.online = newValue } }
    }
    var chats: [JSONTree] { withState { $0.chats } }

    static func answer(_ request: HTTPRequest, _ box: Box) throws -> HTTPResponse {
        let scripted = box.value.withLock { $0 }
        guard scripted.online else { throw TransportError(.connectionFailed, "connection refused") }
        switch request.route {
        case "chat":
            if let refusal = scripted.refusal { return Wire.error(refusal.status, refusal.code) }
            let body = request.json
            guard let conversationId = body["conversationId"]?.stringValue else {
                return Wire.error(400, "VALIDATION_INVALID_BODY")
            }
            guard scripted.conversations.contains(conversationId) else {
                return Wire.error(404, "RESOURCE_CONVERSATION_NOT_FOUND")
            }
            let text = body["message"]?.stringValue ?? ""
            let count = box.value.withLock { scripted in
                scripted.chats.append(body)
                return scripted.chats.count
            }
            return Wire.stream(Wire.reply("Echo: " + text, conversationId: conversationId, messageId: "m-\(count)"))
        case "conversations" where request.method == "POST":
            let id = request.json["id"]?.stringValue ?? "?"
            box.value.withLock { _ = $0.conversations.insert(id) }
            return Wire.json(["data": Wire.conversationJSON(id, updated: 1_700_000_000)], status: 201)
        case "conversations":
            return Wire.page([], request: request)
        default:
            return Wire.error(404, "NOT_FOUND")
        }
    }

    func client(outbox: OutboxPolicy) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            retryPolicy: .init(maxAttempts: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1)),
            store: HistoryStore.inMemory(), outbox: outbox)
    }
}

@MainActor @Suite("One visible state per outgoing message", .blockingAllowed)
struct DeliveryStateTests {
    @Test func theDocumentedInitialiserHasNoOutbox() {
        let client = ChatbaseClient(agentId: "agent-1", baseURL: "http://127.0.0.1:9")
        #expect(client.outboxPolicy == .off)
        client.sendsOutboxAutomatically = true
        #expect(client.outboxPolicy == .off)
    }

    @Test func withoutAnOutboxAFailedSendIsFailedAndNeverSentLater() async throws {
        let server = ScriptedChatServer()
        let client = server.client(outbox: .off)
        let state = ConversationState(client: client)
        await state.sendMessage("Order #1 please")
        #expect(state.messages.map(\.delivery) == [.failed, nil])
        #expect(state.messages[0].isError && !state.messages[0].isPending)
        #expect(state.error != nil)
        #expect(try client.outbox().isEmpty)
        server.online = true
        _ = try await client.listConversations()
        await client.outboxSettled()
        #expect(server.chats.isEmpty)
        #expect(state.messages[0].delivery == .failed)
    }

    @Test func aQueuedMessageGoesByItselfIntoItsConversationAndItsRowSettlesWithTheReply() async throws {
        let server = ScriptedChatServer()
        let client = server.client(outbox: .automatic)
        let state = ConversationState(client: client)
        await state.sendMessage("Order #1 please")
        #expect(state.messages.map(\.delivery) == [.pending])
        #expect(!state.messages[0].isError)
        let written = try #require(state.conversationId)
        #expect(UUID(uuidString: written) != nil && written == written.lowercased())
        #expect(try client.outbox().map(\.conversationId) == [written])

        server.online = true
        _ = try await client.listConversations()
        await client.outboxSettled()
        for _ in 0..<12_000 where state.messages.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.chats.count == 1)
        #expect(server.chats.first?["conversationId"]?.stringValue == written)
        #expect(state.messages.map(\.delivery) == [.sent, nil])
        #expect(state.messages.map(\.messageId) == ["u-1", "m-1"])
        #expect(state.messages.last?.kind == .text("Echo: Order #1 please"))
        #expect(state.conversationId == written)
        #expect(try client.outbox().isEmpty)
        // Nothing is sent twice: another request that reaches the server sends nothing more.
        _ = try await client.listConversations()
        await client.outboxSettled()
        #expect(server.chats.count == 1)
    }

    @Test(arguments: [(403, "CHAT_CONVERSATION_NOT_ONGOING"), (413, "QUOTA_EXCEEDED")])
    func anUndeliverableQueuedMessageIsMarkedFailedOnce(status: Int, code: String) async throws {
        let server = ScriptedChatServer()
        let client = server.client(outbox: .automatic)
        let state = ConversationState(client: client)
        await state.sendMessage("too late")
        #expect(state.messages.map(\.delivery) == [.pending])
        state.clearError()
        server.withState {
            $0.online = true
            $0.refusal = (status, code)
        }
        _ = try await client.listConversations()
        await client.outboxSettled()
        for _ in 0..<12_000 where state.messages[0].delivery == .pending {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(state.messages.map(\.delivery) == [.failed])
        #expect((state.error as? APIError)?.statusCode == status)
        #expect(try client.outbox().map(\.state) == [.failed])
        let attempts = server.transport.requests.filter { $0.route == "chat" }.count
        // Once: later flushes leave a failed message alone.
        _ = try await client.flushOutbox()
        _ = try await client.listConversations()
        await client.outboxSettled()
        #expect(server.transport.requests.filter { $0.route == "chat" }.count == attempts)
    }

    @Test func resendingAFailedRowReusesItsClientMessageId() async throws {
        let server = ScriptedChatServer()
        let client = server.client(outbox: .off)
        let state = ConversationState(client: client, conversationId: "c-known")
        server.withState { _ = $0.conversations.insert("c-known") }
        await state.sendMessage("again")
        #expect(state.messages.first?.delivery == .failed)
        let rowId = try #require(state.messages.first?.id)
        server.online = true
        await state.resend(rowId: rowId)
        #expect(state.messages.map(\.delivery) == [.sent, nil])
        #expect(server.chats.count == 1)
        // The offline attempt never reached the server, but it carried the same ID as the resend.
        let attempts = server.transport.requests.filter { $0.route == "chat" }
        #expect(Set(attempts.map { $0.json["clientMessageId"]?.stringValue }).count == 1)
    }

    @Test func anOutboxOfTheStateOverridesTheClients() async throws {
        let server = ScriptedChatServer()
        let client = server.client(outbox: .off)
        let state = ConversationState(client: client, outbox: .manual)
        await state.sendMessage("kept")
        #expect(state.messages.map(\.delivery) == [.pending])
        #expect(try client.outbox().map(\.text) == ["kept"])
        server.online = true
        await state.flushOutbox()
        #expect(state.messages.first?.delivery == .sent)
        #expect(server.chats.count == 1)
    }
}
