// HTTPServer over raw sockets: keep-alive, pipelining, chunked bodies, limits, HTTP/1.0.

import Dispatch
import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamServer

/// Echoes method, target, body and a few headers, so tests can see what the server parsed.
private let echo: HTTPServer.Handler = { request, response in
    var text = "\(request.method) \(request.path) body=\(String(decoding: request.body, as: UTF8.self))"
    text += " peer=\(request.remoteAddress)"
    try response.respond(status: 200, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
}

@Suite("HTTPServer (raw sockets)", .blockingAllowed)
struct HTTPServerTests {
    @Test func keepAliveServesTwoRequestsOnOneConnection() async throws {
        try await HTTPTestServer.with(handler: echo) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = try connection.readResponse()
            try connection.send("POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            let second = try connection.readResponse()
            #expect(first.status == 200)
            #expect(first.text.hasPrefix("GET /one body="))
            #expect(second.text.hasPrefix("POST /two body=abc"))
            #expect(first.header("Connection") == nil)
            // Same connection: same peer port.
            #expect(first.text.split(separator: " ").last == second.text.split(separator: " ").last)
            #expect(first.header("Date")?.hasSuffix(" GMT") == true)
            #expect(first.header("Server") == "ChatStream")
            #expect(first.header("Content-Length") == String(first.body.count))
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await HTTPTestServer.with(handler: echo) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send(
                "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                    + "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
                    + "GET /d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let texts = try (0..<4).map { _ in try connection.readResponse().text }
            #expect(texts[0].hasPrefix("GET /a body= "))
            #expect(texts[1].hasPrefix("POST /b body=hello "))
            #expect(texts[2].hasPrefix("POST /c body=hi "))
            #expect(texts[3].hasPrefix("GET /d body= "))
            #expect(try connection.isClosedByPeer())
        }
    }

    @Test func chunkedRequestBodyIsDecodedEvenWhenSentByteByByte() async throws {
        try await HTTPTestServer.with(handler: echo) { server in
            let connection = try RawHTTPConnection(port: server.port)
            let request =
                "PUT /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n"
            for byte in request.utf8 { try connection.send([byte]) }
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text.hasPrefix("PUT /up body=hello 0123456789 "))
        }
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET /x HTTP/1.1 extra\r\nHost: x\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
        "GET /x HTTP/1.1\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 12x\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
        "GET /x HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
        "GET x HTTP/1.1\r\nHost: x\r\n\r\n",
        // RFC 9112: one Host, no Transfer-Encoding on HTTP/1.0, chunk sizes of hex digits only.
        "GET /x HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: x\r\nhost: x\r\n\r\n",
        "POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 junk\r\nhello\r\n0\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
    ])
    func malformedRequestIsAnswered400AndClosed(request: String) async throws {
        try await HTTPTestServer.with(handler: echo) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send(request)
            let response = try connection.readResponse()
            #expect(response.status == 400)
            #expect(response.header("Connection") == "close")
            #expect(try connection.isClosedByPeer())
        }
    }

    @Test func chunkExtensionsMayFollowWhitespace() async throws {
        try await HTTPTestServer.with(handler: echo) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send(
                "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 ;a=b\r\nhello\r\n0\r\n\r\n")
            #expect(try connection.readResponse().text.hasPrefix("POST /x body=hello "))
        }
    }

    /// A TLS ClientHello (and other binary) gets 400 as soon as it arrives, not after a read timeout.
    @Test(
        arguments: [
            [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03],
            [0x00, 0x00, 0x00, 0x00],
            Array("GETTING-A-VERY-LONG-METHOD-NAME-WITHOUT-END".utf8),
        ] as [[UInt8]])
    func bytesThatAreNotHTTPAreAnswered400AtOnce(bytes: [UInt8]) async throws {
        var configuration = HTTPTestServer.configuration
        configuration.requestReadTimeout = .seconds(30)
        try await HTTPTestServer.with(configuration: configuration, handler: echo) { server in
            let connection = try RawHTTPConnection(port: server.port)
            let start = ContinuousClock.now
            try connection.send(bytes)
            let response = try connection.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("not an HTTP request"))
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    @Test func oversizedHeadersAre431AndLongURIIs414() async throws {
        var configuration = HTTPTestServer.configuration
        configuration.maxHeaderBytes = 2048
        configuration.maxURILength = 1024
        configuration.maxBodyBytes = 10
        try await HTTPTestServer.with(configuration: configuration, handler: echo) { server in
            let big = try RawHTTPConnection(port: server.port)
            try big.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 4000))\r\n\r\n")
            #expect(try big.readResponse().status == 431)

            let manyArriving = try RawHTTPConnection(port: server.port)
            try manyArriving.send("GET / HTTP/1.1\r\nHost: x\r\n")
            for _ in 0..<100 { try? manyArriving.send("X-Some-Header: 0123456789012345678901234567890\r\n") }
            #expect(try manyArriving.readResponse().status == 431)

            let longURI = try RawHTTPConnection(port: server.port)
            try longURI.send("GET /\(String(repeating: "p", count: 1500)) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try longURI.readResponse().status == 414)

            let bigBody = try RawHTTPConnection(port: server.port)
            try bigBody.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n")
            #expect(try bigBody.readResponse().status == 413)

            let bigChunked = try RawHTTPConnection(port: server.port)
            try bigChunked.send(
                "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n")
            #expect(try bigChunked.readResponse().status == 413)
        }
    }

    @Test func http10ClosesAfterTheResponseUnlessKeepAlive() async throws {
        try await HTTPTestServer.with(handler: echo) { server in
            let closing = try RawHTTPConnection(port: server.port)
            try closing.send("GET /old HTTP/1.0\r\n\r\n")
            let response = try closing.readResponse()
            #expect(response.text.hasPrefix("GET /old"))
            #expect(response.header("Connection") == "close")
            #expect(try closing.isClosedByPeer())

            let kept = try RawHTTPConnection(port: server.port)
            try kept.send("GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try kept.readResponse().header("Connection") == "keep-alive")
            try kept.send("GET /2 HTTP/1.0\r\n\r\n")
            #expect(try kept.readResponse().text.hasPrefix("GET /2"))
            #expect(try kept.isClosedByPeer())
        }
    }

    @Test func http10StreamIsSentUnframedAndClosed() async throws {
        try await HTTPTestServer.with(handler: { _, response in
            try response.startStream(status: 200)
            try response.write("one,")
            try response.write("two")
            try response.finishStream()
        }) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET / HTTP/1.0\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.text == "one,two")
        }
    }

    @Test func aWholeStreamReadsAsOneWrittenPieceByPieceAndKeepsTheConnection() async throws {
        let body = "data: one\n\ndata: two\n\n"
        try await HTTPTestServer.with(handler: { request, response in
            let headers = [("Content-Type", "text/event-stream"), ("X-Path", request.path)]
            if request.path == "/whole" {
                // In two pieces: they go out as one chunk.
                try response.streamWhole(
                    status: 200, headers: headers, body: [Array("data: one\n\n".utf8), Array("data: two\n\n".utf8)])
            } else {
                try response.startStream(status: 200, headers: headers)
                try response.write("data: one\n\n")
                try response.write("data: two\n\n")
                try response.finishStream()
            }
        }) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET /whole HTTP/1.1\r\nHost: x\r\n\r\nGET /pieces HTTP/1.1\r\nHost: x\r\n\r\n")
            let whole = try connection.readResponse()
            let pieces = try connection.readResponse()
            #expect(whole.header("X-Path") == "/whole")
            #expect(pieces.header("X-Path") == "/pieces")
            for response in [whole, pieces] {
                #expect(response.status == 200)
                #expect(response.header("Transfer-Encoding") == "chunked")
                #expect(response.header("Connection") == nil)
                #expect(response.text == body)
            }
            // The connection is still served after a whole stream; a HEAD gets its head only; the
            // body is one chunk, then the last.
            try connection.send("HEAD /whole HTTP/1.1\r\nHost: x\r\n\r\nGET /whole HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse(head: true).header("X-Path") == "/whole")
            #expect(try connection.readResponse(head: true).header("X-Path") == "/whole")
            #expect(try connection.readChunk() == body)
            #expect(try connection.readChunk() == "")

            let old = try RawHTTPConnection(port: server.port)
            try old.send("GET /whole HTTP/1.0\r\n\r\n")
            let unframed = try old.readResponse()
            #expect(unframed.header("Transfer-Encoding") == nil)
            #expect(unframed.text == body)
            #expect(try old.isClosedByPeer())
        }
    }

    @Test func expectContinueIsAnsweredBeforeTheBody() async throws {
        try await HTTPTestServer.with(handler: echo) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            let interim = try connection.readResponse()
            #expect(interim.status == 100)
            try connection.send("body")
            let response = try connection.readResponse()
            #expect(response.text.hasPrefix("POST /e body=body "))
        }
    }

    @Test func queryIsSplitDecodedAndKeepsRepeatedNames() async throws {
        let seen = Shared<[String]>([])
        try await HTTPTestServer.with(handler: { request, response in
            seen.value =
                request.queryItems.map { "\($0.name)=\($0.value)" }
                + ["tags=\(request.queryValues("tag"))", "path=\(request.path)", "segments=\(request.pathSegments)"]
            try response.respond(status: 204)
        }) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET /a%20b/c?tag=x&q=hello+world%21&tag=%C3%A9&empty&=v HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse().status == 204)
            #expect(
                seen.value == [
                    "tag=x", "q=hello world!", "tag=é", "empty=", "=v", "tags=[\"x\", \"é\"]", "path=/a%20b/c",
                    "segments=[\"a b\", \"c\"]",
                ])
        }
    }

    @Test func headGetsNoBodyAndThrowingHandlerGets500() async throws {
        try await HTTPTestServer.with(handler: { request, response in
            if request.path == "/fail" { throw RawHTTPError(description: "boom") }
            try response.respond(status: 200, body: Array("12345".utf8))
        }) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\nGET /fail HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try connection.readResponse(head: true)
            #expect(head.header("Content-Length") == "5")
            let failed = try connection.readResponse()  // would read "12345" as a status line if HEAD had a body
            #expect(failed.status == 500)
        }
    }

    @Test func idleKeepAliveConnectionIsClosedAfterTheTimeout() async throws {
        var configuration = HTTPTestServer.configuration
        configuration.idleTimeout = .milliseconds(300)
        try await HTTPTestServer.with(configuration: configuration, handler: echo) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try connection.readResponse()
            let start = ContinuousClock.now
            #expect(try connection.isClosedByPeer())  // blocks until the server closes (recv timeout 10 s)
            #expect(ContinuousClock.now - start < .seconds(8))
            #expect(await eventually { server.openConnections == 0 })
        }
    }

    @Test func connectionsBeyondTheCapGet503() async throws {
        var configuration = HTTPTestServer.configuration
        configuration.maxConnections = 1
        try await HTTPTestServer.with(configuration: configuration, handler: echo) { server in
            let first = try RawHTTPConnection(port: server.port)
            try first.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try first.readResponse()  // the first connection is now registered and idle
            let second = try RawHTTPConnection(port: server.port)
            try second.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try second.readResponse().status == 503)
        }
    }

    @Test func aHandedOffConnectionLeavesTheRegistryBeforeItsNewOwnerHasIt() async throws {
        // The new owner may close the socket at once; were the server still holding its
        // descriptor, `stop()` could shut down whatever connection the process gave that number
        // to next (another server's, in a test process).
        let server = Mutex<HTTPServer?>(nil)
        let held = Mutex<Int?>(nil)
        let handedOff = HTTPServer(configuration: HTTPTestServer.configuration) { _, writer in
            try writer.startStream(status: 200, headers: [("Content-Type", "text/plain")])
            guard let (socket, _) = writer.handOff() else { return }
            held.withLock { $0 = server.withLock { $0 }?.openConnections }
            socket.close()
        }
        server.withLock { $0 = handedOff }
        try handedOff.start()
        defer { handedOff.stop() }
        let connection = try RawHTTPConnection(port: handedOff.port)
        try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try? connection.readResponse()  // the head, then the new owner's close
        #expect(await eventually { held.withLock { $0 } != nil })
        #expect(held.withLock { $0 } == 0)
    }

    @Test func stopWakesBlockedConnectionsAndFinishes() async throws {
        let server = HTTPServer(configuration: HTTPTestServer.configuration, handler: echo)
        try server.start()
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.readResponse()
        let start = ContinuousClock.now
        server.stop()
        // Well under the 5 s grace period: stop wakes idle connections rather than waiting them out.
        #expect(ContinuousClock.now - start < .seconds(4))
        #expect(server.openConnections == 0)
        #expect(try connection.isClosedByPeer())
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
    }

    @Test func listensOnIPv6LoopbackWhenAsked() async throws {
        let server = HTTPServer(host: "::1", configuration: HTTPTestServer.configuration, handler: echo)
        do {
            try server.start()
        } catch {
            return  // no IPv6 on this machine: nothing to test
        }
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port, host: "::1")
        try connection.send("GET /v6 HTTP/1.1\r\nHost: [::1]\r\n\r\n")
        #expect(try connection.readResponse().text.hasPrefix("GET /v6 body= peer=[::1]:"))
    }

    /// Each body byte is appended once: 4 MiB in 64-byte pieces (65,536 feeds) takes about as long as
    /// in one piece. Copying the body so far on every feed, as the decoder once did, moves 128 GiB.
    @Test func bodyReadingIsLinearInTheNumberOfPieces() throws {
        let size = 4 << 20
        let head = Array("POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: \(size)\r\n\r\n".utf8)
        let body = [UInt8](repeating: 0x61, count: size)
        var configuration = HTTPServerConfiguration()
        configuration.maxBodyBytes = size
        func decode(pieceSize: Int) throws -> (Duration, Int) {
            var decoder = HTTPRequestDecoder(configuration: configuration)
            var count = 0
            let start = ContinuousClock.now
            decoder.feed(head)
            for offset in stride(from: 0, to: size, by: pieceSize) {
                decoder.feed(body[offset..<min(offset + pieceSize, size)])
                while let event = try decoder.next() {
                    if case .request(let request) = event { count = request.body.count }
                }
            }
            return (ContinuousClock.now - start, count)
        }
        let (whole, wholeCount) = try decode(pieceSize: size)
        let (pieces, piecesCount) = try decode(pieceSize: 64)
        #expect(wholeCount == size && piecesCount == size)
        // Generous: per-feed overhead in a debug build, on a shared machine; quadratic copying is ~1000x.
        #expect(pieces < whole * 40 + .seconds(2), "one piece \(whole), 64-byte pieces \(pieces)")
    }

    @Test func decoderGivesTheSameRequestsHoweverTheBytesAreCut() throws {
        let input = Array(
            ("GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz"
                + "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
                + "GET /d HTTP/1.0\n\n").utf8)
        for chunking in Chunkings.all(of: input) {
            var decoder = HTTPRequestDecoder(configuration: HTTPServerConfiguration())
            var seen: [String] = []
            for piece in chunking.pieces {
                decoder.feed(piece)
                while let event = try decoder.next() {
                    if case .request(let request) = event {
                        seen.append(
                            "\(request.method) \(request.target) \(String(decoding: request.body, as: UTF8.self))")
                    }
                }
            }
            #expect(seen == ["GET /a?x=1 ", "POST /b xyz", "POST /c abcde", "GET /d "], "\(chunking)")
            #expect(decoder.isIdle)
        }
    }
}
