// The outbox over loopback against ChatAPIServer: a message sent while the server is down waits
// (pending in ConversationState too) and is delivered once by flushOutbox() or by itself after the
// next request that reaches the server; a message whose answer was lost is delivered once; a
// refused one is kept as failed; concurrent flushes deliver once; client-created conversations.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Outbox: messages the server could not be reached for", .blockingAllowed)
struct OutboxTests {
    static let agent = HistoryStoreTests.agent

    static func client(port: UInt16, store: HistoryStore?, identity: any IdentityStore) -> ChatbaseClient {
        ChatbaseClient(
            agentId: agent, baseURL: URL(string: "http://127.0.0.1:\(port)/api/sdk")!, identityStore: identity,
            retryPolicy: .init(maxAttempts: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(5)), store: store,
            outbox: .automatic)
    }

    /// The user messages the server holds in `conversationId` with `text`.
    static func userMessages(_ text: String, in conversationId: String, via client: ChatbaseClient) async throws -> Int
    {
        try await client.listMessages(conversationId: conversationId, limit: 100).data.filter {
            $0.sender == .user && $0.text == text
        }.count
    }

    @Test func aMessageSentWhileTheServerIsDownIsDeliveredOnceByFlush() async throws {
        let reserved = try ReservedPort()
        let port = reserved.port
        let store = HistoryStore.inMemory()
        let identity = InMemoryIdentityStore()
        let client = Self.client(port: port, store: store, identity: identity)
        client.sendsOutboxAutomatically = false
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let error = await #expect(throws: APIError.self) {
                try await client.send("while offline", clientMessageId: "0d5e2f5e-7d3c-4a8f-9a51-3f1f2d8c9b01")
            }
            #expect(error?.isTransient == true)
            let queued = try client.outbox()
            #expect(queued.map(\.clientMessageId) == ["0d5e2f5e-7d3c-4a8f-9a51-3f1f2d8c9b01"])
            #expect(queued.first?.state == .pending)
            #expect(queued.first?.attempts == 1)
            #expect(queued.first?.lastError?.isEmpty == false)
            // Still down: nothing is delivered, nothing is lost.
            let down = try await client.flushOutbox()
            #expect(down.delivered.isEmpty)
            #expect(down.remaining.map(\.state) == [.pending])

