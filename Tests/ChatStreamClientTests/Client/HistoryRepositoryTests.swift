// HistoryRepository on its own (issue 28, deliverable 6): which source each policy reads, that a
// page read from the server is filed in the store, that only a passing failure falls back to the
// store, and what the page sequence yields, through a scripted transport and a temporary store.

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("HistoryRepository", .blockingAllowed)
final class HistoryRepositoryTests {
    /// This test's folder (each test gets a fresh instance), removed with it.
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("chatstream-repository-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A client over `transport` with a fresh store file in this test's folder, no retries.
    func client(_ transport: FakeTransport) throws -> ChatbaseClient {
        let path = directory.appendingPathComponent("history.sqlite").path
        return ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport,
            identityStore: InMemoryIdentityStore(deviceId: "0f0e0d0c-0b0a-4908-8706-050403020100"),
            retryPolicy: .none, store: try HistoryStore(path: path))
    }

    /// The server's answers, switchable: up (a page of three), unreachable, or refusing (403).
    enum Server: Sendable { case up, unreachable, refusing }

    static func transport(_ state: Shared<Server>) -> FakeTransport {
        FakeTransport { request in
            switch state.value {
            case .up:
                return Wire.page(
                    [
                        Wire.conversationJSON("c3", updated: 1_700_000_300),
                        Wire.conversationJSON("c2", updated: 1_700_000_200),
                        Wire.conversationJSON("c1", updated: 1_700_000_100),
                    ], request: request)
            case .unreachable: throw TransportError(.connectionFailed, "connection refused")
            case .refusing: return Wire.error(403, "AUTH_FORBIDDEN", "not yours")
            }
        }
    }

    @Test func eachPolicyReadsItsSource() async throws {
        let state = Shared(Server.up)
        let transport = Self.transport(state)
        let repository = try self.client(transport).history
        let query = ConversationQuery(limit: 20)
        // Nothing cached yet: .local is empty and sends nothing.
        #expect(try await repository.conversations(query, cursor: nil, source: .local).data.isEmpty)
        #expect(transport.requests.isEmpty)
        // The server's page is filed in the store as it arrives.
        let network = try await repository.conversations(query, cursor: nil, source: .network)
        #expect(network.data.map(\.id) == ["c3", "c2", "c1"])
        #expect(transport.requests.count == 1)
        let local = try await repository.conversations(query, cursor: nil, source: .local)
        #expect(local.data.map(\.id) == ["c3", "c2", "c1"])
        #expect(transport.requests.count == 1)
        // The server unreachable: .localThenNetwork answers from the store, .network throws.
        state.value = .unreachable
        let fallback = try await repository.conversations(query, cursor: nil, source: .localThenNetwork)
        #expect(fallback.data.map(\.id) == ["c3", "c2", "c1"])
        await #expect(throws: (any Error).self) {
            try await repository.conversations(query, cursor: nil, source: .network)
        }
        // A refusal is not a passing failure: it is thrown, never hidden behind the cache.
        state.value = .refusing
        let refused = await #expect(throws: APIError.self) {
            try await repository.conversations(query, cursor: nil, source: .localThenNetwork)
        }
        #expect(refused?.statusCode == 403)
    }

    @Test func localPagesContinueWithLocalCursors() async throws {
        let state = Shared(Server.up)
        let transport = Self.transport(state)
        let repository = try self.client(transport).history
        _ = try await repository.conversations(ConversationQuery(limit: 20), cursor: nil, source: .network)
        let first = try await repository.conversations(ConversationQuery(limit: 2), cursor: nil, source: .local)
        #expect(first.data.map(\.id) == ["c3", "c2"])
        #expect(first.cursor == "local:2")
        let sent = transport.requests.count
        let second = try #require(try await first.loadMore())
        #expect(second.data.map(\.id) == ["c1"])
        #expect(!second.hasMore)
        #expect(transport.requests.count == sent)
        #expect(HistoryRepository.localOffset("local:7") == 7)
        #expect(HistoryRepository.localOffset("opaque-server-cursor") == 0)
    }

    @Test func thePageSequenceGivesTheCacheThenTheServer() async throws {
        let state = Shared(Server.up)
        let transport = Self.transport(state)
        let client = try self.client(transport)
        let repository = client.history
        let fetch: @Sendable (Bool) async throws -> PaginatedResponse<Conversation> = { local in
            try await client.listConversations(ConversationQuery(limit: 20), source: local ? .local : .network)
        }
        // An empty cache is skipped: only the server's page.
        var counts: [Int] = []
        for try await page in repository.pages(source: .localThenNetwork, fetch) { counts.append(page.data.count) }
        #expect(counts == [3])
        #expect(transport.requests.count == 1)
        // Now cached: the cache's page first, then the server's.
        var pages: [PaginatedResponse<Conversation>] = []
        for try await page in repository.pages(source: .localThenNetwork, fetch) { pages.append(page) }
        #expect(pages.map { $0.data.map(\.id) } == [["c3", "c2", "c1"], ["c3", "c2", "c1"]])
        #expect(transport.requests.count == 2)  // one more request: the first page was the cache's
        // .local alone never reaches the server, even when empty is all it has.
        state.value = .unreachable
        var localOnly = 0
        for try await _ in repository.pages(source: .local, fetch) { localOnly += 1 }
        #expect(localOnly == 1)
        #expect(transport.requests.count == 2)
    }
}
