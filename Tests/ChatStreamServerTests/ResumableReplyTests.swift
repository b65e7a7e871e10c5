// Replies that survive the connection (PROTOCOLS.md section 8), over loopback: event IDs, resuming
// at every event boundary and after random byte cuts, generation without a reader, joining an
// in-flight resend, and the route's refusals (404, 410, 400).

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Resumable replies", .blockingAllowed)
struct ResumableReplyTests {
    /// A whole reply to `message`: its events, conversation and message IDs.
    static func wholeReply(_ fixture: APIFixture, _ message: String = "resume me at every event please") throws -> (
        events: [ReplyEvent], conversation: String, message: String
    ) {
        let response = try fixture.chat(message)
        #expect(response.status == 200)
        #expect(response.complete)
        let events = ReplyEvent.parse(response.body)
        let start = try #require(events.first?.json)
        let conversation = try #require(start["messageMetadata"]?["conversationId"]?.stringValue)
        let messageId = try #require(start["messageId"]?.stringValue)
        #expect(response.header("X-Message-Id") == messageId)
        return (events, conversation, messageId)
    }

    @Test func everyEventHasAnIncreasingIdAndTheFirstIsStart() throws {
        let fixture = try APIFixture()
        let (events, _, messageId) = try Self.wholeReply(fixture)
        #expect(events.count > 6)
        #expect(events.map(\.id) == Array(1...events.count))
        #expect(events.first?.type == "start")
        #expect(events.first?.json?["messageId"]?.stringValue == messageId)
        #expect(Array(events.suffix(2).map(\.type)) == ["finish", "[DONE]"])
        // What holding it costs: the SSE bytes of its events (the figure the retention budget counts).
        let held = fixture.server.heldReplyBytes
        #expect(held > 0 && held < 8_192)
        print("resumable replies: a \(events.count)-event demo reply holds \(held) bytes")
    }

    @Test func aResumeAtEveryEventBoundaryGivesExactlyTheRest() throws {
        let fixture = try APIFixture()
        let (events, conversation, messageId) = try Self.wholeReply(fixture)
        for handled in 0...events.count {
            let byHeader = try fixture.resume(conversation, messageId, after: handled == 0 ? nil : String(handled))
            #expect(byHeader.status == 200)
            #expect(byHeader.complete)
            #expect(byHeader.header("X-Message-Id") == messageId)
            #expect(ReplyEvent.parse(byHeader.body) == Array(events[handled...]), "after \(handled)")
            let byQuery = try fixture.request(
                "GET", fixture.replyPath(conversation, messageId) + "?lastEventId=\(handled)")
            #expect(ReplyEvent.parse(byQuery.body) == Array(events[handled...]), "query after \(handled)")
        }
    }