            let server = try HistoryStoreTests.startServer()
            let proxy = try reserved.open(forwardingTo: server.port)
            defer {
                proxy.stop()
                server.stop()
            }
            let flush = try await client.flushOutbox()
            #expect(flush.delivered.count == 1)
            #expect(flush.remaining.isEmpty)
            let response = try #require(flush.delivered.first?.response)
            #expect(response.message.text.contains("while offline"))
            #expect(try await Self.userMessages("while offline", in: response.conversationId, via: client) == 1)
            #expect(try await client.flushOutbox().delivered.isEmpty)
        }
    }

    @Test func aMessageWhoseAnswerWasLostIsDeliveredOnce() async throws {
        let server = try HistoryStoreTests.startServer()
        defer { server.stop() }
        let identity = InMemoryIdentityStore()
        let store = HistoryStore.inMemory()
        let client = Self.client(port: server.port, store: store, identity: identity)
        client.sendsOutboxAutomatically = false
        let id = ChatStreamPaths.newDeviceId()
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let first = try await client.send("start")
            // The app sent the message, the server stored it, the app died before the answer: the
            // outbox row written before the send is all that is left.
            let lost = Self.client(port: server.port, store: nil, identity: identity)
            _ = try await lost.send("answer lost", conversationId: first.conversationId, clientMessageId: id)
            let scope = try #require(client.storeScope)
            try store.enqueue(
                OutboxMessage(
                    clientMessageId: id, conversationId: first.conversationId, text: "answer lost", createdAt: Date(),
                    state: .pending, attempts: 0, lastError: nil), scope: scope)
            let flush = try await client.flushOutbox()
            #expect(flush.delivered.count == 1)
            #expect(flush.delivered.first?.response.conversationId == first.conversationId)
            #expect(flush.remaining.isEmpty)
            #expect(try await Self.userMessages("answer lost", in: first.conversationId, via: client) == 1)
        }
    }

    /// Passes every request to the default transport and records its method and route.
    final class RouteRecorder: HTTPTransport {
        let routes = Shared<[String]>([])
        let base = DefaultHTTPTransport.make()
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let parts = request.url.path.split(separator: "/").map(String.init)
            let route = parts.firstIndex(of: "agents").map { parts.dropFirst($0 + 2).joined(separator: "/") }
            routes.update { $0.append("\(request.method) \(route ?? request.url.path)") }
            return try await base.send(request)
        }
    }

    @Test func aNewConversationIsCreatedBeforeItsFirstMessageGoes() async throws {
        let server = try HistoryStoreTests.startServer()
        defer { server.stop() }
        let recorder = RouteRecorder()
        let client = ChatbaseClient(
            agentId: Self.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)/api/sdk")!,
            transport: recorder, identityStore: InMemoryIdentityStore(), store: HistoryStore.inMemory(),
            outbox: .manual)
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let first = try await client.send("a new conversation")
            // Not a 404 to the whole message first, then the conversation, then the message again.
            #expect(recorder.routes.value == ["POST conversations", "POST chat"])
            _ = try await client.send("the same one", conversationId: first.conversationId)
            #expect(recorder.routes.value == ["POST conversations", "POST chat", "POST chat"])
            #expect(try await Self.userMessages("a new conversation", in: first.conversationId, via: client) == 1)
        }
    }

    @Test func aRefusedMessageIsKeptAsFailedUntilDiscarded() async throws {
        let server = try HistoryStoreTests.startServer()
        defer { server.stop() }
        let client = Self.client(port: server.port, store: HistoryStore.inMemory(), identity: InMemoryIdentityStore())
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let first = try await client.send("before the end")
            #expect(server.endConversation(id: first.conversationId))
            let error = await #expect(throws: APIError.self) {
                try await client.send("after the end", conversationId: first.conversationId)
            }
            #expect(error?.isConversationNotOngoing == true)
            let kept = try client.outbox()
            #expect(kept.count == 1)
            #expect(kept.first?.state == .failed)
            #expect(kept.first?.text == "after the end")
            #expect(kept.first?.lastError?.contains("CHAT_CONVERSATION_NOT_ONGOING") == true)
            let flush = try await client.flushOutbox()
            #expect(flush.delivered.isEmpty)
            #expect(flush.remaining.map(\.state) == [.failed])
            try client.discardOutboxMessage(clientMessageId: try #require(kept.first?.clientMessageId))
            #expect(try client.outbox().isEmpty)
        }
    }

    @Test func pendingMessagesGoByThemselvesOnceARequestReachesTheServer() async throws {
        let reserved = try ReservedPort()
        let port = reserved.port
        let client = Self.client(port: port, store: HistoryStore.inMemory(), identity: InMemoryIdentityStore())
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            await #expect(throws: APIError.self) { try await client.send("goes later") }
            #expect(try client.outbox().count == 1)
            let server = try HistoryStoreTests.startServer()
            let proxy = try reserved.open(forwardingTo: server.port)
            defer {
                proxy.stop()
                server.stop()
            }
            _ = try await client.listConversations()
            await client.outboxSettled()
            #expect(try client.outbox().isEmpty)
            let list = try await client.listConversations()
            #expect(list.data.count == 1)
            let id = try #require(list.data.first?.id)
            #expect(try await Self.userMessages("goes later", in: id, via: client) == 1)
        }
    }

    @Test func concurrentFlushesDeliverEachMessageOnce() async throws {
        let reserved = try ReservedPort()
        let port = reserved.port
        let client = Self.client(port: port, store: HistoryStore.inMemory(), identity: InMemoryIdentityStore())
        client.sendsOutboxAutomatically = false
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            for index in 0..<3 {
                await #expect(throws: APIError.self) { try await client.send("queued \(index)") }
            }
            #expect(try client.outbox().count == 3)
            let server = try HistoryStoreTests.startServer()
            let proxy = try reserved.open(forwardingTo: server.port)
            defer {
                proxy.stop()
                server.stop()
            }
            async let first = client.flushOutbox()
            async let second = client.flushOutbox()
            let delivered = try await first.delivered.count + second.delivered.count
            #expect(delivered == 3)
            #expect(try client.outbox().isEmpty)
            #expect(server.conversationCount == 3)
        }
    }

    @MainActor @Test func conversationStateShowsAQueuedMessageAsPending() async throws {
        let reserved = try ReservedPort()
        let client = Self.client(
            port: reserved.port, store: HistoryStore.inMemory(), identity: InMemoryIdentityStore())
        client.sendsOutboxAutomatically = false
        let state = ConversationState(client: client)
        await state.sendMessage("pending here")
        #expect(state.error != nil)
        #expect(state.messages.count == 1)
        #expect(state.messages.first?.isPending == true)
        #expect(state.messages.first?.isError == false)
        #expect(try client.outbox().map(\.text) == ["pending here"])

        // The server comes back: flushing from the state delivers it and shows the reply.
        let server = try HistoryStoreTests.startServer()
        let proxy = try reserved.open(forwardingTo: server.port)
        defer {
            proxy.stop()
            server.stop()
        }
        await state.flushOutbox()
        #expect(state.error == nil)
        #expect(state.conversationId != nil)
        #expect(state.messages.map(\.sender) == [.user, .agent])
        #expect(state.messages.allSatisfy { !$0.isPending && !$0.isError })
        #expect(try client.outbox().isEmpty)
    }

    /// A conversation made for a message is filed in the store whether the message is then taken
    /// (before its reply) or refused: it exists on the server either way.
    @Test(arguments: [false, true])
    func aConversationMadeForAMessageIsFiledWhetherTheMessageIsTakenOrNot(refused: Bool) async throws {
        let server = try HistoryStoreTests.startServer()
        defer { server.stop() }
        let inner = URLSessionTransport()
        let transport = FakeTransport { request in
            if refused, request.route == "chat" { return Wire.error(400, "VALIDATION_INVALID_BODY", "refused") }
            return try await inner.send(request)
        }
        let client = ChatbaseClient(
            agentId: Self.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)/api/sdk")!,
            transport: transport, identityStore: InMemoryIdentityStore(), retryPolicy: .none,
            store: HistoryStore.inMemory(), outbox: .manual)
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            if refused {
                await #expect(throws: APIError.self) { try await client.send("refused") }
            } else {
                _ = try await client.send("taken")
            }
            #expect(server.conversationCount == 1)
            // The local list first: the network's answer is filed in the store too.
            let filed = try await client.listConversations(limit: 10, source: .local).data
            let made = try #require(try await client.listConversations(limit: 10).data.first)
            #expect(filed.map(\.id) == [made.id])
            #expect(filed.first?.createdAt == made.createdAt)
            #expect(try client.outbox().map(\.state) == (refused ? [.failed] : []))
        }
    }

    @Test func clientCreatedConversationsAreIdempotent() async throws {
        let server = try HistoryStoreTests.startServer()
        defer { server.stop() }
        let client = Self.client(port: server.port, store: HistoryStore.inMemory(), identity: InMemoryIdentityStore())
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let id = ChatStreamPaths.newDeviceId()
            let made = try await client.createConversation(id: id, title: "made here")
            #expect(made.id == id)
            let again = try await client.createConversation(id: id, title: "made here")
            #expect(again.id == id)
            #expect(server.conversationCount == 1)
            let reply = try await client.send("in my conversation", conversationId: id)
            #expect(reply.conversationId == id)
            let stranger = Self.client(port: server.port, store: nil, identity: InMemoryIdentityStore())
            let error = await #expect(throws: APIError.self) { try await stranger.createConversation(id: id) }
            #expect(error?.statusCode == 409)
        }
    }
}

@Suite("Idempotent sends degrade on a server without the extensions", .blockingAllowed)
struct DegradedServerTests {
    @Test func aPlainServerIgnoresClientMessageIdAndRefusesClientCreatedConversationsClearly() async throws {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.agentId = OutboxTests.agent
        configuration.replyDelay = .zero
        configuration.extensionsEnabled = false
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let client = OutboxTests.client(
            port: server.port, store: HistoryStore.inMemory(), identity: InMemoryIdentityStore())
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let error = await #expect(throws: APIError.self) { try await client.createConversation() }
            #expect(error?.isNotSupportedByServer == true)
            #expect(error?.statusCode == 405)
            let reply = try await client.send("plain server")
            #expect(reply.message.text.contains("plain server"))
            #expect(try client.outbox().isEmpty)
            let history = try await client.listMessages(conversationId: reply.conversationId)
            #expect(history.data.map(\.sender) == [.user, .agent])
        }
    }
}
