// The local store agrees with the server (issue 28, deliverable 4): ties of `updatedAt` read back
// in the server's order at every page size (a scripted server with one order, and ChatAPIServer
// over loopback); `identify` moves the device's rows to the user and `logout` leaves nothing of
// them; the status is known after `loadHistory`; upper-case UUIDs name the same conversation.

import ChatStream
import ChatStreamServer
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("The local store agrees with the server", .blockingAllowed)
struct StoreAgreementTests {
    /// Eleven conversations, nine of them updated in the same second, in the server's order
    /// (newest change first; the ties in an order only the server knows).
    static let serverOrder: [(id: String, updated: Double)] =
        [("newest", 2000)] + ["t5", "t2", "t8", "t0", "t7", "t3", "t1", "t6", "t4"].map { ($0, 1000) } + [
            ("oldest", 10)
        ]

    /// A scripted server paging `serverOrder` by offset, in either order.
    static func pagingTransport() -> FakeTransport {
        FakeTransport { request in
            guard request.route == "conversations" else { return Wire.error(404, "NOT_FOUND") }
            let ascending = request.query("order").first == "asc"
            let all = ascending ? Array(serverOrder.reversed()) : serverOrder
            let offset = Int(request.query("cursor").first ?? "0") ?? 0
            let limit = Int(request.query("limit").first ?? "20") ?? 20
            let page = all[offset..<min(all.count, offset + limit)]
            let next = offset + page.count
            let items: [JSONTree] = page.map { item in
                [
                    "id": .string(item.id), "title": .null, "createdAt": 1,
                    "updatedAt": .number(JSONNumber(item.updated)),
                    "userId": .null, "status": "ongoing", "tags": [], "unreadCount": 0,
                ]
            }
            return Wire.json([
                "data": .array(items),
                "pagination": [
                    "cursor": next < all.count ? .string(String(next)) : .null, "hasMore": .bool(next < all.count),
                    "total": .number(JSONNumber(all.count)),
                ],
            ])
        }
    }

    /// Every page of `query` from `source`, in order.
    static func walk(_ client: ChatbaseClient, _ query: ConversationQuery, source: HistorySource) async throws
        -> [String]
    {
        var ids: [String] = []
        var page: PaginatedResponse<Conversation>? = try await client.listConversations(query, source: source)
        while let current = page {
            ids += current.data.map(\.id)
            page = try await current.loadMore()
        }
        return ids
    }

    @Test(arguments: [ConversationQuery.Order.descending, .ascending])
    func tiesReadBackInTheServersOrderAtEveryPageSize(_ order: ConversationQuery.Order) async throws {
        let expected = order == .ascending ? Self.serverOrder.reversed().map(\.id) : Self.serverOrder.map(\.id)
        for fetchSize in 1...12 {
            let client = ChatbaseClient(
                agentId: "agent-1", baseURL: Wire.base, transport: Self.pagingTransport(),
                identityStore: InMemoryIdentityStore(deviceId: "device-ties"), retryPolicy: .none,
                store: .inMemory())
            let query = ConversationQuery().limit(fetchSize).order(order)
            #expect(try await Self.walk(client, query, source: .network) == expected, "fetched by \(fetchSize)")
            for readSize in 1...12 {
                let local = try await Self.walk(
                    client, ConversationQuery().limit(readSize).order(order), source: .local)
                #expect(local == expected, "fetched by \(fetchSize), read by \(readSize), \(order)")
            }
        }
    }

    static func startServer() throws -> ChatAPIServer {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.agentId = HistoryStoreTests.agent
        configuration.replyDelay = .zero
        configuration.http.shutdownGracePeriod = .seconds(1)
        return try RetryPolicyTests.startRetryingBind(configuration)
    }

