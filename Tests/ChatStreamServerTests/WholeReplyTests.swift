// A streamed reply with no pacing to keep (`replyDelay` zero) is known whole before its chat's
// write: it is stored finished in that one write, and its run only has its events encoded (a short
// reply's on the request's thread, a long one's on a reply thread). Its stream, resumes, history
// and live events are those of a generated reply; only the writes and threads differ.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Streamed replies stored whole", .blockingAllowed)
struct WholeReplyTests {
    /// A chat's reply with `delay` between events: its events' types and text deltas, its resume
    /// after event 2 (the same), the reply's history parts, the writes the chat committed, and the
    /// reply threads the server started.
    static func chat(delay: Duration) throws -> (
        events: [String], resumed: [String], parts: [JSONTree], writes: Int, numbered: Bool, threads: Int
    ) {
        let fixture = try APIFixture { $0.replyDelay = delay }
        let store = fixture.server.handlers.store
        let before = store.committedWriteCount
        let response = try fixture.chat("store me whole when you can")
        #expect(response.status == 200 && response.complete)
        let writes = store.committedWriteCount - before
        let events = ReplyEvent.parse(response.body)
        let start = try #require(events.first?.json)
        let conversation = try #require(start["messageMetadata"]?["conversationId"]?.stringValue)
        let messageId = try #require(start["messageId"]?.stringValue)
        // Types and deltas: the IDs in `start` and `finish` are new in every run.
        func shape(_ events: [ReplyEvent]) -> [String] {
            events.map { "\($0.type ?? "?") \($0.json?["delta"]?.stringValue ?? "")" }
        }
        let resumed = ReplyEvent.parse(try fixture.resume(conversation, messageId, after: "2").body)
        #expect(resumed.first?.id == 3)
        let history = try fixture.page(fixture.api("conversations/\(conversation)/messages"))
        let reply = try #require(history.items.first { $0["id"]?.stringValue == messageId })
        return (
            shape(events), shape(resumed), reply["parts"]?.arrayValue ?? [], writes,
            events.map(\.id) == Array(1...events.count).map(Optional.some),
            fixture.server.handlers.replyThreads.counts.started
        )
    }

    @Test func withoutPacingAChatIsOneWriteAndItsReplyIsTheGeneratedOne() throws {
        let whole = try Self.chat(delay: .zero)
        let generated = try Self.chat(delay: .milliseconds(1))
        #expect(whole.writes == 1, "the user message and the finished reply in one write")
        #expect(generated.writes == 2, "the generating row, then its end")
        #expect(whole.events.count > 6)
        #expect(whole.events == generated.events)
        #expect(whole.resumed == Array(whole.events.dropFirst(2)))
        #expect(whole.resumed == generated.resumed)
        #expect(!whole.parts.isEmpty && whole.parts == generated.parts)
        #expect(whole.numbered && generated.numbered)
        #expect(whole.threads == 0, "a short reply stored whole is encoded on the request's thread")
        #expect(generated.threads == 1)
    }

    @Test func aLongReplyStoredWholeIsEncodedOnAReplyThreadAndStreamsWhole() throws {
        // Past 64 KiB of events a reply stored whole is encoded on a reply thread as it streams.
        let fixture = try APIFixture()
        let store = fixture.server.handlers.store
        let before = store.committedWriteCount
        let message = (0..<12_000).map { "w\($0)" }.joined(separator: " ")
        let response = try fixture.chat(message)
        #expect(response.status == 200 && response.complete)
        #expect(store.committedWriteCount - before == 1)
        #expect(fixture.server.handlers.replyThreads.counts.started == 1)
        let events = ReplyEvent.parse(response.body)
        #expect(events.count > 1_000)
        #expect(events.map(\.id) == Array(1...events.count).map(Optional.some))
        let text = events.compactMap {
            $0.json?["type"]?.stringValue == "text-delta" ? $0.json?["delta"]?.stringValue : nil
        }
        .joined()
        #expect(text.hasPrefix("You said: \(message)."))
        let conversation = try #require(events.first?.json?["messageMetadata"]?["conversationId"]?.stringValue)
        let history = try fixture.page(fixture.api("conversations/\(conversation)/messages?limit=10"))
        let reply = try #require(history.items.first { $0["role"]?.stringValue == "assistant" })
        #expect(reply["parts"]?[0]?["text"]?.stringValue == text)
    }

    @Test func aReplyStoredWholeIsTypedAroundItsAnnouncement() throws {
        let fixture = try APIFixture()
        let (connection, _) = try LiveSubscribedTests.subscribe(fixture, until: LiveSubscribedTests.hasSubscribed)
        let response = try fixture.chat("type around me")
        let messageId = try #require(response.header("X-Message-Id"))
        let bytes = LiveEventRouteTests.read(connection.fd, for: .seconds(10)) {
            LiveEventRouteTests.occurrences(of: #""active":false"#, in: $0) >= 1
        }
        let events = LiveSubscribedTests.events(bytes).filter { $0.type == "typing" || $0.type == "message.created" }
        let order = events.map { event -> String in
            if event.type == "typing" { return event.data?.contains(#""active":true"#) == true ? "on" : "off" }
            return event.data?.contains(messageId) == true ? "reply" : "user"
        }
        #expect(order == ["user", "on", "reply", "off"])
    }
}
