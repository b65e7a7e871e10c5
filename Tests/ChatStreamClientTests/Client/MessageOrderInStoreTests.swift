// The history store keeps a conversation's messages in the server's order although the server
// dates them to the second: replies and live events as heard, pages as the server lists them
// (the newest above, older ones below), and what a retry or the newest page says is gone goes.
// Found by the 200-message fault run: a user's message filed with a date a millisecond before its
// reply read back before the previous (retried) reply of the same second.

import ChatStream
import ChatStreamSQLite
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Messages of the same second keep the server's order in the store", .blockingAllowed)
final class MessageOrderInStoreTests {
    /// This test's folder (each test gets a fresh instance), removed with it.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "chatstream-order-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: directory) }

    static let scope = "test|agent|d:device"
    static let conversation = "6b1c2a3e-0000-4000-8000-000000000001"
    static let second = Date(timeIntervalSince1970: 1_790_000_000)

    /// A history store in this test's folder.
    func store() throws -> HistoryStore {
        try HistoryStore(path: directory.appendingPathComponent("history.sqlite").path)
    }

    static func message(_ id: String, _ sender: MessageSender, date: Date = second) -> Message {
        Message(id: id, text: "text of \(id)", sender: sender, date: date, parts: [.text("text of \(id)")])
    }

    static func reply(_ id: String, to userMessageId: String?) -> ChatResponse {
        ChatResponse(
            message: message(id, .agent), conversationId: conversation, userMessageId: userMessageId,
            finishReason: .stop, usage: Usage(credits: 1))
    }

    /// The cached messages' IDs, oldest first, read in pages of `pageSize`.
    static func cached(_ store: HistoryStore, pageSize: Int = 100) throws -> [String] {
        var ids: [String] = []
        var offset = 0
        while true {
            let (page, hasMore, _) = try store.messages(
                scope: scope, conversationId: conversation, offset: offset, limit: pageSize)
            ids = page.map(\.id) + ids
            offset += page.count
            if !hasMore || page.isEmpty { return ids }
        }
    }

    @Test func aReplyAfterARetriedReplyOfTheSameSecondReadsBackAfterIt() throws {
        let store = try self.store()
        try store.save(reply: Self.reply("r1", to: "u1"), userText: "one", clientMessageId: nil, scope: Self.scope)
        // r1 was retried: r1b replaces it, then the next turn, all in the same second.
        try store.save(
            reply: Self.reply("r1b", to: nil), userText: nil, clientMessageId: nil, retried: "r1", scope: Self.scope)
        try store.save(reply: Self.reply("r2", to: "u2"), userText: "two", clientMessageId: nil, scope: Self.scope)
        for pageSize in [1, 2, 3, 100] {
            #expect(try Self.cached(store, pageSize: pageSize) == ["u1", "r1b", "u2", "r2"], "pages of \(pageSize)")
        }
    }

    @Test func aMessageHeardAgainKeepsItsPlaceAndTheServersDate() throws {
        let store = try self.store()
        // The live event of the user's message comes first (with the server's date), then the reply.
        let earlier = Self.second.addingTimeInterval(-1)
        try store.save(
            messages: [Self.message("u1", .user, date: earlier)], conversationId: Self.conversation, scope: Self.scope)
        try store.save(reply: Self.reply("r1", to: "u1"), userText: "one", clientMessageId: nil, scope: Self.scope)
        // And the reply's own live event after it.
        try store.save(messages: [Self.message("r1", .agent)], conversationId: Self.conversation, scope: Self.scope)
        try store.save(reply: Self.reply("r2", to: "u2"), userText: "two", clientMessageId: nil, scope: Self.scope)
        try store.save(messages: [Self.message("u2", .user)], conversationId: Self.conversation, scope: Self.scope)
        #expect(try Self.cached(store) == ["u1", "r1", "u2", "r2"])
        let (page, _, _) = try store.messages(
            scope: Self.scope, conversationId: Self.conversation, offset: 0, limit: 100)
        #expect(page.first?.date == earlier, "the reply's guess replaced the live event's date")
    }

    @Test func theNewestPageSetsTheOrderHeardOutOfIt() throws {
        let store = try self.store()
        // Heard in the wrong order (a reply's live event before its user's message).
        for (id, sender) in [("r1", MessageSender.agent), ("u1", .user), ("u2", .user)] {
            try store.save(messages: [Self.message(id, sender)], conversationId: Self.conversation, scope: Self.scope)
        }
        #expect(try Self.cached(store) == ["r1", "u1", "u2"])
        try store.save(
            messages: [Self.message("u1", .user), Self.message("r1", .agent), Self.message("u2", .user)],
            conversationId: Self.conversation, scope: Self.scope, source: .newestPage)
        #expect(try Self.cached(store) == ["u1", "r1", "u2"])
    }

    @Test func anOlderPageGoesBelowTheCachedOnes() throws {
        let store = try self.store()
        try store.save(
            messages: [Self.message("u2", .user), Self.message("r2", .agent)], conversationId: Self.conversation,
            scope: Self.scope, source: .newestPage)
        try store.save(
            messages: [Self.message("u1", .user), Self.message("r1", .agent)], conversationId: Self.conversation,
            scope: Self.scope, source: .olderPage)
        try store.save(
            messages: [Self.message("u0", .user), Self.message("r0", .agent)], conversationId: Self.conversation,
            scope: Self.scope, source: .olderPage)
        for pageSize in [1, 4, 100] {
            #expect(try Self.cached(store, pageSize: pageSize) == ["u0", "r0", "u1", "r1", "u2", "r2"])
        }
    }

