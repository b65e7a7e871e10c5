import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("History and conversation management (scripted transport)", .blockingAllowed)
struct HistoryTests {
    static let conversations: [JSONTree] = (0..<7).map { Wire.conversationJSON("c\($0)", updated: 1_700_000_100 - $0) }
    static let messages: [JSONTree] = (0..<8).map { Wire.messageJSON("m\($0)", text: "text \($0)") }

    static func server() -> FakeTransport {
        FakeTransport { request in
            switch request.route {
            case "conversations": return Wire.page(conversations, request: request)
            case "conversations/c1/messages": return Wire.page(messages, request: request)
            default: return Wire.error(404, "NOT_FOUND", "no route")
            }
        }
    }

    @Test func conversationPagesFollowTheCursorWithTheFirstLimit() async throws {
        let transport = Self.server()
        let client = Wire.client(transport)
        var pages: [[String]] = []
        var page: PaginatedResponse<Conversation>? = try await client.listConversations(limit: 3)
        while let current = page {
            pages.append(current.data.map(\.id))
            #expect(current.total == 7)
            page = try await current.loadMore()
        }
        #expect(pages == [["c0", "c1", "c2"], ["c3", "c4", "c5"], ["c6"]])
        #expect(transport.requests.map { $0.query("limit") } == [["3"], ["3"], ["3"]])
        #expect(transport.requests.map { $0.query("cursor") } == [[], ["3"], ["6"]])
    }

    @Test func messagePagesFollowTheCursorWithTheFirstLimit() async throws {
        let transport = Self.server()
        let client = Wire.client(transport)
        let first = try await client.listMessages(conversationId: "c1", limit: 3)
        let second = try #require(try await first.loadMore())
        let third = try #require(try await second.loadMore())
        #expect(first.data.map(\.id) == ["m0", "m1", "m2"])
        #expect(second.data.map(\.id) == ["m3", "m4", "m5"])
        #expect(third.data.map(\.id) == ["m6", "m7"])
        #expect(try await third.loadMore() == nil)
        #expect(first.data[0].text == "text 0")
        #expect(first.data[0].sender == .agent)
        #expect(transport.requests.allSatisfy { $0.query("limit") == ["3"] })
    }

    @Test(arguments: [0, -1, 101, 1000])
    func invalidLimitsFailBeforeAnyRequest(limit: Int) async throws {
        let transport = Self.server()
        let client = Wire.client(transport)
        let a = await #expect(throws: APIError.self) { try await client.listConversations(limit: limit) }
        let b = await #expect(throws: APIError.self) {
            try await client.listMessages(conversationId: "c1", limit: limit)
        }
        for error in [a, b] {
            #expect(error?.statusCode == 400)
            #expect(error?.apiCode == "VALIDATION_INVALID_BODY")
            #expect(error?.detail?.details == ["limit": "must be between 1 and 100, got \(limit)"])
            #expect(error?.detail?.finding == .refusedBeforeSending)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func unknownPartsAreKeptEmptyMessagesSkippedUnknownStatusIsOngoing() async throws {
        let transport = FakeTransport { request in
            if request.route == "conversations" {
                return Wire.json([
                    "data": [Wire.conversationJSON("c1", updated: 5, status: "archived-someday")],
                    "pagination": ["cursor": nil, "hasMore": false, "total": 1],
                ])
            }
            return Wire.json([
                "data": [
                    ["id": "a", "role": "user", "parts": [], "createdAt": 1],
                    [
                        "id": "b", "role": "assistant", "createdAt": 2, "feedback": "positive",
                        "metadata": ["score": 0.5],
                        "parts": [["type": "text", "text": "hi"], ["type": "hologram", "beam": 3]],
                    ],
                ],
                "pagination": ["cursor": "next", "hasMore": true, "total": 9],
            ])
        }
        let client = Wire.client(transport)
        let conversations = try await client.listConversations()
        #expect(conversations.data.first?.status == .ongoing)
        let page = try await client.listMessages(conversationId: "c1")
        #expect(page.data.map(\.id) == ["b"])
        #expect(page.hasMore)
        let message = try #require(page.data.first)
        #expect(message.assembledParts.count == 2)
        #expect(message.assembledParts[1] == .unknown(type: "hologram", raw: ["type": "hologram", "beam": 3]))
        #expect(message.parts == [.text("hi")])
        #expect(message.feedback == .positive)
        #expect(message.score == 0.5)
        #expect(message.text == "hi")
    }

