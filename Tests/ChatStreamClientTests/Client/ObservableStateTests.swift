import ChatStream
import ChatStreamServer
import Foundation
import Testing

@testable import ChatStreamClient

@Suite("Observable state against ChatAPIServer")
@MainActor
struct ObservableStateTests {
    nonisolated static func start() throws -> (ChatAPIServer, @Sendable (String?) -> ChatClient) {
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
                ChatClient(agentId: EndToEndTests.agent, baseURL: url, identityStore: InMemoryIdentityStore())
            }
        )
    }

    @Test func sendThenLoadHistoryKeepsEachMessageOnce() async throws {
        let (server, makeClient) = try Self.start()
        defer { server.stop() }
        do {
            let state = ConversationState(client: makeClient(nil))
            await state.send("hello state")
            #expect(state.error == nil)
            #expect(state.conversationId != nil)
            #expect(state.messages.map(\.sender) == [.user, .agent])
            #expect(state.streamingMessage == nil)
            #expect(!state.isSending)
            await state.loadHistory(limit: 1)
            #expect(state.hasMoreHistory)
            await state.loadMoreHistory()
            #expect(state.messages.count == 2)
            #expect(state.messages.first?.text == "hello state")
        }
    }

    @Test func listLoadMoreAppendsWithoutDuplicates() async throws {
        let (server, makeClient) = try Self.start()
        defer { server.stop() }
        do {
            let client = makeClient(nil)
            for index in 0..<5 { _ = try await client.sendMessage("c\(index)") }
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
