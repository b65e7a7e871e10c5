// What only PlainHTTPTransport does, against ScriptedHTTPServer (exact bytes, malformed ones
// included): the chunked coding decoded the same at every split, Content-Length and close-delimited
// bodies, malformed heads refused with what and where, a close mid-body after the bytes before it,
// cancellation, IPv6 loopback, redirects to another scheme handed to the fallback. What it shares
// with the other transports runs in their suites (TransportUnderTest.plain).

import ChatStreamHTTP
import Dispatch
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("PlainHTTPTransport", .blockingAllowed)
struct PlainHTTPTransportTests {
    // MARK: The chunked coding, split every way

    /// A chunked body with chunk extensions (one quoted), an upper-case hex size and trailer fields.
    static let chunked = Array(
        ("4;name=value\r\nWiki\r\n5\r\npedia\r\nE;x=\"q;y\"\r\n in\r\n\r\nchunks.\r\n1A\r\n"
            + "abcdefghijklmnopqrstuvwxyz\r\n0\r\nTrailer-One: 1\r\nTrailer-Two: 2\r\n\r\n").utf8)
    static let decoded = Array("Wikipedia in\r\n\r\nchunks.abcdefghijklmnopqrstuvwxyz".utf8)

    /// Decodes `pieces` in turn: the data, whether the body was complete, and the error if any.
    static func decode(_ pieces: [[UInt8]]) -> (bytes: [UInt8], complete: Bool, error: HTTPResponseParseError?) {
        var decoder = ChunkedBodyDecoder(maxTrailerBytes: 1024)
        var output: [UInt8] = []
        do {
            for piece in pieces { try decoder.decode(piece[...], into: &output) }
        } catch let error as HTTPResponseParseError {
            return (output, decoder.isComplete, error)
        } catch {
            Issue.record("the chunked decoder threw \(error), not an HTTPResponseParseError")
        }
        return (output, decoder.isComplete, nil)
    }

    @Test func chunkedDecodingIsTheSameAtEverySplitPoint() {
        for split in 0...Self.chunked.count {
            let result = Self.decode([Array(Self.chunked[..<split]), Array(Self.chunked[split...])])
            #expect(result.bytes == Self.decoded, "split at \(split)")
            #expect(result.complete && result.error == nil, "split at \(split): \(String(describing: result.error))")
        }
    }

    @Test(arguments: Chunkings.all(of: chunked, seeds: Array(1...20)))
    func chunkedDecodingIsTheSameInEveryChunking(_ chunking: Chunkings.Chunking) {
        let result = Self.decode(chunking.pieces)
        #expect(result.bytes == Self.decoded)
        #expect(result.complete && result.error == nil, "\(String(describing: result.error))")
    }

    /// Chunks without extensions, as servers send them (the decoder reads these a line at a
    /// time rather than byte by byte): sizes of one to three hex digits, either case.
    static let plainChunks: (body: [UInt8], decoded: [UInt8]) = {
        var body: [UInt8] = []
        var decoded: [UInt8] = []
        for index in 0..<40 {
            let data = Array(String(repeating: String(index % 10), count: 1 + (index * 37) % 300).utf8)
            let size = String(data.count, radix: 16, uppercase: index % 2 == 0)
            body += Array("\(size)\r\n".utf8) + data + Array("\r\n".utf8)
            decoded += data
        }
        body += Array("0\r\n\r\n".utf8)
        return (body, decoded)
    }()

    @Test func plainChunksDecodeTheSameWholeAtEverySplitAndInEveryChunking() {
        let (body, decoded) = Self.plainChunks
        var chunkings = [[body]] + (0...body.count).map { [Array(body[..<$0]), Array(body[$0...])] }
        chunkings += Chunkings.all(of: body, seeds: Array(1...20)).map(\.pieces)
        for pieces in chunkings {
            let result = Self.decode(pieces)
            let same = result.bytes == decoded  // (a Bool: a failure does not print both arrays)
            #expect(same, "pieces \(pieces.map(\.count)): \(result.bytes.count) bytes, not \(decoded.count)")
            #expect(result.complete && result.error == nil, "pieces \(pieces.map(\.count))")
        }
    }

