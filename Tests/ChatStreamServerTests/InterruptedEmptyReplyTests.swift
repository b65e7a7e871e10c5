// A reply cut by a restart before its first part (found by the client's fault-proxy end-to-end
// run): it used to be stored hidden, so history showed the user's message unanswered and nothing
// could be retried. It shows in history, empty and interrupted, and one retry regenerates it.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("A reply interrupted before its first part", .blockingAllowed)
struct InterruptedEmptyReplyTests {
    @Test func showsInHistoryEmptyAndInterruptedAndIsRetriedOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("state.sqlite").path
        // What a stop right after the chat was stored leaves: a generating reply, nothing saved yet.
        do {
            let store = try ConversationStore(path: file)
            try store.write { store in
                let caller = Caller(deviceId: "device-a")
                _ = try store.createConversation(id: "c", title: "t", for: caller, now: 1)
                let user = try store.appendMessage(
                    id: "u", role: "user", parts: [AssembledPart.text("hi").jsonValue], to: "c", now: 1)
                try store.beginReply(id: "r", in: "c", replyTo: user.sequence, finishReason: "stop", now: 1)
            }
        }
        let fixture = try APIFixture(dataFile: file) { $0.replyDelay = .zero }
        let history = try fixture.page(fixture.api("conversations/c/messages")).items
        #expect(history.map { $0["id"]?.stringValue } == ["u", "r"])
        #expect(history.last?["parts"] == [])
        #expect(history.last?["metadata"]?["interrupted"] == true)
        let retried = try fixture.request(
            "POST", fixture.api("conversations/c/retry"), body: #"{"messageId":"r","stream":true}"#)
        #expect(retried.complete)
        let regenerated = ReplyEvent.text(ReplyEvent.parse(retried.body))
        #expect(regenerated.contains("hi"))
        let after = try fixture.page(fixture.api("conversations/c/messages")).items
        #expect(after.count == 2)
        #expect(after.last?["parts"]?[0]?["text"]?.stringValue == regenerated)
        #expect(after.last?["metadata"]?["interrupted"] == nil)
    }
}
