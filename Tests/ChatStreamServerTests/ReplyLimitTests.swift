// Resumable replies at their edges (PROTOCOLS.md section 8): the caps on replies generating at
// once (in count and in planned bytes), a non-streamed resend of an in-flight message, and a retry of a reply still generating.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Resumable replies at their limits", .blockingAllowed)
struct ReplyLimitTests {
    @Test func beyondTheGeneratingCapAChatAnswers503AndStoresNothing() throws {
        let fixture = try APIFixture { configuration in
            configuration.replyDelay = .milliseconds(40)
            configuration.replies.maxGenerating = 1
        }
        let first = fixture.background("POST", fixture.api("chat"), body: APIFixture.chatBody("the only one for now"))
        #expect(eventually { fixture.server.generatingReplyCount == 1 })
        let refused = try fixture.chat("one too many")
        #expect(refused.status == 503)
        #expect(refused.errorCode == "SERVER_BUSY")
        #expect(refused.header("Retry-After") == "1")
        #expect(fixture.server.conversationCount == 1)
        #expect(try first.wait().complete)
        #expect(try fixture.chat("room again").status == 200)
    }

    @Test func pastTheGeneratingByteBudgetAChatAnswers503AndStoresNothingUntilTheFirstEnds() throws {
        let budget = 5000
        let fixture = try APIFixture { configuration in
            configuration.replyDelay = .milliseconds(20)
            configuration.replies.generatingBytes = budget
        }
        let long = (1...40).map { "word\($0)" }.joined(separator: " ")
        let first = fixture.background("POST", fixture.api("chat"), body: APIFixture.chatBody(long))
        #expect(eventually { fixture.server.generatingReplyCount == 1 })
        let run = try #require(fixture.server.handlers.replies.generating.first)
        // One such reply fits the budget, two do not.
        try #require(run.plannedBytes <= budget && 2 * run.plannedBytes > budget)
        let refused = try fixture.chat(long)
        #expect(refused.status == 503)
        #expect(refused.errorCode == "SERVER_BUSY")
        #expect(refused.header("Retry-After") == "1")
        #expect(fixture.server.conversationCount == 1)
        #expect(try first.wait().complete)
        // The reservation was the reply's real size, and its end released it.
        #expect(eventually { run.endedAt != nil })
        #expect(run.heldBytes == run.plannedBytes)
        #expect(try fixture.chat(long).status == 200)
        #expect(fixture.server.conversationCount == 2)
    }

    @Test func aReplyCountedBeforeItsWriteHasItsRealSizeWhateverMetadataTheWriteSettles() {
        let plan = ReplyGenerator.reply(to: "count me, then count me again", messageId: "reply")
        let guess = ReplyMetadata(
            conversationId: "new-conversation", messageId: "reply", userMessageId: "user-message", userId: nil)
        let counted = CountedReply(plan, metadata: guess, numbered: true)
        let settled = [
            guess,
            ReplyMetadata(conversationId: "an-older-one", messageId: "reply", userMessageId: nil, userId: nil),
            ReplyMetadata(
                conversationId: "new-conversation", messageId: "reply", userMessageId: "user-message",
                userId: "someone \"quoted\" é"),
        ]
        let kept = CountedReply(plan, metadata: guess, numbered: true, keepingUpTo: 64 << 10)
        for metadata in settled {
            let planned = ReplyRun.plannedBytes(of: plan, metadata: metadata, numbered: true)
            #expect(counted.bytes(for: metadata) == planned, "\(metadata)")
            #expect(kept.bytes(for: metadata) == planned, "\(metadata)")
        }
        // The chunks kept are the reply's own, for the metadata counted with and no other.
        #expect(kept.chunks(for: guess) == ReplyChunks.chunks(for: plan, metadata: guess).map(\.jsonBytes))
        #expect(kept.chunks(for: settled[1]) == nil)
        #expect(counted.chunks(for: guess) == nil)
        // A reply past the bytes to keep keeps none, and counts the same.
        let over = CountedReply(plan, metadata: guess, numbered: true, keepingUpTo: counted.bytes - 1)
        #expect(over.chunks(for: guess) == nil)
        #expect(over.bytes == counted.bytes)
        let exactly = CountedReply(plan, metadata: guess, numbered: true, keepingUpTo: counted.bytes)
        #expect(exactly.chunks(for: guess) != nil)
    }

    @Test func aNonStreamedResendOfAnInFlightMessageWaitsForTheWholeReply() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(20) }
        let clientMessageId = UUID().uuidString.lowercased()
        let message = "wait for me to be generated whole"
        let streamed = fixture.background(
            "POST", fixture.api("chat"), body: APIFixture.chatBody(message, clientMessageId: clientMessageId))
        #expect(eventually { fixture.server.generatingReplyCount == 1 })
        let plain = try fixture.request(
            "POST", fixture.api("chat"),
            body: #"{"message":"\#(message)","clientMessageId":"\#(clientMessageId)","stream":false}"#)
        #expect(plain.status == 200)
        #expect(plain.header("Idempotent-Replayed") == "true")
        let original = ReplyEvent.parse(try streamed.wait().body)
        #expect(plain.json["data"]?["parts"]?[0]?["text"]?.stringValue == ReplyEvent.text(original))
        #expect(plain.json["data"]?["id"]?.stringValue == original.first?.json?["messageId"]?.stringValue)
    }

    @Test func aRetryOfAReplyStillGeneratingStopsItFirst() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(40) }
        let reader = fixture.background(
            "POST", fixture.api("chat"), body: APIFixture.chatBody("retry me mid-way please"))
        #expect(eventually { fixture.server.generatingReplyCount == 1 })
        let run = try #require(fixture.server.handlers.replies.generating.first)
        #expect(eventually { run.events(after: 0).count >= 4 })
        let retried = try fixture.request(
            "POST", fixture.api("conversations/\(run.metadata.conversationId)/retry"),
            body: #"{"messageId":"\#(run.messageId)","stream":false}"#)
        #expect(retried.status == 200)
        let old = ReplyEvent.parse(try reader.wait().body)
        #expect(old.suffix(3).map(\.type) == ["abort", "finish", "[DONE]"])
        let history = try fixture.page(fixture.api("conversations/\(run.metadata.conversationId)/messages")).items
        #expect(history.count == 2)
        #expect(history.last?["id"] == retried.json["data"]?["id"])
        #expect(history.last?["id"]?.stringValue != run.messageId)
        #expect(fixture.server.generatingReplyCount == 0)
    }
}
