// Identifiers that are UUIDs are case-insensitive on every route (issue 28): a conversation created
// with `UUID().uuidString` (upper case) is stored lower-cased and found again under either case.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("UUID identifiers in any case", .blockingAllowed)
struct IdentifierCaseTests {
    @Test func anUpperCaseConversationIdWorksOnEveryRoute() throws {
        let fixture = try APIFixture()
        let upper = UUID().uuidString
        let lower = upper.lowercased()
        #expect(upper != lower)
        let created = try fixture.request("POST", fixture.api("conversations"), body: #"{"id":"\#(upper)"}"#)
        #expect(created.status == 201)
        #expect(created.json["data"]?["id"]?.stringValue == lower)
        // The same ID again, in either case, is the same conversation (200, not a second one).
        #expect(try fixture.request("POST", fixture.api("conversations"), body: #"{"id":"\#(lower)"}"#).status == 200)
        #expect(fixture.server.conversationCount == 1)

        #expect(try fixture.request("GET", fixture.api("conversations/\(upper)")).status == 200)
        let chat = try fixture.chat("hello", conversation: upper, stream: false)
        #expect(chat.status == 200)
        #expect(chat.json["data"]?["metadata"]?["conversationId"]?.stringValue == lower)
        let history = try fixture.page(fixture.api("conversations/\(upper)/messages"))
        #expect(history.status == 200)
        #expect(history.items.count == 2)
        let reply = try #require(history.items.last?["id"]?.stringValue)
        #expect(reply == reply.lowercased())
        #expect(
            try fixture.request(
                "POST", fixture.api("conversations/\(upper)/read"), body: #"{"messageId":"\#(reply.uppercased())"}"#
            )
            .status == 200)
        #expect(
            try fixture.request("PUT", fixture.api("conversations/\(upper)/tags"), body: #"{"tags":["a"]}"#).status
                == 200)
        #expect(try fixture.page(fixture.api("conversations?tag=a")).items.count == 1)
        let retried = try fixture.request(
            "POST", fixture.api("conversations/\(upper)/retry"),
            body: #"{"messageId":"\#(reply.uppercased())","stream":false}"#)
        #expect(retried.status == 200)

        // A tool call round trip in the upper-case conversation.
        let weather = try fixture.chat("weather in Oslo", conversation: upper, stream: false)
        let call = try #require(weather.json["data"]?["parts"]?[0]?["toolCallId"]?.stringValue)
        #expect(
            try fixture.request(
                "POST", fixture.api("conversations/\(upper)/tool-result"),
                body: #"{"toolCallId":"\#(call)","output":"sunny"}"#
            ).status == 200)

        #expect(fixture.server.setTyping(conversationId: upper, active: true))
        #expect(fixture.server.addAgentMessage(conversationId: upper, text: "a human agent") != nil)
        #expect(try fixture.request("POST", fixture.api("conversations/\(upper)/close")).status == 200)
        #expect(try fixture.request("GET", fixture.api("conversations/\(lower)")).json["data"]?["status"] == "ended")
        #expect(fixture.server.conversationCount == 1)
    }

    @Test func anotherCallersConversationStaysHiddenInEitherCase() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("mine")
        for variant in [id, id.uppercased()] {
            let answer = try fixture.request("GET", fixture.api("conversations/\(variant)"), device: "device-b")
            #expect(answer.status == 404)
            #expect(answer.errorCode == "RESOURCE_CONVERSATION_NOT_FOUND")
        }
    }

    @Test(arguments: ["not-a-uuid", "ABC", "0B7E8F9A-1C2D-4E5F-8A9B-0C1D2E3F4A5"])
    func identifiersThatAreNotUUIDsAreLeftAlone(id: String) {
        #expect(APIRoute.normalizedID(id) == id)
    }

    @Test func uuidsOfAnyCaseAreLowerCased() {
        let id = UUID().uuidString
        #expect(APIRoute.normalizedID(id) == id.lowercased())
        #expect(APIRoute.normalizedID(id.lowercased()) == id.lowercased())
    }
}
