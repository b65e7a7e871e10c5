// Issue 7 end to end: ChatbaseClient against ChatAPIServer over loopback. Filters alone and combined
// across at least three pages in both orders, cursor/filter mismatch, close then chat, one-way
// tags, unread counts, the paged async sequence (cancellation, items arriving between pages), a
// server without the extensions, and conversations derived from replies.

import ChatStream
import ChatStreamServer
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("Conversation management end to end", .blockingAllowed)
struct ConversationManagementTests {
    /// The conversations listed by following `loadMore()` from the first page of `query`.
    static func pages(_ client: ChatbaseClient, _ query: ConversationQuery) async throws -> [PaginatedResponse<
        Conversation
    >] {
        var pages: [PaginatedResponse<Conversation>] = []
        var page: PaginatedResponse<Conversation>? = try await client.listConversations(query)
        while let current = page {
            pages.append(current)
            page = try await current.loadMore()
        }
        return pages
    }

    @Test func everyFilterAloneAndCombinedAcrossAtLeastThreePagesInBothOrders() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            // Conversation i: "needle" unless i % 3 == 2; tagged "even" when i is even and "three"
            // when i % 3 == 0; ended when i % 3 == 1; read (so not unread) when i is even.
            var ids: [String] = []
            for i in 0..<15 {
                let response = try await client.send(i % 3 != 2 ? "needle \(i)" : "hay \(i)")
                ids.append(response.conversationId)
                var tags: [String] = []
                if i % 2 == 0 { tags.append("even") }
                if i % 3 == 0 { tags.append("three") }
                if !tags.isEmpty { try await client.setTags(tags, conversationId: response.conversationId) }
                if i % 3 == 1 { try await client.closeConversation(id: response.conversationId) }
                if i % 2 == 0 {
                    let replyId = try #require(response.message.id)
                    try await client.markRead(conversationId: response.conversationId, messageId: replyId)
                }
            }
            let cases: [(ConversationQuery, (Int) -> Bool)] = [
                (ConversationQuery().status(.ongoing), { $0 % 3 != 1 }),
                (ConversationQuery().status(.ended), { $0 % 3 == 1 }),
                (ConversationQuery().status(.ongoing).status(.ended), { _ in true }),
                (ConversationQuery().tag("even"), { $0 % 2 == 0 }),
                (ConversationQuery().tag("three"), { $0 % 3 == 0 }),
                (ConversationQuery().unreadOnly(), { $0 % 2 == 1 }),
                (ConversationQuery().search("NEEDLE"), { $0 % 3 != 2 }),
                (ConversationQuery().tag("even").tag("three"), { $0 % 6 == 0 }),
                (ConversationQuery().tag("even").status(.ongoing), { $0 % 2 == 0 && $0 % 3 != 1 }),
                (ConversationQuery().status(.ended).unreadOnly(), { $0 % 3 == 1 && $0 % 2 == 1 }),
                (ConversationQuery().search("needle").unreadOnly(), { $0 % 3 != 2 && $0 % 2 == 1 }),
                (ConversationQuery().tag("even").search("Needle").status(.ongoing), { $0 % 6 == 0 }),
            ]
            for (filters, predicate) in cases {
                let expected = Set(ids.indices.filter(predicate).map { ids[$0] })
                #expect(expected.count >= 3)
                let limit = max(1, expected.count / 3)
                let pages = try await Self.pages(client, filters.limit(limit))
                let descending = pages.flatMap { $0.data }
                #expect(pages.count >= 3, "\(filters)")
                #expect(pages.allSatisfy { $0.limit == limit && $0.data.count <= limit && $0.total == expected.count })
                #expect(descending.count == expected.count, "\(filters)")
                #expect(Set(descending.map(\.id)) == expected, "\(filters)")
                #expect(zip(descending, descending.dropFirst()).allSatisfy { $0.updatedAt >= $1.updatedAt })
                var ascending: [String] = []
                for try await conversation in client.conversations(matching: filters.limit(limit).order(.ascending)) {
                    ascending.append(conversation.id)
                }
                #expect(ascending == descending.map(\.id).reversed(), "\(filters)")
            }
            let none = try await Self.pages(client, ConversationQuery().status(.takenOver).limit(2))
            #expect(none.count == 1 && none[0].data.isEmpty && !none[0].hasMore)
        }
    }

    @Test func aCursorSentWithOtherFiltersIsA400Mismatch() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            for index in 0..<3 { _ = try await client.send("c\(index)") }
            let query = ConversationQuery().limit(1).status(.ongoing)
            let first = try await client.listConversations(query)
            let cursor = try #require(first.cursor)
            let second = try await client.listConversations(query, cursor: cursor)
            #expect(second.data.count == 1 && second.data[0].id != first.data[0].id)
            for other in [ConversationQuery().limit(1), query.order(.ascending), query.tag("x")] {
                let error = await #expect(throws: APIError.self) {
                    try await client.listConversations(other, cursor: cursor)
                }
                #expect(error?.statusCode != nil)
                #expect(error?.statusCode == 400)
                #expect(error?.apiCode == "VALIDATION_CURSOR_MISMATCH")
            }
        }
    }

    @Test func closeThenChatIs403AndCloseIsIdempotent() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            let id = try await client.send("closing soon").conversationId
            let closed = try await client.closeConversation(id: id)
            #expect(closed.status == .ended)
            let again = try await client.closeConversation(id: id)
            #expect(again.status == .ended)
            #expect(again.updatedAt == closed.updatedAt)
            #expect(try await client.conversation(id: id).status == .ended)
            let error = await #expect(throws: APIError.self) {
                try await client.send("hello?", conversationId: id)
            }
            #expect(error?.statusCode == 403)
            #expect(error?.isConversationNotOngoing == true)
            let streamed = await #expect(throws: APIError.self) {
                for try await _ in client.updates(sending: "streamed?", conversationId: id) {}
            }
            #expect(streamed?.apiCode == "CHAT_CONVERSATION_NOT_ONGOING")
            #expect(try await client.listMessages(conversationId: id).data.count == 2)
        }
    }

    @Test func tagsAndReadStateAreSharedByTheDevicesOfOneUser() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let phone = makeClient("phone-device")
            let laptop = makeClient("laptop-device")
            let stranger = makeClient("stranger-device")
            try await phone.identify(token: EndToEndTests.token("user-tags"))
            try await laptop.identify(token: EndToEndTests.token("user-tags"))
            let id = try await phone.send("shared conversation").conversationId
            #expect(try await phone.setTags(["work", "urgent"], conversationId: id).tags == ["work", "urgent"])
            #expect(try await laptop.conversation(id: id).tags == ["work", "urgent"])
            #expect(try await laptop.listConversations(ConversationQuery().tag("work")).data.map(\.id) == [id])
            #expect(try await laptop.setTags(["home"], conversationId: id).tags == ["home"])
            #expect(try await phone.conversation(id: id).tags == ["home"])
            #expect(try await phone.listConversations(ConversationQuery().tag("work")).data.isEmpty)
            let reply = try #require(try await phone.conversation(id: id).lastMessage?.id)
            #expect(try await laptop.markRead(conversationId: id, messageId: reply).unreadCount == 0)
            #expect(try await phone.conversation(id: id).unreadCount == 0)
            #expect(try await stranger.listConversations(ConversationQuery().tag("home")).data.isEmpty)
        }
    }

    @Test func unreadCountsFollowAgentRepliesAndMarkRead() async throws {
        try await EndToEndTests.withServer { server, makeClient in
            let client = makeClient(nil)
            let first = try await client.send("one")
            let id = first.conversationId
            #expect(try await client.conversation(id: id).unreadCount == 1)
            let second = try await client.send("two", conversationId: id)
            #expect(try await client.conversation(id: id).unreadCount == 2)
            let human = try #require(server.addAgentMessage(conversationId: id, text: "a human agent joins"))
            let now = try await client.conversation(id: id)
            #expect(now.unreadCount == 3)
            #expect(now.lastMessage?.id == human)
            #expect(now.lastMessage?.text == "a human agent joins")
            let secondId = try #require(second.message.id)
            let firstId = try #require(first.message.id)
            #expect(try await client.markRead(conversationId: id, messageId: secondId).unreadCount == 1)
            #expect(try await client.listConversations(ConversationQuery().unreadOnly()).data.map(\.id) == [id])
            #expect(try await client.markRead(conversationId: id, messageId: human).unreadCount == 0)
            // Reading an older message does not make newer ones unread again.
            #expect(try await client.markRead(conversationId: id, messageId: firstId).unreadCount == 0)
            #expect(try await client.listConversations(ConversationQuery().unreadOnly()).data.isEmpty)
            let third = try await client.send("three", conversationId: id)
            let after = try await client.conversation(id: id)
            #expect(after.unreadCount == 1)
            #expect(after.lastMessage?.id == third.message.id)
            let missing = await #expect(throws: APIError.self) {
                try await client.markRead(conversationId: id, messageId: "no-such-message")
            }
            #expect(missing?.isNotFound == true && missing?.statusCode == 404)
        }
    }

    @Test func theSequenceStopsWhenCancelledMidwayWithoutFetchingMore() async throws {
        try await EndToEndTests.withServer { server, _ in
            let counting = CountingTransport(base: URLSessionTransport())
            let client = ChatbaseClient(
                agentId: EndToEndTests.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                transport: counting, identityStore: InMemoryIdentityStore())
            for index in 0..<8 { _ = try await client.send("c\(index)") }
            let (reached, reachedContinuation) = AsyncStream<Void>.makeStream()
            let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
            let before = counting.listRequests
            let task = Task {
                var seen: [String] = []
                for try await conversation in client.conversations(matching: ConversationQuery().limit(2)) {
                    seen.append(conversation.id)
                    if seen.count == 3 {
                        reachedContinuation.yield()
                        for await _ in gate {}  // ends when the task is cancelled
                    }
                }
                return seen
            }
            for await _ in reached { break }
            task.cancel()
            let seen = try await task.value
            gateContinuation.finish()
            #expect(seen.count == 3)
            #expect(Set(seen).count == 3)
            #expect(counting.listRequests - before == 2)  // the pages of items 1-2 and 3-4, no more

            let cancelledFirst = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                var count = 0
                for try await _ in client.conversations(matching: ConversationQuery().limit(2)) { count += 1 }
                return count
            }
            let requestsBefore = counting.listRequests
            #expect(try await cancelledFirst.value == 0)
            #expect(counting.listRequests == requestsBefore)
        }
    }

    @Test func theSequenceYieldsEachConversationOnceWhenOneArrivesOrMovesBetweenPages() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            var created: [String] = []
            for index in 0..<6 { created.append(try await client.send("c\(index)").conversationId) }

            // Newest first: a conversation started between pages is newer than the cursor; the
            // catch-up at the end of the walk brings it, after every one that was there before.
            var descending = client.conversations(matching: ConversationQuery().limit(2)).makeAsyncIterator()
            var seen = [try #require(try await descending.next()).id, try #require(try await descending.next()).id]
            let arrived = try await client.send("arrives between pages").conversationId
            while let next = try await descending.next() { seen.append(next.id) }
            #expect(seen == created.reversed() + [arrived])

            // Oldest first: a conversation already yielded moves to the end (the server lists it
            // again on a later page), and a new one arrives there too.
            let all = created + [arrived]
            var ascending = client.conversations(matching: ConversationQuery().limit(2).order(.ascending))
                .makeAsyncIterator()
            seen = [try #require(try await ascending.next()).id, try #require(try await ascending.next()).id]
            #expect(seen == Array(all.prefix(2)))
            _ = try await client.send("moves to the end", conversationId: all[0])
            let newest = try await client.send("another arrival").conversationId
            while let next = try await ascending.next() { seen.append(next.id) }
            #expect(seen == all + [newest])
            // Without de-duplication the moved conversation would come twice: the raw pages repeat it.
            var raw: [String] = []
            var page: PaginatedResponse<Conversation>? = try await client.listConversations(
                ConversationQuery().limit(2).order(.ascending))
            raw += page!.data.map(\.id)
            _ = try await client.send("moves again", conversationId: raw[0])
            while let current = try await page?.loadMore() {
                raw += current.data.map(\.id)
                page = current
            }
            #expect(raw.count == Set(raw).count + 1)
        }
    }

    @Test func withoutTheExtensionsEachFailsClearlyAndNothingElseBreaks() async throws {
        try await EndToEndTests.withServer(extensions: false) { _, makeClient in
            let client = makeClient(nil)
            let id = try await client.send("plain").conversationId
            let calls: [(String, @Sendable () async throws -> Void)] = [
                ("conversation", { _ = try await client.conversation(id: id) }),
                ("close", { _ = try await client.closeConversation(id: id) }),
                ("tags", { _ = try await client.setTags(["a"], conversationId: id) }),
                ("read", { _ = try await client.markRead(conversationId: id, messageId: "m") }),
                ("status", { _ = try await client.listConversations(ConversationQuery().status(.ended)) }),
                ("order", { _ = try await client.listConversations(ConversationQuery().order(.ascending)) }),
                ("search", { for try await _ in client.conversations(matching: ConversationQuery().search("x")) {} }),
                ("unread", { for try await _ in client.conversations(matching: ConversationQuery().unreadOnly()) {} }),
            ]
            for (name, call) in calls {
                let error = await #expect(throws: APIError.self, "\(name)") { try await call() }
                #expect(error?.isNotSupportedByServer == true, "\(name)")
                #expect(error?.description.hasPrefix("not supported by this server: ") == true, "\(name)")
            }
            // Section 1 is untouched: lists, the sequences, history, continuing.
            let listed = try await client.listConversations(ConversationQuery().limit(5))
            #expect(listed.data.map(\.id) == [id])
            #expect(
                listed.data[0].tags == nil && listed.data[0].unreadCount == nil && listed.data[0].lastMessage == nil)
            var sequence: [String] = []
            for try await conversation in client.conversations(matching: ConversationQuery().limit(1)) {
                sequence.append(conversation.id)
            }
            #expect(sequence == [id])
            #expect(try await client.send("more", conversationId: id).conversationId == id)
            var messages = 0
            for try await _ in client.messages(in: id, pageSize: 1) { messages += 1 }
            #expect(messages == 4)
        }
    }

    // MARK: Conversations derived from replies

    @Test func aConversationDerivedFromAReplyMatchesTheServersWithoutARefetch() async throws {
        try await EndToEndTests.withServer { _, makeClient in
            let client = makeClient(nil)
            var assigned = false
            var live: Conversation? = nil
            for try await update in client.updates(sending: "first words") {
                if case .conversationAssigned = update.event { assigned = true }
                live = Conversation(reply: update.message)
                #expect((live != nil) == assigned)  // nil until the stream names the conversation
            }
            #expect(assigned)
            let id = try #require(client.currentConversationId)
            #expect(live?.id == id)
            #expect(live?.lastMessage?.text.hasPrefix("You said: first words.") == true)

            let shown = try await client.conversation(id: id)
            let response = try await client.send("second words", conversationId: id)
            let derived = Conversation(reply: response, previous: shown)
            let server = try await client.conversation(id: id)
            #expect(derived.id == server.id)
            #expect(derived.title == server.title)
            #expect(derived.createdAt == server.createdAt)
            #expect(derived.status == server.status)
            #expect(derived.tags == server.tags)
            #expect(derived.unreadCount == server.unreadCount)
            #expect(derived.lastMessage?.id == server.lastMessage?.id)
            #expect(derived.lastMessage?.text == server.lastMessage?.text)
            #expect(derived.lastMessage?.sender == .agent)
            #expect(derived.updatedAt >= shown.updatedAt)

            // A new conversation: what the reply cannot tell is unknown.
            let fresh = Conversation(reply: try await client.send("brand new"))
            #expect(fresh.title == nil && fresh.tags == nil && fresh.unreadCount == nil)
            let freshOnServer = try await client.conversation(id: fresh.id)
            #expect(fresh.lastMessage?.id == freshOnServer.lastMessage?.id)
            // `previous` of another conversation is ignored.
            let other = try await client.send("other")
            #expect(Conversation(reply: other, previous: server).title == nil)
            #expect(Conversation(reply: other, previous: server).id == other.conversationId)
        }
    }

    @Test func aReplyWithoutAnIdGetsALocalMessageId() {
        var reply = AssembledMessage(isFinished: true)
        reply.parts = [.text("hi")]
        #expect(Conversation(reply: reply) == nil)
        reply.conversationId = "c1"
        let derived = Conversation(reply: reply, date: Date(timeIntervalSince1970: 5))
        #expect(derived?.lastMessage?.id.hasPrefix("local-") == true)
        #expect(derived?.updatedAt == Date(timeIntervalSince1970: 5))
        #expect(derived?.createdAt == Date(timeIntervalSince1970: 5))
        #expect(derived?.status == .ongoing)
    }
}

/// Passes requests to `base`, counting the conversation-list requests.
final class CountingTransport: HTTPTransport {
    let base: any HTTPTransport
    private let count = Shared(0)

    init(base: any HTTPTransport) { self.base = base }

    var listRequests: Int { count.value }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.method == "GET", request.url.path.hasSuffix("/conversations") { count.update { $0 += 1 } }
        return try await base.send(request)
    }
}
