// Conversation and message pages, section 5 filters, cursors and validation over loopback HTTP.

import ChatStream
import ChatStreamServer
import TestSupport
import Testing

@Suite("Conversation lists", .blockingAllowed)
struct ConversationListTests {
    @Test func conversationsPageNewestFirstAcrossPages() throws {
        let fixture = try APIFixture()
        var created: [String] = []
        for index in 0..<7 { created.append(try fixture.startConversation("conversation \(index)")) }
        let pages = try fixture.allPages(fixture.api("conversations?limit=3"))
        #expect(pages.map(\.count) == [3, 3, 1])
        #expect(pages.flatMap { $0 } == created.reversed())
        let first = try fixture.page(fixture.api("conversations?limit=3"))
        #expect(first.total == 7)
        #expect(first.hasMore)
        #expect(first.cursor != nil)
        let whole = try fixture.page(fixture.api("conversations"))
        #expect(whole.items.count == 7)
        #expect(!whole.hasMore)
        #expect(whole.cursor == nil)
        // Answering in a conversation moves it to the front.
        _ = try fixture.chat("again", conversation: created[0])
        #expect(try fixture.page(fixture.api("conversations?limit=1")).items.first?["id"]?.stringValue == created[0])
    }

    @Test func eachPageItemIsTheConversationAsItsOwnReadShowsIt() throws {
        // A page reads its conversations' tags, unread counts and last messages together, a
        // conversation's own read one at a time: every item must equal that read.
        let fixture = try APIFixture()
        var ids: [String] = []
        for index in 0..<5 { ids.append(try fixture.startConversation("conversation \(index)")) }
        for (index, id) in ids.enumerated() {
            // Tags in an order of their own (not sorted), a different number on each, none on one.
            if index != 2 {
                let tags = (0...index).map { "\"t\(index)-\(4 - $0)\"" }.joined(separator: ",")
                let put = try fixture.request(
                    "PUT", fixture.api("conversations/\(id)/tags"), body: #"{"tags":[\#(tags)]}"#)
                #expect(put.status == 200)
            }
            for note in 0..<index {
                _ = fixture.server.addAgentMessage(conversationId: id, text: "note \(note) of \(index)")
            }
        }
        var items: [JSONTree] = []
        var path: String? = fixture.api("conversations?limit=2")
        while let current = path {
            let page = try fixture.page(current)
            #expect(page.status == 200)
            items += page.items
            path = page.hasMore ? page.cursor.map { fixture.api("conversations?limit=2&cursor=\($0)") } : nil
        }
        #expect(items.compactMap { $0["id"]?.stringValue } == ids.reversed())
        for item in items {
            let id = try #require(item["id"]?.stringValue)
            let own = try fixture.request("GET", fixture.api("conversations/\(id)"))
            #expect(own.status == 200)
            #expect(item == own.json["data"], "\(id)")
        }
        #expect(items.map { $0["unreadCount"]?.intValue } == [5, 4, 3, 2, 1])
        #expect(items[0]["tags"] == ["t4-4", "t4-3", "t4-2", "t4-1", "t4-0"])
        #expect(items[2]["tags"] == [])
        #expect(items[0]["lastMessage"]?["parts"]?[0]?["text"] == "note 3 of 4")
    }

    @Test func messagesPageNewestFirstWithEachPageOldestToNewest() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("m0")
        for index in 1..<4 { _ = try fixture.chat("m\(index)", conversation: id) }
        _ = fixture.server.addAgentMessage(conversationId: id, text: "extra")
        let all = try fixture.page(fixture.api("conversations/\(id)/messages?limit=100")).items.compactMap {
            $0["id"]?.stringValue
        }
        #expect(all.count == 9)
        let pages = try fixture.allPages(fixture.api("conversations/\(id)/messages?limit=4"))
        #expect(pages == [Array(all[5...]), Array(all[1..<5]), [all[0]]])
        let first = try fixture.page(fixture.api("conversations/\(id)/messages?limit=4"))
        #expect(first.total == 9)
        let texts = first.items.compactMap { $0["parts"]?[0]?["text"]?.stringValue }
        #expect(texts.first?.hasPrefix("You said: m2.") == true)
        #expect(texts.last == "extra")
        #expect(first.items.allSatisfy { $0["createdAt"]?.intValue != nil && $0["feedback"] == .null })
    }

