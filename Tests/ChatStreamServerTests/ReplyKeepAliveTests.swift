// A streamed reply is written after its head by the LiveStreamWriter, which used to close the
// connection at the reply's end (`Connection: close`), so every streamed chat cost a new
// connection. Now the writer gives the connection back to the server once the reply's last chunk
// is written, and the client's next request on it is served (keep-alive); a client that asked to
// close, or that had sent more before the reply began, still gets `Connection: close`. A request
// sent while the reply streams must wait in the socket, never be read and dropped by the writer.
// A short reply known whole before its head (no pacing) is written with the head by the
// connection's thread, as any other answer, and the connection goes on at once.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Streamed replies keep their connection", .blockingAllowed)
struct ReplyKeepAliveTests {
    static func chatRequest(_ fixture: APIFixture, _ message: String, close: Bool = false) -> [UInt8] {
        let body = APIFixture.chatBody(message)
        return Array(
            ("POST \(fixture.api("chat")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: device-a\r\n"
                + (close ? "Connection: close\r\n" : "")
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }

    static func listRequest(_ fixture: APIFixture) -> [UInt8] {
        Array("GET \(fixture.api("conversations")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: device-a\r\n\r\n".utf8)
    }

    @Test func aStreamedReplyGivesItsConnectionBackForTheNextRequests() throws {
        let fixture = try APIFixture()
        let connection = try RawHTTPConnection(port: fixture.server.port, timeout: 10)
        for round in 0..<3 {
            try connection.send(Self.chatRequest(fixture, "round \(round)"))
            let reply = try connection.readResponse()
            #expect(reply.status == 200)
            #expect(reply.header("Connection") == nil, "round \(round): \(reply.headers)")
            #expect(reply.text.contains(#""type":"finish""#))
            #expect(reply.text.hasSuffix("data: [DONE]\n\n"))
            try connection.send(Self.listRequest(fixture))
            let list = try connection.readResponse()
            #expect(list.status == 200)
            #expect(list.text.contains("round \(round)"))
        }
        #expect(eventually(within: 5) { fixture.server.replyStreamCount == 0 })
    }

    @Test func aClientThatAsksToCloseHasItsConnectionClosed() throws {
        let fixture = try APIFixture()
        let connection = try RawHTTPConnection(port: fixture.server.port, timeout: 10)
        try connection.send(Self.chatRequest(fixture, "just once", close: true))
        let reply = try connection.readResponse()
        #expect(reply.status == 200)
        #expect(reply.header("Connection") == "close")
        #expect(reply.text.hasSuffix("data: [DONE]\n\n"))
        #expect(try connection.isClosedByPeer())
    }

    @Test func aRequestSentWhileTheReplyStreamsIsAnsweredAfterIt() throws {
        // A paced reply: the list request is sent once the reply's head came, while it streams.
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(20) }
        let connection = try RawHTTPConnection(port: fixture.server.port, timeout: 10)
        try connection.send(Self.chatRequest(fixture, "one two three four five six seven eight"))
        let head = try connection.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Connection") == nil)
        try connection.send(Self.listRequest(fixture))
        // The rest of the reply's body, then the list's answer on the same connection.
        var body = ""
        while !body.contains("data: [DONE]") {
            body += try connection.readChunk()
        }
        #expect(try connection.readChunk().isEmpty, "the last chunk")
        let list = try connection.readResponse()
        #expect(list.status == 200)
        #expect(list.text.contains("one two three"))
    }

    @Test func requestsSentTogetherWithAPacedChatCloseTheConnectionAfterTheReply() throws {
        let fixture = try APIFixture { $0.replyDelay = .milliseconds(1) }
        let connection = try RawHTTPConnection(port: fixture.server.port, timeout: 10)
        // Both requests in one write: the server reads the list request with the chat, before the
        // reply is handed off, so it cannot give the connection back; it says so and closes it.
        try connection.send(Self.chatRequest(fixture, "pipelined") + Self.listRequest(fixture))
        let reply = try connection.readResponse()
        #expect(reply.status == 200)
        #expect(reply.text.hasSuffix("data: [DONE]\n\n"))
        if reply.header("Connection") == "close" {
            #expect(try connection.isClosedByPeer())
        } else {
            // The list request came in a later read: it was answered after the reply.
            #expect(try connection.readResponse().status == 200)
        }
    }

    @Test func aShortReplyIsWrittenWithItsHeadAndRequestsSentWithItAreAnswered() throws {
        // No pacing: the chat stores its reply whole and writes it with its head on the
        // connection's own thread, which then answers the list request read with the chat (a
        // handed-off reply could not: see the test above).
        let fixture = try APIFixture()
        let connection = try RawHTTPConnection(port: fixture.server.port, timeout: 10)
        for round in 0..<2 {
            try connection.send(Self.chatRequest(fixture, "together \(round)") + Self.listRequest(fixture))
            let reply = try connection.readResponse(head: true)
            #expect(reply.status == 200)
            #expect(reply.header("Connection") == nil, "round \(round): \(reply.headers)")
            let body = try connection.readChunk()
            #expect(body.hasPrefix("id: 1\ndata: {\"type\":\"start\""))
            #expect(body.hasSuffix("data: [DONE]\n\n"))
            #expect(try connection.readChunk().isEmpty, "one chunk, then the last")
            let list = try connection.readResponse()
            #expect(list.status == 200)
            #expect(list.text.contains("together \(round)"))
        }
        #expect(fixture.server.replyStreamCount == 0)
    }
}
