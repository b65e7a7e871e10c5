// Issue 31, deliverable 3, for replies: a streamed reply (the chat request's stream, a resend
// joining it, a resume) is served after its head by the same poll-based writer as live event
// streams, counted against the same stream caps: slow reply readers hold no worker, a reader that
// stops reading is dropped after the write timeout while its reply is generated and stored, and a
// stream beyond the caps is refused before anything is stored.

import ChatStream
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Reply streams on the writer", .blockingAllowed)
struct ReplyStreamWriterTests {
    /// Sends a streamed chat of `message` on a new connection with a small receive buffer, and
    /// returns the connection unread.
    static func openChat(
        _ fixture: APIFixture, _ message: String, device: String = "device-a", receiveBuffer: Int32 = 4096
    )
        throws -> RawHTTPConnection
    {
        let connection = try RawHTTPConnection(port: fixture.server.port, timeout: 10)
        var size = receiveBuffer
        setsockopt(connection.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let body = Array(APIFixture.chatBody(message).utf8)
        try connection.send(
            "POST \(fixture.api("chat")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: \(device)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n")
        try connection.send(body)
        return connection
    }

    @Test func slowReplyReadersDoNotBlockAList() throws {
        // Eight connection threads; each reply takes over ten seconds to generate.
        let fixture = try APIFixture { configuration in
            configuration.http.maxConnections = 8
            configuration.http.maxConnectionsPerAddress = 8
            configuration.replyDelay = .milliseconds(500)
        }
        let message = (1...20).map { "word\($0)" }.joined(separator: " ")
        var readers: [RawHTTPConnection] = []
        for index in 0..<64 {
            readers.append(try Self.openChat(fixture, message, device: "slow-\(index % 4)"))
            // Taken by the writer after its head: the connection's thread is free for the next.
            #expect(eventually { fixture.server.replyStreamCount == index + 1 }, "reader \(index)")
        }
        #expect(fixture.server.generatingReplyCount == 64)
        usleep(200_000)  // the last connection thread returns after its hand-off
        let answers = Mutex<[Int]>([])
        let slowest = Mutex<Duration>(.zero)
        let port = fixture.server.port
        let list = Array(
            "GET \(fixture.api("conversations")) HTTP/1.1\r\nHost: x\r\nX-Device-Id: other\r\nConnection: close\r\n\r\n"
                .utf8)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let start = ContinuousClock.now
            let status = (try? APIFixture.exchange(port: port, bytes: list).status) ?? 0
            let took = ContinuousClock.now - start
            answers.withLock { $0.append(status) }
            slowest.withLock { $0 = max($0, took) }
        }
        #expect(answers.withLock { $0 } == Array(repeating: 200, count: 8))
        #expect(fixture.server.replyStreamCount == 64)
        print("8 lists beside 64 slow reply readers on 8 workers: the slowest took \(slowest.withLock { $0 })")
        // The readers are live: each gets its reply's events as they are generated.
        for reader in readers.prefix(3) {
            let bytes = LiveEventRouteTests.read(reader.fd, for: .seconds(20)) {
                LiveEventRouteTests.occurrences(of: "word2 ", in: $0) > 0
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(text.contains(#""type":"start""#))
        }
    }

    @Test func aReaderThatStopsReadingIsDroppedWhileTheReplyIsStored() throws {
        let fixture = try APIFixture { configuration in
            configuration.http.sendTimeout = .seconds(1)
            configuration.http.sendBufferBytes = 4096
        }
        // About 200 KB of reply: far more than the socket buffers hold.
        let message = (0..<40).map { String(repeating: Character(UnicodeScalar(97 + $0 % 26)!), count: 5_000) }
            .joined(separator: " ")
        let stalled = try Self.openChat(fixture, message)
        #expect(eventually { fixture.server.replyStreamCount == 1 })
        let held = ContinuousClock.now
        // Generation does not wait for the reader: the reply is stored whole.
        #expect(eventually { fixture.server.generatingReplyCount == 0 })
        let conversation = try #require(try fixture.page(fixture.api("conversations")).items.first?["id"]?.stringValue)
        let history = try fixture.page(fixture.api("conversations/\(conversation)/messages")).items
        #expect(history.count == 2)
        let expected = ReplyGenerator.reply(to: message, messageId: "x").parts.first?.jsonValue["text"]?.stringValue
        #expect(history.last?["parts"]?[0]?["text"]?.stringValue == expected)
        #expect(history.last?["metadata"]?["interrupted"] == nil)
        #expect(history.last?["metadata"]?["aborted"] == nil)
        // The reader that took nothing is dropped after the write timeout, not before.
        #expect(eventually(within: 20) { fixture.server.replyStreamCount == 0 })
        let dropped = ContinuousClock.now - held
        #expect(dropped >= .milliseconds(900))
        print("a reply reader that stopped reading was dropped after \(dropped)")
        // What it had was the start of the reply, cut: it would resume from its last event.
        let bytes = LiveEventRouteTests.read(stalled.fd, for: .seconds(10))
        #expect(bytes.count < 200_000)
        #expect(LiveEventRouteTests.occurrences(of: "[DONE]", in: bytes) == 0)
        #expect(try stalled.isClosedByPeer())
    }

    @Test func aJoinAndAResumeAreWriterStreamsWithTheSameEvents() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(40) }
        let clientMessageId = UUID().uuidString.lowercased()
        let body = APIFixture.chatBody("join and resume me while I am generated", clientMessageId: clientMessageId)
        let first = fixture.background("POST", fixture.api("chat"), body: body)
        #expect(eventually { fixture.server.generatingReplyCount == 1 && fixture.server.replyStreamCount == 1 })
        let joined = fixture.background("POST", fixture.api("chat"), body: body)
        #expect(eventually { fixture.server.replyStreamCount == 2 })
        let original = try first.wait()
        let messageId = try #require(original.header("X-Message-Id"))
        let conversation = try #require(
            ReplyEvent.parse(original.body).first?.json?["messageMetadata"]?["conversationId"]?.stringValue)
        #expect(original.header("Connection") == "close")
        let rest = try fixture.resume(conversation, messageId, after: "3")
        let events = ReplyEvent.parse(original.body)
        #expect(events.last?.type == "[DONE]")
        #expect(ReplyEvent.parse(try joined.wait().body) == events)
        #expect(ReplyEvent.parse(rest.body) == Array(events.dropFirst(3)))
        #expect(eventually { fixture.server.replyStreamCount == 0 })
    }

    @Test func aReplyStreamBeyondTheCapsIsRefusedWithNothingStored() throws {
        let fixture = try APIFixture { configuration in
            configuration.http.maxStreamsPerAddress = 2
            configuration.replyDelay = .milliseconds(300)
        }
        let held = try (0..<2).map { _ in try Self.openChat(fixture, "hold one of two places a while") }
        #expect(eventually { fixture.server.replyStreamCount == 2 })
        let before = fixture.server.conversationCount
        let refused = try fixture.chat("one stream too many")
        #expect(refused.status == 503)
        #expect(refused.errorCode == "SERVICE_STREAMS_BUSY")
        #expect(fixture.server.conversationCount == before)
        // Not streamed, the same chat is answered: only streams are capped.
        #expect(try fixture.chat("answered whole", stream: false).status == 200)
        // Live subscriptions count against the same caps.
        let subscribe = try fixture.request("GET", fixture.api("events"))
        #expect(subscribe.status == 503)
        withExtendedLifetime(held) {}
    }
}
