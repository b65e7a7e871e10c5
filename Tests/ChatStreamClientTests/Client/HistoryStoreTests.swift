// The client's HistoryStore over loopback against ChatAPIServer: every answer fills it, the source
// policies read it, it survives a reopen, it keeps identities apart, logout clears the user's rows,
// the current conversation persists per agent, and the UI states show the cache first.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("HistoryStore: the client's local history", .blockingAllowed)
final class HistoryStoreTests {
    static let agent = "agent-store"

    /// This test's folder (each test gets a fresh instance), removed with it.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "chatstream-store-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A store file in this test's folder.
    func storePath() -> String {
        directory.appendingPathComponent("history.sqlite").path
    }

    static func startServer(port: UInt16 = 0, agent: String = agent) throws -> ChatAPIServer {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = port
        configuration.agentId = agent
        configuration.replyDelay = .zero
        configuration.http.shutdownGracePeriod = .seconds(1)
        return try RetryPolicyTests.startRetryingBind(configuration)
    }

    /// A client of `port` with `store`, whose requests are recorded; no retries.
    static func client(
        port: UInt16, store: HistoryStore?, identity: any IdentityStore, agent: String = agent
    ) -> (ChatbaseClient, FakeTransport) {
        let inner = URLSessionTransport()
        let transport = FakeTransport { try await inner.send($0) }
        let client = ChatbaseClient(
            agentId: agent, baseURL: URL(string: "http://127.0.0.1:\(port)/api/sdk")!, transport: transport,
            identityStore: identity, retryPolicy: .none, store: store)
        return (client, transport)
    }

