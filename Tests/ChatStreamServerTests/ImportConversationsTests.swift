// The server's bulk import (package access; the store-scaling bench seeds its stores with it):
// what it writes is what the routes then serve, to the device it names only, with no live event.

import ChatStream
import ChatStreamServer
import TestSupport
import Testing

@Suite("Bulk import of conversations", .blockingAllowed)
struct ImportConversationsTests {
    @Test func importedConversationsAreServedToTheirDeviceOnly() throws {
        let fixture = try APIFixture()
        let conversations = (0..<5).map { index in
            ChatAPIServer.ImportedConversation(
                deviceId: index.isMultiple(of: 2) ? "device-a" : "device-b", title: "imported \(index)",
                messages: [
                    .init(role: "user", text: "question \(index)"), .init(role: "assistant", text: "answer \(index)"),
                ])
        }
        try fixture.server.importConversations(conversations)

        let mine = try fixture.page(fixture.api("conversations?limit=100"), device: "device-a")
        #expect(Set(mine.items.compactMap { $0["title"]?.stringValue }) == ["imported 0", "imported 2", "imported 4"])
        let theirs = try fixture.page(fixture.api("conversations?limit=100"), device: "device-b")
        #expect(Set(theirs.items.compactMap { $0["title"]?.stringValue }) == ["imported 1", "imported 3"])

        let first = try #require(mine.items.first(where: { $0["title"]?.stringValue == "imported 2" }))
        let id = try #require(first["id"]?.stringValue)
        let messages = try fixture.page(fixture.api("conversations/\(id)/messages?limit=100"), device: "device-a")
        #expect(messages.items.compactMap { $0["role"]?.stringValue } == ["user", "assistant"])
        #expect(
            messages.items.compactMap { $0["parts"]?[0]?["text"]?.stringValue } == ["question 2", "answer 2"])
        // Another device cannot read it.
        #expect(try fixture.request("GET", fixture.api("conversations/\(id)"), device: "device-b").status == 404)
    }
}
