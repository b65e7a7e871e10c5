// ConversationListState's live updates against ChatAPIServer: after a send completes the
// conversation moves to the top with its new last message (once), a closed conversation shows
// as ended, and the list stays what a fresh load from the server would show.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Conversation list live updates against ChatAPIServer", .blockingAllowed)
@MainActor
struct ConversationListLiveTests {
    /// A server and a client with one device; `count` conversations started, oldest first.
    nonisolated static func start(conversations count: Int) async throws -> (ChatAPIServer, ChatbaseClient, [String]) {
        let (server, makeClient) = try ObservableStateTests.start()
        let client = makeClient(nil)
        var ids: [String] = []
        do {
            for index in 0..<count { ids.append(try await client.send("conversation \(index)").conversationId) }
        } catch {
            server.stop()
            throw error
        }
        return (server, client, ids)
    }

    /// What a fresh load of every page shows.
    static func fresh(_ client: ChatbaseClient, _ query: ConversationQuery) async throws -> [Conversation] {
        var all: [Conversation] = []
        for try await conversation in client.conversations(matching: query) { all.append(conversation) }
        return all
    }

    @Test func afterSendTheConversationMovesToTheTopWithItsNewLastMessageOnce() async throws {
        let (server, client, ids) = try await Self.start(conversations: 4)
        defer { server.stop() }
        let list = ConversationListState(client: client)
        await list.load()
        #expect(list.conversations.map(\.id) == ids.reversed())
        let before = try #require(list.conversations.first { $0.id == ids[1] })

        let chat = ConversationState(client: client, conversationId: ids[1])
        chat.onReply = { [weak list] response in list?.apply(response) }
        await chat.sendMessage("bring me to the top")
        #expect(chat.error == nil)
        #expect(list.conversations.map(\.id) == [ids[1], ids[3], ids[2], ids[0]])
        let top = list.conversations[0]
        #expect(top.lastMessage?.id == chat.messages.last?.messageId)
        #expect(top.lastMessage?.text.hasPrefix("You said: bring me to the top.") == true)
        #expect(top.unreadCount == (before.unreadCount ?? 0) + 1)
        #expect(top.title == before.title)

        // A new conversation appears on top; nothing is listed twice.
        let newChat = ConversationState(client: client)
        newChat.onReply = { [weak list] response in list?.apply(response) }
        await newChat.sendMessage("a new one")
        let newId = try #require(newChat.conversationId)
        #expect(list.conversations.map(\.id) == [newId, ids[1], ids[3], ids[2], ids[0]])

        // The live list is what the server lists now.
        let listed = try await Self.fresh(client, ConversationQuery())
        #expect(list.conversations.map(\.id) == listed.map(\.id))
        #expect(list.conversations.map(\.lastMessage?.id) == listed.map(\.lastMessage?.id))
        #expect(list.conversations.map(\.unreadCount) == [nil] + listed.dropFirst().map(\.unreadCount))
    }

    @Test func aClosedConversationShowsAsEndedOrLeavesAnOngoingOnlyList() async throws {
        let (server, client, ids) = try await Self.start(conversations: 3)
        defer { server.stop() }
        let all = ConversationListState(client: client)
        let ongoing = ConversationListState(client: client, query: ConversationQuery().status(.ongoing))
        await all.load()
        await ongoing.load()
        await all.close(ids[0])
        #expect(all.error == nil)
        #expect(all.conversations.count == 3)
        #expect(all.conversations.first { $0.id == ids[0] }?.status == .ended)
        #expect(all.conversations.map(\.id) == (try await Self.fresh(client, ConversationQuery())).map(\.id))
        ongoing.apply(try await client.conversation(id: ids[0]))
        #expect(ongoing.conversations.map(\.id) == [ids[2], ids[1]])
        await all.close(ids[0])  // idempotent: it stays where it is
        #expect(all.conversations.filter { $0.id == ids[0] }.count == 1)
        #expect(all.conversations.map(\.id) == (try await Self.fresh(client, ConversationQuery())).map(\.id))

        // A reply for a conversation the filters exclude is not shown.
        let tagged = ConversationListState(client: client, query: ConversationQuery().tag("vip"))
        await tagged.load()
        #expect(tagged.conversations.isEmpty)
        tagged.apply(try await client.send("untagged"))
        #expect(tagged.conversations.isEmpty)
        tagged.apply(try await client.setTags(["vip"], conversationId: ids[1]))
        #expect(tagged.conversations.map(\.id) == [ids[1]])
        let reply = try await client.send("now tagged", conversationId: ids[1])
        tagged.apply(reply)
        #expect(tagged.conversations.map(\.id) == [ids[1]])
        #expect(tagged.conversations.first?.lastMessage?.id == reply.message.id)

        // A failed close is reported and changes nothing.
        await all.close("no-such-conversation")
        #expect((all.error as? APIError)?.isNotFound == true)
        #expect(all.conversations.count == 3)
    }

    @Test func inAscendingOrderARepliedConversationComesOnceAtTheEnd() async throws {
        let (server, client, ids) = try await Self.start(conversations: 5)
        defer { server.stop() }
        let query = ConversationQuery().limit(2).order(.ascending)
        let list = ConversationListState(client: client, query: query)
        await list.load()
        #expect(list.conversations.map(\.id) == [ids[0], ids[1]])
        #expect(list.hasMore)
        // Pages remain: the reply's conversation leaves the loaded part; a later page brings it.
        list.apply(try await client.send("again", conversationId: ids[0]))
        #expect(list.conversations.map(\.id) == [ids[1]])
        for _ in 0..<10 where list.hasMore { await list.loadMore() }
        #expect(!list.hasMore)
        #expect(list.conversations.map(\.id) == [ids[1], ids[2], ids[3], ids[4], ids[0]])
        // All loaded: the next reply's conversation goes to the end at once.
        list.apply(try await client.send("and again", conversationId: ids[2]))
        #expect(list.conversations.map(\.id) == [ids[1], ids[3], ids[4], ids[0], ids[2]])
        #expect(list.conversations.map(\.id) == (try await Self.fresh(client, query)).map(\.id))
    }
}