    @Test func answersFillTheStoreAndLocalReadsMakeNoRequest() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let path = storePath()
        let identity = InMemoryIdentityStore()
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let (client, transport) = Self.client(
                port: server.port, store: try HistoryStore(path: path), identity: identity)
            let first = try await client.send("first question")
            let second = try await client.send("second question")
            let networkList = try await client.listConversations(limit: 10)
            #expect(networkList.data.count == 2)
            let before = transport.requests.count
            let local = try await client.listConversations(limit: 10, source: .local)
            #expect(transport.requests.count == before)
            #expect(local.data.map(\.id) == networkList.data.map(\.id))
            #expect(local.data.map(\.title) == networkList.data.map(\.title))
            // The replies alone filed both messages of each turn.
            let messages = try await client.listMessages(conversationId: first.conversationId, source: .local)
            #expect(messages.data.map(\.sender) == [.user, .agent])
            #expect(messages.data.first?.text == "first question")
            #expect(messages.data.last?.id == first.message.id)
            #expect(messages.data.last?.text == first.message.text)
            #expect(transport.requests.count == before)
            _ = second
        }
        // A new process: the same file, a new store and client.
        let (reopened, transport) = Self.client(
            port: server.port, store: try HistoryStore(path: path), identity: identity)
        let local = try await reopened.listConversations(source: .local)
        #expect(local.data.count == 2)
        #expect(transport.requests.isEmpty)
    }

    @Test func localPagesWalkTheCacheWithLoadMore() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let store = HistoryStore.inMemory()
        let (client, transport) = Self.client(port: server.port, store: store, identity: InMemoryIdentityStore())
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            for index in 0..<5 { _ = try await client.send("message \(index)") }
            let before = transport.requests.count
            var page = try await client.listConversations(limit: 2, source: .local)
            var ids = page.data.map(\.id)
            while let next = try await page.loadMore() {
                ids += next.data.map(\.id)
                page = next
            }
            #expect(ids.count == 5 && Set(ids).count == 5)
            #expect(page.total == 5)
            #expect(transport.requests.count == before)
        }
    }

    @Test func localThenNetworkFallsBackToTheCacheWhenTheServerIsDown() async throws {
        let server = try Self.startServer()
        let store = HistoryStore.inMemory()
        let (client, _) = Self.client(port: server.port, store: store, identity: InMemoryIdentityStore())
        let sent = try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            try await client.send("cache me")
        }
        _ = try await client.listMessages(conversationId: sent.conversationId)
        server.stop()
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            await #expect(throws: APIError.self) { _ = try await client.listConversations() }
            let page = try await client.listConversations(source: .localThenNetwork)
            #expect(page.data.map(\.id) == [sent.conversationId])
            let messages = try await client.listMessages(conversationId: sent.conversationId, source: .localThenNetwork)
            #expect(messages.data.map(\.text).first == "cache me")
            // Pages: the cached one comes, then the server's failure.
            var pages: [[String]] = []
            await #expect(throws: APIError.self) {
                for try await page in client.conversationPages() { pages.append(page.data.map(\.id)) }
            }
            #expect(pages == [[sent.conversationId]])
        }
    }

    @Test func pagesAndSequencesGiveTheCacheFirstThenTheServerWithoutDuplicates() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let store = HistoryStore.inMemory()
        let identity = InMemoryIdentityStore()
        let (client, _) = Self.client(port: server.port, store: store, identity: identity)
        // A second client of the same device with no store: its conversation is on the server only.
        let (other, _) = Self.client(port: server.port, store: nil, identity: identity)
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let cached = try await client.send("cached")
            let fresh = try await other.send("only on the server")
            // Only `cached` is in the store yet: the walk hands it over first, then the server's rest.
            var walked: [String] = []
            for try await conversation in client.conversations() { walked.append(conversation.id) }
            #expect(walked == [cached.conversationId, fresh.conversationId])
            // Now the store holds both: the cached page, then the server's.
            var pages: [[String]] = []
            for try await page in client.conversationPages() { pages.append(page.data.map(\.id)) }
            #expect(pages.count == 2)
            #expect(
                pages.map(Set.init) == [
                    [cached.conversationId, fresh.conversationId], [cached.conversationId, fresh.conversationId],
                ])
            var texts: [String] = []
            for try await message in client.messages(in: cached.conversationId) { texts.append(message.text) }
            #expect(texts.count == 2)
            #expect(texts.last == "cached")
            var localOnly: [String] = []
            for try await conversation in client.conversations(source: .local) { localOnly.append(conversation.id) }
            #expect(Set(localOnly) == [cached.conversationId, fresh.conversationId])
        }
    }

    @Test func identitiesNeverSeeEachOthersCacheAndLogoutClearsTheUsersRows() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let store = HistoryStore.inMemory()
        let device = InMemoryIdentityStore()
        try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let (anonymous, _) = Self.client(port: server.port, store: store, identity: device)
            let deviceReply = try await anonymous.send("from the device")
            let (stranger, _) = Self.client(port: server.port, store: store, identity: InMemoryIdentityStore())
            #expect(try await stranger.listConversations(source: .local).data.isEmpty)

            let (user, _) = Self.client(port: server.port, store: store, identity: InMemoryIdentityStore())
            try await user.identify(token: EndToEndTests.token("alice"))
            let userReply = try await user.send("from alice")
            _ = try await user.listConversations()
            let userLocal = try await user.listConversations(source: .local).data.map(\.id)
            #expect(userLocal.contains(userReply.conversationId))
            #expect(!userLocal.contains(deviceReply.conversationId))
            #expect(
                try await anonymous.listConversations(source: .local).data.map(\.id) == [deviceReply.conversationId])

            user.logout()
            #expect(user.currentConversationId == nil)
            // Alice's rows are gone; the device's stay.
            try await user.identify(token: EndToEndTests.token("alice"))
            #expect(try await user.listConversations(source: .local).data.isEmpty)
            #expect(
                try await anonymous.listConversations(source: .local).data.map(\.id) == [deviceReply.conversationId])
        }
    }

    @Test func theCurrentConversationPersistsPerAgent() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let path = storePath()
        let identity = InMemoryIdentityStore()
        let sent = try await withTaskExecutorPreference(NetworkTestExecutor.shared) {
            let (client, _) = Self.client(port: server.port, store: try HistoryStore(path: path), identity: identity)
            return try await client.send("remember me")
        }
        let (again, _) = Self.client(port: server.port, store: try HistoryStore(path: path), identity: identity)
        #expect(again.currentConversationId == sent.conversationId)
        let (otherAgent, _) = Self.client(
            port: server.port, store: try HistoryStore(path: path), identity: identity, agent: "another-agent")
        #expect(otherAgent.currentConversationId == nil)
        let (noStore, _) = Self.client(port: server.port, store: nil, identity: identity)
        #expect(noStore.currentConversationId == nil)
        again.newConversation()
        let (third, _) = Self.client(port: server.port, store: try HistoryStore(path: path), identity: identity)
        #expect(third.currentConversationId == nil)
    }

    @Test func withoutAStoreLocalReadsAreEmpty() async throws {
        let (client, transport) = Self.client(port: 9, store: nil, identity: InMemoryIdentityStore())
        let page = try await client.listConversations(source: .local)
        #expect(page.data.isEmpty && !page.hasMore)
        #expect(transport.requests.isEmpty)
    }

    @MainActor @Test func theStatesShowTheCacheWhileTheServerIsDown() async throws {
        let server = try Self.startServer()
        let store = HistoryStore.inMemory()
        let (client, _) = Self.client(port: server.port, store: store, identity: InMemoryIdentityStore())
        let chat = ConversationState(client: client)
        await chat.sendMessage("hello cache")
        let id = try #require(chat.conversationId)
        let shown = chat.messages.map(\.messageId)
        server.stop()

        let list = ConversationListState(client: client)
        await list.load(limit: 20)
        #expect(list.conversations.map(\.id) == [id])
        #expect(list.error != nil)

        let reopened = ConversationState(client: client)
        await reopened.loadHistory(conversationId: id)
        #expect(reopened.messages.map(\.messageId) == shown)
        #expect(reopened.messages.map(\.sender) == [.user, .agent])
        #expect(reopened.error != nil)
    }

    @MainActor @Test func theStatesReplaceTheCacheWithTheServersPageWithoutDuplicates() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let store = HistoryStore.inMemory()
        let (client, _) = Self.client(port: server.port, store: store, identity: InMemoryIdentityStore())
        let chat = ConversationState(client: client)
        await chat.sendMessage("one")
        await chat.sendMessage("two")
        let id = try #require(chat.conversationId)
        let reopened = ConversationState(client: client)
        await reopened.loadHistory(conversationId: id)
        #expect(reopened.error == nil)
        #expect(reopened.messages.count == 4)
        #expect(Set(reopened.messages.map(\.id)).count == 4)
        let list = ConversationListState(client: client)
        await list.load(limit: 20)
        #expect(list.conversations.map(\.id) == [id])
    }
}

