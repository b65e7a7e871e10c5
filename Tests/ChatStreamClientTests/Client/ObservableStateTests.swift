import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Observable state against ChatAPIServer", .blockingAllowed)
@MainActor
struct ObservableStateTests {
    nonisolated static func start() throws -> (ChatAPIServer, @Sendable (String?) -> ChatbaseClient) {
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.agentId = EndToEndTests.agent
        configuration.replyDelay = .zero
        configuration.http.shutdownGracePeriod = .seconds(3)
        let server = ChatAPIServer(configuration: configuration)
        try server.start()
        let url = URL(string: "http://127.0.0.1:\(server.port)")!
        return (
            server,
            { _ in
                ChatbaseClient(
                    agentId: EndToEndTests.agent, baseURL: url, identityStore: InMemoryIdentityStore(), store: nil)
            }
        )
    }

    @Test func sendThenLoadHistoryKeepsEachMessageOnce() async throws {
        let (server, makeClient) = try Self.start()
        defer { server.stop() }
        do {
            let state = ConversationState(client: makeClient(nil))
            await state.sendMessage("hello state")
            #expect(state.error == nil)
            let id = try #require(state.conversationId)
            #expect(state.messages.map(\.sender) == [.user, .agent])
            #expect(state.messages.allSatisfy { !$0.isStreaming && !$0.isError && $0.messageId != nil })
            #expect(!state.isSending)
            let shown = state.messages.map(\.messageId)
            await state.loadHistory(conversationId: id, limit: 1)
            #expect(state.hasMoreHistory)
            #expect(state.messages.count == 1)
            await state.loadMoreHistory()
            #expect(state.messages.count == 2)
            #expect(state.messages.map(\.messageId) == shown)
            #expect(state.messages.first?.kind == .text("hello state"))
            #expect(!state.hasMoreHistory)
        }
    }

    @Test func listLoadMoreAppendsWithoutDuplicates() async throws {
        let (server, makeClient) = try Self.start()
        defer { server.stop() }
        do {
            let client = makeClient(nil)
            for index in 0..<5 { _ = try await client.send("c\(index)") }
            let list = ConversationListState(client: client, query: ConversationQuery().limit(2))
            await list.load()
            #expect(list.conversations.count == 2)
            #expect(list.hasMore)
            await list.loadMore()
            await list.loadMore()
            #expect(list.conversations.count == 5)
            #expect(Set(list.conversations.map(\.id)).count == 5)
            #expect(!list.hasMore)
            await list.load()
            #expect(list.conversations.count == 2)
        }
    }
}