    /// Trailer lines ended by a bare LF, or by CR LF, and the blank line after them either way:
    /// the body ends there, and not before, at every split.
    @Test func trailerLinesEndedByLFOrCRLFEndTheBodyAtTheBlankLineAtEverySplit() {
        for text in ["3\r\nabc\r\n0\nA: 1\nB: 2\n\n", "3\r\nabc\r\n0\r\nA: 1\nB: 2\r\n\r\n", "3\nabc\n0\n\n"] {
            let bytes = Array(text.utf8)
            for split in 0...bytes.count {
                let result = Self.decode([Array(bytes[..<split]), Array(bytes[split...])])
                #expect(result.bytes == Array("abc".utf8) && result.complete, "\(text.debugDescription) at \(split)")
                #expect(result.error == nil)
            }
            let short = Self.decode([Array(bytes.dropLast())])
            #expect(!short.complete && short.error == nil, "complete before its blank line: \(text.debugDescription)")
        }
    }

    @Test func headerNamesCompareIgnoringASCIICaseOnly() {
        #expect(HTTPHeaderFields.namesEqual("Content-Type", "content-TYPE"))
        #expect(HTTPHeaderFields.namesEqual("X-Message-Id", "x-message-id"[...]))
        #expect(HTTPHeaderFields.namesEqual("", ""))
        #expect(!HTTPHeaderFields.namesEqual("Content-Type", "Content-Typ"))
        #expect(!HTTPHeaderFields.namesEqual("Content-Type", "Content-Tipe"))
        #expect(!HTTPHeaderFields.namesEqual("X-[", "x-{"))  // 0x5B and 0x7B: not letters, not folded
        #expect(!HTTPHeaderFields.namesEqual("X-\u{C9}", "x-\u{E9}"))  // É and é: ASCII only
    }

    @Test func bytesAfterTheLastChunkAreNotBody() throws {
        var decoder = ChunkedBodyDecoder(maxTrailerBytes: 1024)
        var output: [UInt8] = []
        let used = try decoder.decode((Self.chunked + Array("HTTP/1.1 200 OK\r\n".utf8))[...], into: &output)
        #expect(used == Self.chunked.count)
        #expect(output == Self.decoded)
        #expect(decoder.isComplete)
    }

