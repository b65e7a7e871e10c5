// Issue 31, deliverable 7: creating a conversation with an ID someone else holds tells the prober
// nothing but "in use" (the decision is in the LimitsAndSecurity article): the same 409 body
// whoever holds it and whatever it holds, and every other route answers 404 exactly as for a
// missing ID.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("No conversation ID probe", .blockingAllowed)
struct ConversationIDProbeTests {
    @Test func aTakenIDAnswersTheSameWhoeverHoldsIt() throws {
        let fixture = try APIFixture()
        let byDevice = UUID().uuidString.lowercased()
        let byUser = UUID().uuidString.lowercased()
        #expect(
            try fixture.request(
                "POST", fixture.api("conversations"), body: #"{"id":"\#(byDevice)","title":"Secret plans"}"#
            ).status == 201)
        #expect(try fixture.chat("a long history", conversation: byDevice).status == 200)
        #expect(
            try fixture.request(
                "POST", fixture.api("conversations"), device: "device-b", token: developmentToken(user: "u1"),
                body: #"{"id":"\#(byUser)"}"#
            ).status == 201)
        #expect(
            try fixture.request(
                "POST", fixture.api("conversations/\(byUser)/close"), device: "device-b",
                token: developmentToken(user: "u1")
            ).status == 200)

        var bodies: [[UInt8]] = []
        for id in [byDevice, byUser] {
            let answer = try fixture.request(
                "POST", fixture.api("conversations"), device: "prober", body: #"{"id":"\#(id)","title":"x"}"#)
            #expect(answer.status == 409)
            #expect(answer.errorCode == "RESOURCE_CONVERSATION_CONFLICT")
            bodies.append(answer.body)
        }
        #expect(bodies[0] == bodies[1])
        #expect(!String(decoding: bodies[0], as: UTF8.self).contains("Secret"))
        // Reading or changing it answers exactly as a missing conversation does.
        let missing = UUID().uuidString.lowercased()
        for path in ["conversations/%@", "conversations/%@/messages"] {
            let taken = try fixture.request(
                "GET", fixture.api(path.replacingOccurrences(of: "%@", with: byDevice)),
                device: "prober")
            let free = try fixture.request(
                "GET", fixture.api(path.replacingOccurrences(of: "%@", with: missing)),
                device: "prober")
            #expect(taken.status == 404)
            #expect(taken.status == free.status && taken.body == free.body)
        }
        // The owner's conversation is untouched.
        let own = try fixture.request("GET", fixture.api("conversations/\(byDevice)"))
        #expect(own.json["data"]?["title"] == "Secret plans")
    }
}