@Suite("HistoryStore local filters", .blockingAllowed)
struct HistoryStoreFilterTests {
    @Test func localPagesApplyTheQuerysFiltersAndOrder() throws {
        let store = HistoryStore.inMemory()
        let scope = "test|agent|d:device"
        func conversation(_ id: String, _ updated: Double, _ status: ConversationStatus, tags: [String]?, unread: Int?)
            -> Conversation
        {
            Conversation(
                id: id, title: "title \(id)", createdAt: Date(timeIntervalSince1970: 0),
                updatedAt: Date(timeIntervalSince1970: updated), status: status, tags: tags, unreadCount: unread)
        }
        try store.save(
            conversations: [
                conversation("c", 30, .ongoing, tags: ["vip", "a"], unread: 2),
                conversation("b", 20, .ended, tags: ["vip"], unread: 0),
                conversation("a", 10, .ongoing, tags: nil, unread: nil),
            ], scope: scope)
        try store.save(conversations: [conversation("x", 99, .ongoing, tags: nil, unread: nil)], scope: "other")
        func ids(_ query: ConversationQuery, offset: Int = 0, limit: Int = 10) throws -> [String] {
            try store.conversations(scope: scope, query: query, offset: offset, limit: limit).0.map(\.id)
        }
        #expect(try ids(ConversationQuery()) == ["c", "b", "a"])
        #expect(try ids(ConversationQuery(), offset: 1, limit: 1) == ["b"])
        #expect(try ids(ConversationQuery().order(.ascending)) == ["a", "b", "c"])
        #expect(try ids(ConversationQuery().status(.ongoing)) == ["c", "a"])
        #expect(try ids(ConversationQuery().tag("vip")) == ["c", "b"])
        #expect(try ids(ConversationQuery().tag("vip").tag("a")) == ["c"])
        #expect(try ids(ConversationQuery().unreadOnly()) == ["c"])
        #expect(try ids(ConversationQuery().search("TITLE B")) == ["b"])
        let page = try store.conversations(scope: scope, query: ConversationQuery(), offset: 0, limit: 2)
        #expect(page.hasMore && page.total == 3)
        let restored = try store.conversations(scope: scope, query: ConversationQuery().tag("vip"), offset: 0, limit: 1)
        #expect(restored.0.first?.tags == ["vip", "a"] && restored.0.first?.unreadCount == 2)
        #expect(restored.0.first?.updatedAt == Date(timeIntervalSince1970: 30))
    }
}