    @Test(arguments: [
        ("5\r\nhello\r\nZ\r\n", "\"Z\" where a chunk size (hex digits) was expected at byte 10"),
        ("5\r\nhelloX\r\n", "\"X\" where the line break after a chunk's data was expected at byte 8"),
        ("5 x\rY", "\"Y\" after CR where LF ends a chunk size line at byte 4"),
        ("1234567890abcdef0\r\n", "more than 15 hex digits at byte 15"),
        ("3\r\nabc\r\n3\r\nxyzQ", "\"Q\" where the line break after a chunk's data was expected at byte 14"),
        ("3\r\nabc\r\n3\nxyz\rQ", "\"Q\" after CR where LF ends a chunk's data at byte 14"),
        ("2\r\nab\r\n00000000000000002\r\n", "more than 15 hex digits at byte 22"),
        ("0\r\nTrailer: 1\rQ", "\"Q\" after CR where LF ends a trailer line at byte 14"),
    ])
    func aMalformedChunkedBodyNamesTheProblemAndItsOffsetAtEverySplit(_ input: String, _ message: String) {
        let bytes = Array(input.utf8)
        for split in 0...bytes.count {
            let result = Self.decode([Array(bytes[..<split]), Array(bytes[split...])])
            #expect(result.error?.kind == .invalid, "split at \(split)")
            #expect(
                result.error?.message.contains(message) == true,
                "split at \(split): \(String(describing: result.error))")
        }
    }

    // MARK: Bodies over a socket

    /// Reads the body to its end; the bytes and the error it ended with.
    static func read(_ response: HTTPResponse) async -> (bytes: [UInt8], error: TransportError?) {
        var bytes: [UInt8] = []
        do {
            for try await chunk in response.body { bytes += chunk }
            return (bytes, nil)
        } catch {
            return (bytes, error as? TransportError)
        }
    }

    static func send(_ server: ScriptedHTTPServer, _ request: HTTPRequest? = nil) async throws -> HTTPResponse {
        try await PlainHTTPTransport().send(request ?? HTTPRequest(url: server.url(), idleTimeout: .seconds(30)))
    }

    @Test func aChunkedBodyWrittenAByteAtATimeIsDecoded() async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            for byte in Self.chunked { connection.write([byte]) }
            _ = connection.waitForClientClose()
        }
        defer { server.stop() }
        let response = try await Self.send(server)
        #expect(response.status == 200)
        let result = await Self.read(response)
        #expect(result.bytes == Self.decoded)
        #expect(result.error == nil)
    }

    @Test func aContentLengthBodyEndsAtItsLengthWithoutTheClose() async throws {
        let closed = Shared(false)
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 201 Created\r\nContent-Length: 11\r\nX-Thing:  spaced value \r\n\r\nhello world")
            // The server keeps the connection open: the body must end by its length.
            closed.value = connection.waitForClientClose()
        }
        defer { server.stop() }
        let response = try await Self.send(server)
        #expect(response.status == 201)
        #expect(response.headers["x-thing"] == "spaced value")
        let result = await Self.read(response)
        #expect(String(decoding: result.bytes, as: UTF8.self) == "hello world")
        #expect(result.error == nil)
        #expect(await eventually { closed.value })
    }

    @Test func aBodyWithoutLengthRunsToTheClose() async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nfirst ")
            connection.write("second ")
            connection.write("third")
        }
        defer { server.stop() }
        let result = await Self.read(try await Self.send(server))
        #expect(String(decoding: result.bytes, as: UTF8.self) == "first second third")
        #expect(result.error == nil)
    }

    @Test func theRequestIsSentAsHTTP11WithItsBody() async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 204 No Content\r\n\r\n")
        }
        defer { server.stop() }
        let request = HTTPRequest(
            method: "post", url: server.url("/agents/a%20b/chat?x=1"), headers: ["Content-Type": "application/json"],
            body: Array(#"{"message":"hi"}"#.utf8), idleTimeout: .seconds(30))
        let response = try await Self.send(server, request)
        #expect(response.status == 204)
        #expect(await Self.read(response).bytes.isEmpty)
        let sent = try #require(server.requests.value.first)
        #expect(sent.hasPrefix("POST /agents/a%20b/chat?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"))
        #expect(sent.contains("\r\nContent-Type: application/json\r\n"))
        #expect(sent.contains("\r\nContent-Length: 16\r\n"))
        #expect(sent.contains("\r\nConnection: close\r\n"))
        #expect(sent.hasSuffix("\r\n\r\n{\"message\":\"hi\"}"))
    }

    @Test func interimResponsesAreSkipped() async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { server.stop() }
        let response = try await Self.send(server)
        #expect(response.status == 200)
        #expect(await Self.read(response).bytes == Array("ok".utf8))
    }

    // MARK: An answer before the whole request

    /// A request whose body is far more than the socket buffers hold.
    static func largeRequest(_ server: ScriptedHTTPServer) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: server.url("/upload"), body: [UInt8](repeating: 0x61, count: 32 << 20),
            idleTimeout: .seconds(30))
    }

    @Test(arguments: [false, true])
    func anEarlyAnswerToARequestNotAllSentIsTheResponse(serverCloses: Bool) async throws {
        let answered = DispatchSemaphore(value: 0)
        let server = try ScriptedHTTPServer(readsRequest: false) { connection in
            connection.write(
                "HTTP/1.1 413 Content Too Large\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntoo large")
            // Either closes at once with the request unread, or keeps the connection open reading
            // nothing until the client has the answer: it stops sending and reads it either way.
            if !serverCloses { _ = answered.wait(timeout: .now() + 60) }
        }
        defer { server.stop() }
        let response = try await Self.send(server, Self.largeRequest(server))
        #expect(response.status == 413)
        let result = await Self.read(response)
        answered.signal()
        #expect(String(decoding: result.bytes, as: UTF8.self) == "too large")
        #expect(result.error == nil)
    }

    @Test func aServerThatClosesUnansweredMidRequestIsALostConnection() async throws {
        let server = try ScriptedHTTPServer(readsRequest: false) { _ in }
        defer { server.stop() }
        await #expect {
            _ = try await Self.send(server, Self.largeRequest(server))
        } throws: { error in
            (error as? TransportError)?.kind == .connectionLost
        }
    }

    // MARK: Malformed heads

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nGood: 1\r\nBad Line\r\n\r\n", "a header line without a colon at byte 26"),
        (
            "HTTP/1.1 200 OK\r\nGood: 1\r\n folded\r\n\r\n",
            "obsolete line folding (a header line starting with whitespace) at byte 26"
        ),
        ("HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n", "byte 0x20 in a header field name at byte 20"),
        ("HTTP/1.1 2x0 OK\r\n\r\n", "the status code at byte 9 is not three digits"),
        ("HTTP/1.1 200 OK\r\n: empty\r\n\r\n", "a header field with an empty name at byte 17"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", "conflicting Content-Length values"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length \"-1\" is not a number"),
        ("ICY 200 OK\r\n\r\n", "the status line at byte 0 is not \"HTTP/1.x <code> <reason>\""),
    ])
    func aMalformedHeadIsAnInvalidResponseNamingWhatAndWhere(_ head: String, _ message: String) async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write(head)
            _ = connection.waitForClientClose()
        }
        defer { server.stop() }
        await #expect {
            _ = try await Self.send(server)
        } throws: { error in
            let error = error as? TransportError
            return error?.kind == .invalidResponse && error?.message.contains(message) == true
        }
    }

    @Test func aHeadCutBeforeItsBlankLineIsALostConnection() async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Le")
        }
        defer { server.stop() }
        await #expect {
            _ = try await Self.send(server)
        } throws: { error in
            (error as? TransportError)?.kind == .connectionLost
        }
    }

    @Test func anEncodedBodyNotAskedForIsRefused() async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc")
        }
        defer { server.stop() }
        await #expect {
            _ = try await Self.send(server)
        } throws: { error in
            let error = error as? TransportError
            return error?.kind == .invalidResponse && error?.message.contains("Content-Encoding is \"gzip\"") == true
        }
    }

    // MARK: A close mid-body

    @Test(arguments: [
        ("Content-Length: 100\r\n\r\n0123456789abcdefghij", "0123456789abcdefghij", "after 20 of the body's 100 bytes"),
        (
            "Transfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n5\r\nab", "0123456789ab",
            "before the chunked body's last chunk"
        ),
    ])
    func aCloseMidBodyFailsAfterTheBytesBeforeIt(_ rest: String, _ received: String, _ message: String) async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\n" + rest)
        }
        defer { server.stop() }
        let result = await Self.read(try await Self.send(server))
        #expect(String(decoding: result.bytes, as: UTF8.self) == received)
        #expect(result.error?.kind == .connectionLost)
        #expect(result.error?.message.contains(message) == true, "\(String(describing: result.error))")
    }

    @Test func aMalformedChunkMidBodyFailsAfterTheBytesBeforeIt() async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nq\r\n")
            _ = connection.waitForClientClose()
        }
        defer { server.stop() }
        let result = await Self.read(try await Self.send(server))
        #expect(result.bytes == Array("abc".utf8))
        #expect(result.error?.kind == .invalidResponse)
        #expect(result.error?.message.contains("\"q\" where a chunk size (hex digits) was expected at byte 8") == true)
    }

    // MARK: Cancellation

    @Test func cancellingTheTaskBeforeTheHeadThrowsCancelledAndCloses() async throws {
        let closed = Shared(false)
        let server = try ScriptedHTTPServer { connection in
            // Never answers; sees the client go.
            closed.value = connection.waitForClientClose()
        }
        defer { server.stop() }
        let task = Task { try await Self.send(server) }
        #expect(await eventually { server.requests.value.count == 1 })
        task.cancel()
        await #expect {
            _ = try await task.value
        } throws: { error in
            (error as? TransportError)?.kind == .cancelled
        }
        #expect(await eventually { closed.value })
    }

    @Test func cancellingTheConsumerMidBodyThrowsCancelledAndCloses() async throws {
        let closed = Shared(false)
        let server = try ScriptedHTTPServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n")
            closed.value = connection.waitForClientClose()
        }
        defer { server.stop() }
        let response = try await Self.send(server)
        let gotFirst = Shared(false)
        let task = Task {
            var iterator = response.body.makeAsyncIterator()
            let first = try await iterator.next()
            gotFirst.value = first == Array("first".utf8)
            return try await iterator.next()
        }
        #expect(await eventually { gotFirst.value })
        task.cancel()
        await #expect {
            _ = try await task.value
        } throws: { error in
            (error as? TransportError)?.kind == .cancelled
        }
        #expect(await eventually { closed.value })
    }

    // MARK: Addresses and schemes

    @Test(.enabled(if: ScriptedHTTPServer.hasIPv6Loopback))
    func anIPv6LoopbackServerIsReached() async throws {
        let server = try ScriptedHTTPServer(ipv6: true) { connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nsix!")
        }
        defer { server.stop() }
        let result = await Self.read(try await Self.send(server))
        #expect(result.bytes == Array("six!".utf8))
        #expect(server.requests.value.first?.contains("\r\nHost: [::1]:\(server.port)\r\n") == true)
    }

    @Test func aRefusedConnectionNamesTheHost() async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        await #expect {
            _ = try await PlainHTTPTransport().send(
                HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/")!, idleTimeout: .seconds(30)))
        } throws: { error in
            let error = error as? TransportError
            return error?.kind == .connectionFailed && error?.message.contains("127.0.0.1 port \(port)") == true
        }
        withExtendedLifetime(refusing) {}  // bound until the connection was tried
    }

    /// Records the requests it is sent; answers 200 with an empty body.
    final class RecordingTransport: HTTPTransport {
        let sent = Shared<[HTTPRequest]>([])
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            sent.update { $0.append(request) }
            return HTTPResponse(status: 200)
        }
    }

    @Test func otherSchemesAndRedirectsToThemGoToTheFallback() async throws {
        let server = try ScriptedHTTPServer { connection in
            connection.write(
                "HTTP/1.1 302 Found\r\nLocation: https://example.invalid/landed\r\nContent-Length: 0\r\n\r\n")
        }
        defer { server.stop() }
        let fallback = RecordingTransport()
        let transport = PlainHTTPTransport(limits: .init(redirects: .anyOrigin), fallback: fallback)
        let headers: HTTPHeaderFields = ["X-Device-Id": "device-1", "X-Custom": "kept"]
        let response = try await transport.send(HTTPRequest(url: server.url("/go"), headers: headers))
        #expect(response.status == 200)
        _ = try await transport.send(HTTPRequest(url: URL(string: "https://example.invalid/direct")!))
        let sent = fallback.sent.value
        #expect(sent.map(\.url.absoluteString) == ["https://example.invalid/landed", "https://example.invalid/direct"])
        // Another origin: the identity headers stay behind.
        #expect(sent.first?.headers["X-Device-Id"] == nil)
        #expect(sent.first?.headers["X-Custom"] == "kept")
        await #expect {
            _ = try await PlainHTTPTransport().send(HTTPRequest(url: URL(string: "https://example.invalid/")!))
        } throws: { error in
            (error as? TransportError)?.kind == .connectionFailed
        }
    }
}