    @Test func filtersWorkAloneAndCombined() throws {
        let fixture = try APIFixture()
        let apple = try fixture.startConversation("Apples are crimson")
        let banana = try fixture.startConversation("Bananas are yellow")
        let cherry = try fixture.startConversation("Cherries are crimson too")
        // Read everything so far, then leave one unread agent message in `banana`.
        for id in [apple, banana, cherry] {
            let last = try fixture.page(fixture.api("conversations/\(id)/messages?limit=1")).items[0]["id"]!
                .stringValue!
            #expect(
                try fixture.request("POST", fixture.api("conversations/\(id)/read"), body: #"{"messageId":"\#(last)"}"#)
                    .status == 200)
        }
        _ = fixture.server.addAgentMessage(conversationId: banana, text: "A human agent says: ripe!")
        _ = try fixture.request("PUT", fixture.api("conversations/\(apple)/tags"), body: #"{"tags":["fruit","red"]}"#)
        _ = try fixture.request("PUT", fixture.api("conversations/\(cherry)/tags"), body: #"{"tags":["red"]}"#)
        _ = try fixture.request("PUT", fixture.api("conversations/\(banana)/tags"), body: #"{"tags":["fruit"]}"#)
        _ = try fixture.request("POST", fixture.api("conversations/\(cherry)/close"))

        func ids(_ query: String) throws -> Set<String> {
            let page = try fixture.page(fixture.api("conversations?\(query)"))
            #expect(page.status == 200, "\(query)")
            return Set(page.items.compactMap { $0["id"]?.stringValue })
        }
        #expect(try ids("status=ended") == [cherry])
        #expect(try ids("status=ongoing") == [apple, banana])
        #expect(try ids("status=ongoing&status=ended") == [apple, banana, cherry])
        #expect(try ids("status=taken_over").isEmpty)
        #expect(try ids("tag=red") == [apple, cherry])
        #expect(try ids("tag=red&tag=fruit") == [apple])
        #expect(try ids("unread=true") == [banana])
        #expect(try ids("q=CRIMSON") == [apple, cherry])
        #expect(try ids("q=ripe") == [banana])  // message text, not only the title
        #expect(try ids("tag=red&status=ongoing") == [apple])
        #expect(try ids("tag=fruit&unread=true&q=banana") == [banana])
        #expect(try ids("tag=fruit&q=cherries").isEmpty)
        let descending = try fixture.page(fixture.api("conversations")).items.compactMap { $0["id"]?.stringValue }
        let ascending = try fixture.page(fixture.api("conversations?order=asc")).items.compactMap {
            $0["id"]?.stringValue
        }
        #expect(ascending == descending.reversed())
        #expect(descending.first == cherry)  // closed last
        let filteredAscending = try fixture.allPages(fixture.api("conversations?order=asc&tag=fruit&limit=1"))
        #expect(filteredAscending == [[apple], [banana]])
        #expect(try fixture.page(fixture.api("conversations?tag=red")).total == 2)
    }

    @Test func aCursorUsedWithOtherFiltersIsRejected() throws {
        let fixture = try APIFixture()
        for index in 0..<3 { _ = try fixture.startConversation("c\(index)") }
        let first = try fixture.page(fixture.api("conversations?limit=1&status=ongoing"))
        let cursor = try #require(first.cursor)
        let same = try fixture.request("GET", fixture.api("conversations?limit=1&status=ongoing&cursor=\(cursor)"))
        #expect(same.status == 200)
        let other = try fixture.request("GET", fixture.api("conversations?limit=1&cursor=\(cursor)"))
        #expect(other.status == 400)
        #expect(other.errorCode == "VALIDATION_CURSOR_MISMATCH")
        let order = try fixture.request(
            "GET", fixture.api("conversations?limit=1&status=ongoing&order=asc&cursor=\(cursor)"))
        #expect(order.errorCode == "VALIDATION_CURSOR_MISMATCH")
        let garbage = try fixture.request("GET", fixture.api("conversations?cursor=%21%21%21"))
        #expect(garbage.status == 400)
        #expect(garbage.errorCode == "VALIDATION_INVALID_CURSOR")
        let id = try fixture.startConversation("x")
        let crossList = try fixture.request("GET", fixture.api("conversations/\(id)/messages?cursor=\(cursor)"))
        #expect(crossList.status == 400)
    }

    @Test(
        arguments: [
            ("GET", "conversations?limit=0", nil, 400, "VALIDATION_INVALID_BODY"),
            ("GET", "conversations?limit=101", nil, 400, "VALIDATION_INVALID_BODY"),
            ("GET", "conversations?limit=ten", nil, 400, "VALIDATION_INVALID_BODY"),
            ("GET", "conversations?status=archived", nil, 400, "VALIDATION_INVALID_STATUS"),
            ("GET", "conversations?order=sideways", nil, 400, "VALIDATION_INVALID_ORDER"),
            ("GET", "conversations?unread=maybe", nil, 400, "VALIDATION_INVALID_UNREAD"),
            (
                "GET", "conversations?" + (0...25).map { "tag=t\($0)" }.joined(separator: "&"), nil, 400,
                "VALIDATION_TOO_MANY_TAGS"
            ),
            ("GET", "conversations?tag=" + String(repeating: "x", count: 65), nil, 400, "VALIDATION_INVALID_TAG"),
            ("POST", "chat", "{not json", 400, "VALIDATION_INVALID_JSON"),
            ("POST", "chat", "", 400, "VALIDATION_INVALID_JSON"),
            ("POST", "chat", "[1,2]", 400, "VALIDATION_INVALID_BODY"),
            ("POST", "chat", #"{"message":5,"stream":true}"#, 400, "VALIDATION_INVALID_BODY"),
            ("POST", "chat", #"{"message":"hi","stream":"yes"}"#, 400, "VALIDATION_INVALID_BODY"),
            ("POST", "chat", #"{"stream":true}"#, 400, "VALIDATION_INVALID_BODY"),
            ("POST", "chat", #"{"message":"","stream":true}"#, 400, "VALIDATION_INVALID_BODY"),
            ("POST", "verify", #"{"token":7}"#, 400, "VALIDATION_INVALID_BODY"),
            ("DELETE", "chat", nil, 405, "METHOD_NOT_ALLOWED"),
            ("GET", "chat", nil, 405, "METHOD_NOT_ALLOWED"),
            ("DELETE", "conversations", nil, 405, "METHOD_NOT_ALLOWED"),
            ("POST", "conversations", #"{"id":"not-a-uuid"}"#, 400, "VALIDATION_INVALID_BODY"),
            ("POST", "chat", #"{"message":"hi","clientMessageId":"x"}"#, 400, "VALIDATION_INVALID_BODY"),
            ("GET", "nowhere", nil, 404, "NOT_FOUND"),
            ("GET", "conversations/x/unknown", nil, 404, "NOT_FOUND"),
        ] as [(String, String, String?, Int, String)])
    func invalidRequestsGetClearErrors(_ method: String, _ path: String, _ body: String?, _ status: Int, _ code: String)
        throws
    {
        let fixture = try APIFixture()
        let response = try fixture.request(method, fixture.api(path), body: body)
        #expect(response.status == status)
        #expect(response.errorCode == code)
        #expect(response.json["error"]?["message"]?.stringValue?.isEmpty == false)
    }

    @Test func otherRequestsAreValidatedToo() throws {
        let fixture = try APIFixture()
        let noDevice = try fixture.request(
            "POST", fixture.api("chat"), device: nil, body: #"{"message":"hi","stream":true}"#)
        #expect(noDevice.status == 400)
        #expect(noDevice.errorCode == "VALIDATION_INVALID_BODY")
        let otherAgent = try fixture.request("GET", "/agents/someone-else/conversations")
        #expect(otherAgent.status == 404)
        #expect(otherAgent.errorCode == "AGENT_NOT_FOUND")
        let unprefixed = try fixture.request("GET", "/agents/demo-agent/conversations")
        #expect(unprefixed.status == 200)
        let root = try fixture.request("GET", "/")
        #expect(root.errorCode == "NOT_FOUND")
        let id = try fixture.startConversation("x")
        let tooMany = try fixture.request(
            "PUT", fixture.api("conversations/\(id)/tags"),
            body: JSONTree.object(JSONObject([("tags", .array((0..<26).map { .string("t\($0)") }))])).jsonText)
        #expect(tooMany.errorCode == "VALIDATION_TOO_MANY_TAGS")
        let empty = try fixture.request("PUT", fixture.api("conversations/\(id)/tags"), body: #"{"tags":[""]}"#)
        #expect(empty.errorCode == "VALIDATION_INVALID_TAG")
        let notStrings = try fixture.request("PUT", fixture.api("conversations/\(id)/tags"), body: #"{"tags":[1]}"#)
        #expect(notStrings.errorCode == "VALIDATION_INVALID_BODY")
        let unknownMessage = try fixture.request(
            "POST", fixture.api("conversations/\(id)/read"), body: #"{"messageId":"zz"}"#)
        #expect(unknownMessage.status == 404)
        #expect(unknownMessage.errorCode == "RESOURCE_MESSAGE_NOT_FOUND")
        let missing = try fixture.request("GET", fixture.api("conversations/00000000-0000-4000-8000-000000000000"))
        #expect(missing.status == 404)
        #expect(missing.errorCode == "RESOURCE_CONVERSATION_NOT_FOUND")
    }
}