    @Test func aReplyCutAtRandomBytesIsCompletedByResuming() throws {
        let fixture = try APIFixture()
        let whole = try fixture.chat("cut me anywhere and pick me up again")
        let reference = ReplyEvent.parse(whole.body)
        var generator = SplitMix64(seed: 28)
        for _ in 0..<25 {
            let cutAt = Int.random(in: 1..<whole.body.count, using: &generator)
            let cut = try fixture.chat(
                "cut me anywhere and pick me up again", headers: [("X-ChatStream-Fault", "drop-after=\(cutAt)")])
            #expect(!cut.complete)
            let messageId = try #require(cut.header("X-Message-Id"))
            let received = ReplyEvent.parse(cut.body)
            let conversation = try #require(
                try fixture.page(fixture.api("conversations")).items.first?["id"]?.stringValue)
            let rest = try fixture.resume(conversation, messageId, after: received.last?.id.map(String.init))
            let all = received + ReplyEvent.parse(rest.body)
            #expect(all.map(\.id) == Array(1...reference.count), "cut at \(cutAt)")
            #expect(all.map(\.type) == reference.map(\.type))
            #expect(ReplyEvent.text(all) == ReplyEvent.text(reference))
        }
    }

    @Test func generationContinuesAndIsStoredWhenTheReaderGoesAway() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(20) }
        let cut = try fixture.chat("nobody reads this to the end", headers: [("X-ChatStream-Fault", "drop-after=80")])
        #expect(cut.body.count == 80)
        let messageId = try #require(cut.header("X-Message-Id"))
        let conversation = try #require(try fixture.page(fixture.api("conversations")).items.first?["id"]?.stringValue)
        // While it generates the reply is not in history; a resume follows it live to the end.
        #expect(try fixture.page(fixture.api("conversations/\(conversation)/messages")).items.count == 1)
        let rest = try fixture.resume(conversation, messageId, after: "1")
        #expect(rest.complete)
        let events = ReplyEvent.parse(rest.body)
        #expect(events.first?.id == 2)
        #expect(events.last?.type == "[DONE]")
        let history = try fixture.page(fixture.api("conversations/\(conversation)/messages")).items
        #expect(history.count == 2)
        #expect(history.last?["id"]?.stringValue == messageId)
        #expect(history.last?["parts"]?[0]?["text"]?.stringValue == ReplyEvent.text(events))
    }

    @Test func aResendOfAnInFlightMessageJoinsTheRunningReply() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(25) }
        let clientMessageId = UUID().uuidString.lowercased()
        let body = APIFixture.chatBody("join me while I am generated", clientMessageId: clientMessageId)
        let first = fixture.background("POST", fixture.api("chat"), body: body)
        #expect(eventually { fixture.server.generatingReplyCount == 1 })
        let second = try fixture.request("POST", fixture.api("chat"), body: body)
        let original = try first.wait()
        #expect(second.header("Idempotent-Replayed") == "true")
        #expect(original.header("Idempotent-Replayed") == nil)
        #expect(second.header("X-Message-Id") == original.header("X-Message-Id"))
        let joined = ReplyEvent.parse(second.body)
        #expect(joined == ReplyEvent.parse(original.body))
        #expect(joined.first?.id == 1)
        #expect(fixture.server.conversationCount == 1)
        let conversation = try #require(joined.first?.json?["messageMetadata"]?["conversationId"]?.stringValue)
        #expect(try fixture.page(fixture.api("conversations/\(conversation)/messages")).items.count == 2)
        // After the end, a resend still answers the same events (held), replayed.
        let third = try fixture.request("POST", fixture.api("chat"), body: body)
        #expect(ReplyEvent.parse(third.body) == joined)
    }

    @Test func theRouteRefusesWhatItCannotServe() throws {
        let fixture = try APIFixture()
        let (events, conversation, messageId) = try Self.wholeReply(fixture)
        func code(_ response: APIResponse) -> String { "\(response.status) \(response.errorCode ?? "")" }
        // Unknown message, unknown conversation, another caller's reply, a user message: all 404 alike.
        let missing = "404 RESOURCE_MESSAGE_NOT_FOUND"
        #expect(code(try fixture.resume(conversation, UUID().uuidString.lowercased(), after: nil)) == missing)
        #expect(code(try fixture.resume(UUID().uuidString.lowercased(), messageId, after: nil)) == missing)
        #expect(code(try fixture.resume(conversation, messageId, after: nil, device: "device-b")) == missing)
        let userMessage = try #require(events.first?.json?["messageMetadata"]?["userMessageId"]?.stringValue)
        #expect(code(try fixture.resume(conversation, userMessage, after: nil)) == missing)
        // Forged, huge and future IDs: 400.
        for forged in ["abc", "-1", "1.5", "99999999999999999999999", String(events.count + 1), "0x10"] {
            #expect(
                code(try fixture.resume(conversation, messageId, after: forged))
                    == "400 VALIDATION_INVALID_LAST_EVENT_ID", "\(forged)")
        }
        let huge = String(repeating: "9", count: 6_000)
        #expect(try fixture.resume(conversation, messageId, after: huge).status == 400)
        // Upper-case IDs name the same reply.
        let upper = try fixture.resume(conversation.uppercased(), messageId.uppercased(), after: "2")
        #expect(ReplyEvent.parse(upper.body) == Array(events[2...]))
        // A non-streamed reply's events were never held: 410, read history.
        let plain = try fixture.chat("no stream", conversation: conversation, stream: false)
        let plainId = try #require(plain.json["data"]?["id"]?.stringValue)
        #expect(code(try fixture.resume(conversation, plainId, after: nil)) == "410 RESOURCE_REPLY_EXPIRED")
    }

    @Test func anEndedReplyIsHeldForItsRetentionThenAnswers410() throws {
        let retention = Duration.milliseconds(300)
        let fixture = try APIFixture { $0.replies.retention = retention }
        // The reply ends after the chat starts: a resume answered within the retention of that
        // start must find it. (On a loaded machine the chat alone may take longer; then only the
        // expiry is checked, which no delay can make pass wrongly.)
        let chatStart = ContinuousClock.now
        let (_, conversation, messageId) = try Self.wholeReply(fixture)
        let held = try fixture.resume(conversation, messageId, after: "1").status
        let heldBytes = fixture.server.heldReplyBytes
        if ContinuousClock.now - chatStart < retention {
            #expect(held == 200)
            #expect(heldBytes > 0)
        }
        usleep(500_000)
        let expired = try fixture.resume(conversation, messageId, after: "1")
        #expect(expired.status == 410)
        #expect(expired.errorCode == "RESOURCE_REPLY_EXPIRED")
        #expect(fixture.server.heldReplyBytes == 0)
    }

    @Test func theByteBudgetDropsTheOldestEndedRepliesFirst() throws {
        let fixture = try APIFixture { $0.replies.retainedBytes = 6_000 }
        var replies: [(String, String, Int)] = []
        for index in 0..<12 {
            let response = try fixture.chat("budget test number \(index) with some words to hold")
            let events = ReplyEvent.parse(response.body)
            let conversation = try #require(events.first?.json?["messageMetadata"]?["conversationId"]?.stringValue)
            replies.append((conversation, try #require(response.header("X-Message-Id")), response.body.count))
        }
        let statuses = try replies.map { try fixture.resume($0.0, $0.1, after: "1").status }
        #expect(fixture.server.heldReplyBytes <= 6_000)
        // The newest are held, the oldest dropped, never the other way round.
        #expect(statuses.last == 200)
        #expect(statuses.first == 410)
        #expect(statuses == statuses.sorted { $0 > $1 })
    }

    @Test func withSection8OffThereAreNoIdsAndNoRoutes() throws {
        let fixture = try APIFixture { $0.resumableReplies = false }
        let response = try fixture.chat("no ids please")
        #expect(response.complete)
        #expect(response.header("X-Message-Id") == nil)
        #expect(!response.text.split(separator: "\n").contains { $0.hasPrefix("id:") })
        let events = ReplyEvent.parse(response.body)
        #expect(events.allSatisfy { $0.id == nil })
        let conversation = try #require(events.first?.json?["messageMetadata"]?["conversationId"]?.stringValue)
        let messageId = try #require(events.first?.json?["messageId"]?.stringValue)
        for (method, action) in [("GET", "stream"), ("POST", "stop")] {
            let answer = try fixture.request(method, fixture.replyPath(conversation, messageId, action))
            #expect(answer.status == 404)
            #expect(answer.errorCode == "NOT_FOUND")
        }
        // Generation still outlives a dropped reader.
        let cut = try fixture.chat("dropped early", headers: [("X-ChatStream-Fault", "drop-after=30")])
        #expect(!cut.complete)
        #expect(
            try eventually {
                try fixture.page(fixture.api("conversations")).items.first?["lastMessage"]?["role"] == "assistant"
            })
    }
}
