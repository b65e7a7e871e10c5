// Ending a reply early (PROTOCOLS.md section 8): `POST .../stop` from another connection, and a
// server stopped (or crashed) mid-reply, whose reply is stored as interrupted and can be retried.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Stopped and interrupted replies", .blockingAllowed)
struct ReplyStopAndRestartTests {
    static let longMessage = "please stop me part way through this fairly long reply with many words in it"

    @Test func aStopFromAnotherConnectionKeepsTheTextAndEndsEveryStream() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(40) }
        let reader = fixture.background("POST", fixture.api("chat"), body: APIFixture.chatBody(Self.longMessage))
        #expect(eventually { fixture.server.generatingReplyCount == 1 })
        let run = try #require(fixture.server.handlers.replies.generating.first)
        let conversation = run.metadata.conversationId
        #expect(eventually { run.events(after: 0).count >= 6 })
        // A second reader joins by resuming from the start.
        let follower = fixture.background("GET", fixture.replyPath(conversation, run.messageId))
        // Another caller cannot stop it.
        let foreign = try fixture.request(
            "POST", fixture.replyPath(conversation, run.messageId, "stop"), device: "device-b")
        #expect(foreign.status == 404)
        #expect(foreign.errorCode == "RESOURCE_MESSAGE_NOT_FOUND")
        let stopped = try fixture.request("POST", fixture.replyPath(conversation, run.messageId, "stop"))
        #expect(stopped.status == 200)
        let message = try #require(stopped.json["data"])
        #expect(message["id"]?.stringValue == run.messageId)
        #expect(message["metadata"]?["aborted"] == true)
        let kept = try #require(message["parts"]?[0]?["text"]?.stringValue)
        let whole = ReplyGenerator.reply(to: Self.longMessage, messageId: "x").parts
        guard case .text(let wholeText) = whole[0] else { throw APITestError(description: "not text") }
        #expect(!kept.isEmpty)
        #expect(kept.count < wholeText.count)
        #expect(wholeText.hasPrefix(kept))
        for response in [try reader.wait(), try follower.wait()] {
            #expect(response.complete)
            let events = ReplyEvent.parse(response.body)
            #expect(Array(events.suffix(3).map(\.type)) == ["abort", "finish", "[DONE]"])
            let finish = try #require(events.dropLast().last?.json)
            #expect(finish["finishReason"] == "stop")
            #expect(finish["messageMetadata"]?["aborted"] == true)
            #expect(finish["messageMetadata"]?["finishReason"] == "stop")
            #expect(ReplyEvent.text(events) == kept)
            #expect(events.compactMap(\.id) == Array(1...events.count))
        }
        // History shows the stopped reply; stopping again changes nothing.
        let history = try fixture.page(fixture.api("conversations/\(conversation)/messages")).items
        #expect(history.last?["parts"]?[0]?["text"]?.stringValue == kept)
        #expect(history.last?["metadata"]?["aborted"] == true)
        let again = try fixture.request("POST", fixture.replyPath(conversation, run.messageId, "stop"))
        #expect(again.status == 200)
        #expect(again.json["data"] == message)
        // Resuming after the stop gives the same ending.
        let resumed = try fixture.resume(conversation, run.messageId, after: "2")
        #expect(ReplyEvent.parse(resumed.body).suffix(3).map(\.type) == ["abort", "finish", "[DONE]"])
    }

    @Test func stoppingAFinishedReplyChangesNothing() throws {
        let fixture = try APIFixture()
        let response = try fixture.chat("already done")
        let events = ReplyEvent.parse(response.body)
        let conversation = try #require(events.first?.json?["messageMetadata"]?["conversationId"]?.stringValue)
        let messageId = try #require(response.header("X-Message-Id"))
        let before = try fixture.page(fixture.api("conversations/\(conversation)/messages")).items
        let stopped = try fixture.request("POST", fixture.replyPath(conversation, messageId, "stop"))
        #expect(stopped.status == 200)
        #expect(stopped.json["data"] == before.last)
        #expect(stopped.json["data"]?["metadata"]?["aborted"] == nil)
        #expect(try fixture.page(fixture.api("conversations/\(conversation)/messages")).items == before)
        #expect(ReplyEvent.parse(try fixture.resume(conversation, messageId, after: nil).body) == events)
    }

    @Test func aReplyCutByARestartIsStoredInterruptedAndRetriedOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("state.sqlite").path
        let first = try APIFixture(dataFile: file) { $0.replyDelay = .milliseconds(40) }
        let port = first.server.port
        let reader = first.background("POST", first.api("chat"), body: APIFixture.chatBody(Self.longMessage))
        #expect(eventually { first.server.generatingReplyCount == 1 })
        let run = try #require(first.server.handlers.replies.generating.first)
        #expect(eventually { run.events(after: 0).count >= 6 })
        first.server.stop()
        // The reader's stream is cut, not ended.
        let cut = try reader.wait()
        #expect(!cut.complete)
        let received = ReplyEvent.parse(cut.body)
        #expect(received.last?.type != "[DONE]")

        let second = try APIFixture(dataFile: file) { configuration in
            configuration.port = port
            configuration.replyDelay = .zero
        }
        #expect(second.server.port == port)
        let conversation = run.metadata.conversationId
        let history = try second.page(second.api("conversations/\(conversation)/messages")).items
        let stored = try #require(history.last)
        #expect(stored["id"]?.stringValue == run.messageId)
        #expect(stored["metadata"]?["interrupted"] == true)
        let text = try #require(stored["parts"]?[0]?["text"]?.stringValue)
        #expect(!text.isEmpty)
        #expect(text.hasPrefix(ReplyEvent.text(received)))
        // The resume route ends it with an error, numbered after what the client had.
        let lastId = try #require(received.last?.id)
        let resumed = try second.resume(conversation, run.messageId, after: String(lastId))
        #expect(resumed.status == 200)
        #expect(resumed.complete)
        let ending = ReplyEvent.parse(resumed.body)
        #expect(ending.map(\.type) == ["error", "[DONE]"])
        #expect(ending.allSatisfy { ($0.id ?? 0) > lastId })
        // One retry regenerates it whole.
        let retried = try second.request(
            "POST", second.api("conversations/\(conversation)/retry"),
            body: #"{"messageId":"\#(run.messageId)","stream":true}"#)
        #expect(retried.complete)
        let regenerated = ReplyEvent.text(ReplyEvent.parse(retried.body))
        #expect(regenerated.hasPrefix(text))
        let after = try second.page(second.api("conversations/\(conversation)/messages")).items
        #expect(after.count == 2)
        #expect(after.last?["parts"]?[0]?["text"]?.stringValue == regenerated)
        #expect(after.last?["metadata"]?["interrupted"] == nil)
    }

    @Test func aReplyLeftGeneratingByACrashIsInterruptedWithItsLastCheckpoint() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("state.sqlite").path
        // What a process killed mid-reply leaves: a generating row with a checkpoint.
        do {
            let store = try ConversationStore(path: file)
            try store.write { store in
                let caller = Caller(deviceId: "device-a")
                _ = try store.createConversation(id: "c", title: "t", for: caller, now: 1)
                try store.appendMessage(
                    id: "u", role: "user", parts: [AssembledPart.text("hi").jsonValue], to: "c", now: 1)
                let reply = try store.beginReply(id: "r", in: "c", replyTo: nil, finishReason: "stop", now: 1)
                try store.saveReplyProgress(
                    [AssembledPart.text("half a rep").jsonValue], events: 7, ofMessage: reply.sequence)
            }
        }
        let fixture = try APIFixture(dataFile: file)
        let history = try fixture.page(fixture.api("conversations/c/messages")).items
        #expect(history.count == 2)
        #expect(history.last?["parts"]?[0]?["text"] == "half a rep")
        #expect(history.last?["metadata"]?["interrupted"] == true)
        let resumed = ReplyEvent.parse(try fixture.resume("c", "r", after: "3").body)
        #expect(resumed.map(\.id) == [8, 9])
        #expect(resumed.first?.type == "error")
    }
}
