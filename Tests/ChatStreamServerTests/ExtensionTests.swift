// Section 5 extensions: tags (one-way), unread counts, lastMessage, close, get, and switching them off.

import ChatStream
import ChatStreamServer
import TestSupport
import Testing

@Suite("Conversation extensions", .blockingAllowed)
struct ExtensionTests {
    @Test func tagsBelongToTheSignedInUserOnEveryDevice() throws {
        let fixture = try APIFixture()
        let token = developmentToken(user: "shared-user")
        let id = try fixture.startConversation("tag me", device: "device-a", token: token)
        let put = try fixture.request(
            "PUT", fixture.api("conversations/\(id)/tags"), device: "device-a", token: token,
            body: #"{"tags":["work","urgent","work"]}"#)
        #expect(put.status == 200)
        #expect(put.json["data"]?["tags"] == ["work", "urgent"])
        // PROTOCOLS.md section 6: the same user on another device sees the user's tags.
        let fromB = try fixture.request("GET", fixture.api("conversations/\(id)"), device: "device-b", token: token)
        #expect(fromB.status == 200)
        #expect(fromB.json["data"]?["tags"] == ["work", "urgent"])
        #expect(
            try fixture.page(fixture.api("conversations?tag=work"), device: "device-b", token: token).items.count == 1)
        _ = try fixture.request(
            "PUT", fixture.api("conversations/\(id)/tags"), device: "device-b", token: token,
            body: #"{"tags":["mine"]}"#)
        let fromA = try fixture.request("GET", fixture.api("conversations/\(id)"), device: "device-a", token: token)
        #expect(fromA.json["data"]?["tags"] == ["mine"])
        // Read state too: reading on B clears the unread count A sees.
        let last = try #require(fromA.json["data"]?["lastMessage"]?["id"]?.stringValue)
        _ = try fixture.request(
            "POST", fixture.api("conversations/\(id)/read"), device: "device-b", token: token,
            body: #"{"messageId":"\#(last)"}"#)
        let again = try fixture.request("GET", fixture.api("conversations/\(id)"), device: "device-a", token: token)
        #expect(again.json["data"]?["unreadCount"] == 0)
    }

    @Test func anAnonymousDevicesTagsAndReadStateBecomeTheUsersOnVerify() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("before sign-in", device: "device-c")
        _ = try fixture.request(
            "PUT", fixture.api("conversations/\(id)/tags"), device: "device-c", body: #"{"tags":["early"]}"#)
        let token = developmentToken(user: "late-user")
        let verify = try fixture.request(
            "POST", fixture.api("verify"), device: "device-c", body: #"{"token":"\#(token)"}"#)
        #expect(verify.status == 200)
        let fromOther = try fixture.request(
            "GET", fixture.api("conversations/\(id)"), device: "device-d", token: token)
        #expect(fromOther.json["data"]?["tags"] == ["early"])
        // Another (anonymous) device never sees them.
        let stranger = try fixture.request("GET", fixture.api("conversations/\(id)"), device: "device-e")
        #expect(stranger.status == 404)
    }

    @Test func unreadCountsFollowAgentMessagesAndReads() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("hello")
        func conversation() throws -> JSONTree {
            try fixture.request("GET", fixture.api("conversations/\(id)")).json["data"] ?? .null
        }
        #expect(try conversation()["unreadCount"] == 1)  // the streamed reply
        _ = fixture.server.addAgentMessage(conversationId: id, text: "a human joins")
        let lastId = try #require(fixture.server.addAgentMessage(conversationId: id, text: "still there?"))
        #expect(try conversation()["unreadCount"] == 3)
        #expect(try conversation()["lastMessage"]?["parts"]?[0]?["text"] == "still there?")
        #expect(try conversation()["lastMessage"]?["id"]?.stringValue == lastId)
        #expect(try fixture.page(fixture.api("conversations?unread=true")).items.count == 1)
        let read = try fixture.request(
            "POST", fixture.api("conversations/\(id)/read"), body: #"{"messageId":"\#(lastId)"}"#)
        #expect(read.status == 200)
        #expect(read.json["data"]?["unreadCount"] == 0)
        #expect(try fixture.page(fixture.api("conversations?unread=true")).items.isEmpty)
        _ = fixture.server.addAgentMessage(conversationId: id, text: "one more")
        #expect(try conversation()["unreadCount"] == 1)
    }

    @Test func closeIsIdempotentAndGetReturnsTheConversation() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("bye soon")
        let get = try fixture.request("GET", fixture.api("conversations/\(id)"))
        #expect(get.json["data"]?["status"] == "ongoing")
        #expect(get.json["data"]?["title"] == "bye soon")
        let first = try fixture.request("POST", fixture.api("conversations/\(id)/close"))
        #expect(first.status == 200)
        #expect(first.json["data"]?["status"] == "ended")
        let second = try fixture.request("POST", fixture.api("conversations/\(id)/close"))
        #expect(second.status == 200)
        #expect(second.json["data"]?["status"] == "ended")
        #expect(second.json["data"]?["updatedAt"] == first.json["data"]?["updatedAt"])
        let otherDevice = try fixture.request("POST", fixture.api("conversations/\(id)/close"), device: "device-z")
        #expect(otherDevice.errorCode == "RESOURCE_CONVERSATION_NOT_FOUND")
    }

    @Test func withExtensionsOffTheirRoutesAreNotFoundAndFieldsAbsent() throws {
        let fixture = try APIFixture(extensions: false)
        let id = try fixture.startConversation("plain server")
        for (method, path, body) in [
            ("GET", "conversations/\(id)", nil), ("POST", "conversations/\(id)/close", nil),
            ("PUT", "conversations/\(id)/tags", #"{"tags":["a"]}"#),
            ("POST", "conversations/\(id)/read", #"{"messageId":"x"}"#),
        ] as [(String, String, String?)] {
            let response = try fixture.request(method, fixture.api(path), body: body)
            #expect(response.status == 404, "\(method) \(path)")
            #expect(response.errorCode == "NOT_FOUND", "\(method) \(path)")
        }
        let item = try #require(try fixture.page(fixture.api("conversations")).items.first)
        #expect(item["id"]?.stringValue == id)
        #expect(item["status"] == "ongoing")
        #expect(item["tags"] == nil)
        #expect(item["unreadCount"] == nil)
        #expect(item["lastMessage"] == nil)
        // Section 1 routes still work.
        #expect(try fixture.page(fixture.api("conversations/\(id)/messages")).items.count == 2)
    }
}