    @Test func tiesFromChatAPIServerReadBackInItsOrderAtEveryPageSize() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let identity = InMemoryIdentityStore()
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let (writer, _) = HistoryStoreTests.client(port: server.port, store: nil, identity: identity)
            // Created back to back: most share their second of `updatedAt`.
            for index in 0..<7 { _ = try await writer.createConversation(title: "c\(index)") }
            let truth = try await writer.listConversations(limit: 100).data.map(\.id)
            #expect(truth.count == 7)
            for fetchSize in 1...7 {
                let (client, _) = HistoryStoreTests.client(port: server.port, store: .inMemory(), identity: identity)
                #expect(try await Self.walk(client, ConversationQuery().limit(fetchSize), source: .network) == truth)
                for readSize in 1...7 {
                    let local = try await Self.walk(client, ConversationQuery().limit(readSize), source: .local)
                    #expect(local == truth, "fetched by \(fetchSize), read by \(readSize)")
                }
            }
        }
    }

    @Test func identifyMovesTheDevicesRowsAndLogoutLeavesNothing() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let store = HistoryStore.inMemory()
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let (client, _) = HistoryStoreTests.client(
                port: server.port, store: store, identity: InMemoryIdentityStore())
            let first = try await client.send("before signing in")
            let second = try await client.send("also before")
            _ = try await client.listConversations()
            let device = try #require(client.deviceStoreScope)
            #expect(try store.conversationCount(scope: device) == 2)

            try await client.identify(token: EndToEndTests.token("bob"))
            // The server moved them to bob; so did the cache.
            #expect(try store.conversationCount(scope: device) == 0)
            let local = try await client.listConversations(source: .local).data.map(\.id)
            #expect(Set(local) == [first.conversationId, second.conversationId])
            let messages = try await client.listMessages(conversationId: first.conversationId, source: .local)
            #expect(messages.data.map(\.text).contains("before signing in"))
            let userScopes = client.signedInScopes

            client.logout()
            for scope in userScopes + [device] { #expect(try store.conversationCount(scope: scope) == 0) }
            #expect(try await client.listConversations(source: .local).data.isEmpty)
            #expect(
                try await client.listMessages(conversationId: first.conversationId, source: .local).data.isEmpty)
            // The server agrees: the anonymous device has no conversations now.
            #expect(try await client.listConversations().data.isEmpty)
        }
    }

    @MainActor @Test func theStatusIsKnownAfterLoadHistory() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let identity = InMemoryIdentityStore()
        let store = HistoryStore.inMemory()
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let (client, _) = HistoryStoreTests.client(port: server.port, store: store, identity: identity)
            let open = try await client.send("still open")
            let closed = try await client.send("to be closed")
            _ = try await client.closeConversation(id: closed.conversationId)

            let state = ConversationState(client: client)
            await state.loadHistory(conversationId: open.conversationId)
            #expect(state.status == .ongoing && state.canSend)
            await state.loadHistory(conversationId: closed.conversationId)
            #expect(state.status == .ended)
            #expect(!state.canSend)

            // Offline, the cached row says it.
            server.stop()
            let offline = ConversationState(client: client)
            await offline.loadHistory(conversationId: closed.conversationId)
            #expect(offline.status == .ended && !offline.canSend)
        }
    }

    @MainActor @Test func anUpperCaseUUIDNamesTheSameConversationEverywhere() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let store = HistoryStore.inMemory()
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let (client, _) = HistoryStoreTests.client(
                port: server.port, store: store, identity: InMemoryIdentityStore())
            let upper = UUID().uuidString
            #expect(upper != upper.lowercased())
            let created = try await client.createConversation(id: upper, title: "Case")
            #expect(created.id == upper.lowercased())
            let reply = try await client.send("hello", conversationId: upper)
            #expect(reply.conversationId == upper.lowercased())
            #expect(try await client.conversation(id: upper).id == upper.lowercased())
            let history = try await client.listMessages(conversationId: upper)
            #expect(history.data.map(\.text).contains("hello"))
            let cached = try await client.listMessages(conversationId: upper, source: .local)
            #expect(cached.data.map(\.id) == history.data.map(\.id))
            #expect(
                try await client.listMessages(conversationId: upper.lowercased(), source: .local).data.count
                    == history.data.count)

            // A live event names it in lower case; the state opened with upper case shows it.
            let state = ConversationState(client: client, conversationId: upper)
            let message = Message(
                id: "live-1", text: "from a human agent", sender: .agent, date: Date(),
                parts: [.text("from a human agent")])
            await state.handleLive(
                LiveEvent(id: "9", kind: .messageCreated(conversationId: upper.lowercased(), message: message)))
            #expect(state.messages.contains { $0.messageId == "live-1" })
        }
    }
}