    @Test func malformedPageIsADecodingErrorWithOffset() async throws {
        let client = Wire.client(
            FakeTransport { _ in HTTPResponse(status: 200, body: HTTPBody(bytes: Array(#"{"data":[{"id":}]}"#.utf8))) })
        let error = await #expect(throws: ChatError.self) { try await client.listConversations() }
        guard case .decodingFailed(let detail) = error else {
            Issue.record("not a decoding failure: \(String(describing: error))")
            return
        }
        #expect(detail.contains("at byte "))
    }

    @Test func modelsRoundTripThroughCodableInTheWireShape() throws {
        let conversation = Conversation(
            id: "c1", title: nil, createdAt: Date(timeIntervalSince1970: 10),
            updatedAt: Date(timeIntervalSince1970: 20),
            status: .takenOver, tags: ["vip"], unreadCount: 2)
        let data = try JSONEncoder().encode(conversation)
        let wire = try JSONTree(parsing: Array(data))
        #expect(wire["status"] == "taken_over")
        #expect(wire["createdAt"] == 10)
        #expect(try JSONDecoder().decode(Conversation.self, from: data) == conversation)
        let message = Message(
            id: "m", sender: .user, date: Date(timeIntervalSince1970: 3), assembledParts: [.text("a"), .text("b")])
        #expect(try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(message)) == message)
        #expect(message.text == "a\nb")  // one per line, as the SDK joins a history message's text
    }

    @Test func extensionRoutesOnAPlainServerAreNotSupported() async throws {
        let client = Wire.client(Self.server())
        for call in [
            { try await client.conversation(id: "c1") },
            { try await client.closeConversation(id: "c1") },
            { try await client.setTags(["a"], conversationId: "c1") },
            { try await client.markRead(conversationId: "c1", messageId: "m1") },
        ] as [@Sendable () async throws -> Conversation] {
            let error = await #expect(throws: APIError.self) { try await call() }
            #expect(error?.isNotSupportedByServer == true)
            #expect(error?.apiCode == APIErrorDetail.notSupportedCode)
        }
    }

    @Test func missingConversationIsNotFoundNotUnsupported() async throws {
        let client = Wire.client(FakeTransport { _ in Wire.error(404, "RESOURCE_CONVERSATION_NOT_FOUND") })
        let error = await #expect(throws: APIError.self) { try await client.conversation(id: "zz") }
        #expect(error?.statusCode == 404)
        #expect(error?.isNotFound == true)
    }

    @Test func queryBuildsItsFiltersIntoTheRequest() async throws {
        // Conversations with the extension fields: a server that understands the filters.
        let extended: [JSONTree] = Self.conversations.map {
            var object = $0.objectValue!
            object["tags"] = []
            object["unreadCount"] = 0
            return .object(object)
        }
        let transport = FakeTransport { Wire.page(extended, request: $0) }
        let client = Wire.client(transport)
        let query = ConversationQuery().limit(2).status(.ongoing).status(.takenOver).tag("a b").tag("c+d").unreadOnly()
            .search("héllo").order(.ascending)
        let page = try await client.listConversations(query)
        _ = try await page.loadMore()
        for request in transport.requests {
            #expect(request.query("status") == ["ongoing", "taken_over"])
            #expect(request.query("tag") == ["a b", "c+d"])
            #expect(request.query("unread") == ["true"])
            #expect(request.query("q") == ["héllo"])
            #expect(request.query("order") == ["asc"])
            #expect(request.query("limit") == ["2"])
        }
    }

    @Test func pagedSequenceFetchesLazilyAndNeverRepeatsAnItem() async throws {
        // Pages overlap by one item, as a list that shifted between requests would.
        let items: [JSONTree] = ["c0", "c1", "c2", "c2", "c3", "c4", "c4"].map {
            Wire.conversationJSON($0, updated: 1)
        }
        let transport = FakeTransport { Wire.page(items, request: $0) }
        let client = Wire.client(transport)
        var iterator = client.conversations(matching: ConversationQuery().limit(3)).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.id == "c0")
        #expect(transport.requests.count == 1)
        var ids = [first!.id]
        while let next = try await iterator.next() { ids.append(next.id) }
        #expect(ids == ["c0", "c1", "c2", "c3", "c4"])
        // Three pages, then the catch-up's look at the top, which ends at c0, unchanged.
        #expect(transport.requests.count == 4)
    }

    @Test func messageSequenceGoesBackInTime() async throws {
        let client = Wire.client(Self.server())
        var ids: [String] = []
        for try await message in client.messages(in: "c1", pageSize: 3) { ids.append(message.id) }
        #expect(ids == ["m2", "m1", "m0", "m5", "m4", "m3", "m7", "m6"])
    }
}
