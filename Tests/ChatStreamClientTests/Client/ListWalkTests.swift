// Walking every page while conversations change, against ChatAPIServer over loopback: each
// conversation that existed when the walk began comes once (one updated mid-walk included), an
// oldest-first list shows the fresh row of one updated elsewhere, and a status the client does
// not know reads as ongoing, keeps its wire value, and passes an `ongoing` filter.

import ChatStream
import ChatStreamServer
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Walking every page while conversations change", .blockingAllowed)
@MainActor
struct ListWalkTests {
    /// `count` conversations, oldest first.
    nonisolated static func start(_ count: Int) async throws -> (ChatAPIServer, ChatbaseClient, [String]) {
        try await ConversationListLiveTests.start(conversations: count)
    }

    @Test func aNewestFirstWalkYieldsAConversationUpdatedMidWalkOnce() async throws {
        let (server, client, ids) = try await Self.start(7)
        defer { server.stop() }
        var iterator = client.conversations(matching: ConversationQuery().limit(2)).makeAsyncIterator()
        var seen = [try #require(try await iterator.next()).id, try #require(try await iterator.next()).id]
        #expect(seen == [ids[6], ids[5]])
        // The oldest, not yet yielded, jumps to the front, behind the cursor; the newest, already
        // yielded, changes too.
        #expect(server.addAgentMessage(conversationId: ids[0], text: "news for the oldest") != nil)
        #expect(server.addAgentMessage(conversationId: ids[6], text: "news for the newest") != nil)
        while let next = try await iterator.next() { seen.append(next.id) }
        #expect(seen.count == Set(seen).count)
        #expect(Set(seen) == Set(ids))
        #expect(seen.last == ids[0])
    }

    @Test func theWalkHoldsAgainstAServerWhoseCursorIsAnOffset() async throws {
        // c0 newest ... c5 oldest; after the first page, c5 is updated and moves to the front,
        // shifting every later page by one (a repeat at the boundary, and c5 behind the cursor).
        let updated = Mutex(false)
        let transport = FakeTransport { request in
            let order =
                updated.withLock { $0 } ? ["c5", "c0", "c1", "c2", "c3", "c4"] : ["c0", "c1", "c2", "c3", "c4", "c5"]
            let items = order.map { id in
                let number = Int(id.dropFirst())!
                return Wire.conversationJSON(
                    id, updated: id == "c5" && updated.withLock { $0 } ? 2_000 : 1_000 - number)
            }
            return Wire.page(items, request: request)
        }
        let client = Wire.client(transport)
        var iterator = client.conversations(matching: ConversationQuery().limit(2)).makeAsyncIterator()
        var seen = [try #require(try await iterator.next()).id]
        updated.withLock { $0 = true }
        while let next = try await iterator.next() { seen.append(next.id) }
        #expect(seen == ["c0", "c1", "c2", "c3", "c4", "c5"])
        // Three pages, then two looks at the top, each ending at c0, unchanged: the first brings
        // c5, the second (made because the first found something) finds nothing new.
        #expect(transport.requests.count == 5)
    }

    @Test func theListLoadedToTheEndShowsAConversationUpdatedMidWalk() async throws {
        let (server, client, ids) = try await Self.start(7)
        defer { server.stop() }
        let query = ConversationQuery().limit(2)
        let list = ConversationListState(client: client, query: query)
        await list.load()
        await list.loadMore()
        #expect(list.conversations.map(\.id) == [ids[6], ids[5], ids[4], ids[3]])
        #expect(server.addAgentMessage(conversationId: ids[1], text: "news mid-walk") != nil)
        for _ in 0..<10 where list.hasMore { await list.loadMore() }
        #expect(list.error == nil)
        #expect(!list.hasMore)
        let shown = list.conversations.map(\.id)
        #expect(shown.count == Set(shown).count)
        #expect(Set(shown) == Set(ids))
        #expect(list.conversations == (try await ConversationListLiveTests.fresh(client, query)))
        #expect(list.conversations.first?.lastMessage?.text == "news mid-walk")
    }

    @Test func anAscendingListShowsTheFreshRowOfAConversationUpdatedElsewhere() async throws {
        let (server, client, ids) = try await Self.start(5)
        defer { server.stop() }
        let query = ConversationQuery().limit(2).order(.ascending)
        let list = ConversationListState(client: client, query: query)
        await list.load()
        let stale = try #require(list.conversations.first)
        #expect(stale.id == ids[0])
        // Updated elsewhere (no live update reaches this list): a later page brings it again.
        #expect(server.endConversation(id: ids[0]))
        for _ in 0..<10 where list.hasMore { await list.loadMore() }
        #expect(list.error == nil)
        #expect(list.conversations.map(\.id) == [ids[1], ids[2], ids[3], ids[4], ids[0]])
        #expect(list.conversations.last?.status == .ended)
        #expect(list.conversations == (try await ConversationListLiveTests.fresh(client, query)))
    }

    @Test func anUnknownStatusReadsAsOngoingKeepsItsWireValueAndPassesAnOngoingFilter() async throws {
        let (server, client, ids) = try await Self.start(4)
        defer { server.stop() }
        #expect(server.setConversationStatus(id: ids[1], rawStatus: "archived"))
        #expect(server.endConversation(id: ids[2]))

        let all = try await ConversationListLiveTests.fresh(client, ConversationQuery().limit(2))
        let archived = try #require(all.first { $0.id == ids[1] })
        #expect(archived.status == .ongoing)
        #expect(archived.rawStatus == "archived")
        // What `chatstream conversations --json` prints.
        #expect(archived.jsonValue["status"] == "archived")
        let decoded = try JSONDecoder().decode(Conversation.self, from: JSONEncoder().encode(archived))
        #expect(decoded.rawStatus == "archived")

        let shownOngoing = all.filter { $0.status == .ongoing }.map(\.id)
        let ongoing = try await ConversationListLiveTests.fresh(client, ConversationQuery().limit(2).status(.ongoing))
        #expect(ongoing.map(\.id) == shownOngoing)
        #expect(ongoing.map(\.id).contains(ids[1]))
        let ended = try await ConversationListLiveTests.fresh(client, ConversationQuery().status(.ended))
        #expect(ended.map(\.id) == [ids[2]])

        let list = ConversationListState(client: client, query: ConversationQuery().status(.ongoing))
        await list.load()
        #expect(list.conversations.map(\.id) == shownOngoing)
    }

    @Test func settingAKnownStatusForgetsTheUnknownWireValue() {
        var conversation = Conversation(
            id: "c", createdAt: Date(timeIntervalSince1970: 1), updatedAt: Date(timeIntervalSince1970: 2))
        #expect(conversation.rawStatus == "ongoing")
        conversation.status = .takenOver
        #expect(conversation.rawStatus == "taken_over")
        #expect(conversation.jsonValue["status"] == "taken_over")
    }
}