    @Test func aRetryDropsTheRetriedReplyAndWhatCameAfterIt() throws {
        let store = try self.store()
        try store.save(reply: Self.reply("r1", to: "u1"), userText: "one", clientMessageId: nil, scope: Self.scope)
        try store.save(reply: Self.reply("r2", to: "u2"), userText: "two", clientMessageId: nil, scope: Self.scope)
        try store.save(
            reply: Self.reply("r1b", to: nil), userText: nil, clientMessageId: nil, retried: "r1", scope: Self.scope)
        #expect(try Self.cached(store) == ["u1", "r1b"])
        // A retry of a reply the cache never held drops nothing.
        try store.save(
            reply: Self.reply("r1c", to: nil), userText: nil, clientMessageId: nil, retried: "zz", scope: Self.scope)
        #expect(try Self.cached(store) == ["u1", "r1b", "r1c"])
    }

    @Test func aStoreOfTheLastSchemaKeepsItsOrderWhenMigrated() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("history.sqlite").path
        do {
            let old = try SQLiteDatabase(path: path)
            try old.migrate(Array(HistoryStore.migrations.prefix(3)))
            for id in ["u1", "r1", "u2"] {
                try old.run(
                    """
                    INSERT INTO messages(scope, id, conversation_id, sender, created_at)
                    VALUES (?1, ?2, ?3, ?4, ?5)
                    """,
                    [
                        Self.scope, id, Self.conversation, id.hasPrefix("u") ? "user" : "agent",
                        Self.second.timeIntervalSince1970,
                    ])
                try old.run(
                    "INSERT INTO message_parts(scope, message_id, position, part) VALUES (?1, ?2, 0, ?3)",
                    [Self.scope, id, #"{"type":"text","text":"text"}"#])
            }
        }
        let store = try HistoryStore(path: path)
        #expect(try Self.cached(store) == ["u1", "r1", "u2"])
        try store.save(reply: Self.reply("r2", to: "u2"), userText: "two", clientMessageId: nil, scope: Self.scope)
        #expect(try Self.cached(store) == ["u1", "r1", "u2", "r2"])
    }

    @Test func theNewestPageDropsWhatItsSpanNoLongerHolds() throws {
        let store = try self.store()
        let at = { (offset: Double) in Self.second.addingTimeInterval(offset) }
        for (id, offset) in [("a", 0.0), ("gone", 1), ("b", 2), ("c", 3)] {
            try store.save(
                messages: [Self.message(id, .user, date: at(offset))], conversationId: Self.conversation,
                scope: Self.scope)
        }
        try store.save(
            messages: [Self.message("a", .user, date: at(0)), Self.message("b", .user, date: at(2))],
            conversationId: Self.conversation, scope: Self.scope, source: .newestPage)
        // "gone" was inside the page's span; "c" is newer than the page (heard while it was read).
        #expect(try Self.cached(store) == ["a", "b", "c"])
    }
}

@MainActor
@Suite("ConversationState merges the newest page after live messages", .blockingAllowed)
struct LiveMessageMergeTests {
    static func row(_ id: String, _ sender: MessageSender = .user) -> ConversationState.UiMessage {
        ConversationState.UiMessage(id: "row-\(id)", messageId: id, kind: .text(id), sender: sender)
    }

    static func message(_ id: String, _ sender: MessageSender = .user) -> Message {
        Message(id: id, text: id, sender: sender, date: .now, parts: [.text(id)])
    }

    @Test func aReplyHeardAfterTheNextTurnGoesBackToItsPlace() {
        // r3 (a retried reply) was stored before u4 but heard after r4.
        let rows = ["u1", "r1", "u3", "u4", "r4", "r3"].map { Self.row($0, $0.hasPrefix("u") ? .user : .agent) }
        let page = ["u3", "r3", "u4", "r4"].map { Self.message($0, $0.hasPrefix("u") ? .user : .agent) }
        let merged = ConversationState.merge(page, into: rows)
        #expect(merged.compactMap(\.messageId) == ["u1", "r1", "u3", "r3", "u4", "r4"])
    }

    @Test func rowsThePageDoesNotHoldFollowIt() {
        var pending = ConversationState.UiMessage(id: "outbox-1", kind: .text("queued"), sender: .user, isPending: true)
        pending.date = .now
        let rows = [Self.row("u1"), Self.row("r1", .agent), pending, Self.row("late", .agent)]
        let merged = ConversationState.merge([Self.message("u1"), Self.message("r1", .agent)], into: rows)
        #expect(merged.map(\.id) == ["u1#0", "r1#0", "outbox-1", "row-late"])
        // A page that holds none of the rows changes nothing.
        #expect(ConversationState.merge([Self.message("other")], into: rows) == rows)
        #expect(ConversationState.merge([], into: rows) == rows)
    }

    @Test func aFailedRowWhoseMessageTheServerStoredIsSettledNotShownTwice() async throws {
        let server = try HistoryStoreTests.startServer()
        defer { server.stop() }
        let (client, _) = HistoryStoreTests.client(port: server.port, store: nil, identity: InMemoryIdentityStore())
        let state = ConversationState(client: client)
        await state.sendMessage("one")
        let conversationId = try #require(state.conversationId)
        // A send whose answer was lost: the server stored it, the row shows failed.
        let clientMessageId = ChatbaseClient.newClientMessageId()
        _ = try await client.send("two", conversationId: conversationId, clientMessageId: clientMessageId)
        state.messages.append(.init(id: "local-two", kind: .text("two"), sender: .user, delivery: .failed))
        state.sentRows["local-two"] = clientMessageId
        await state.mergeNewestPage()
        let users = state.messages.filter { $0.sender == .user }
        #expect(users.map(\.kind) == [.text("one"), .text("two")], "\(state.messages.map(\.kind))")
        #expect(!state.messages.contains { $0.isError })
        #expect(state.messages.count == 4)
    }
}
