// URLSessionTransport's limits against HTTPServer on loopback: backpressure, the decoded size of
// compressed bodies, response heads over the limit, and redirects to another origin.

import ChatStreamClient
import Dispatch
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("URLSessionTransport limits", .blockingAllowed)
struct URLSessionTransportLimitsTests {
    /// Byte `index` of the backpressure test's body: a pattern that shows a lost or repeated piece.
    static func patternByte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index % 251) }

    @Test(arguments: TransportUnderTest.allCases)
    func readingPausesWhileTheConsumerIsBehindAndResumesAsItDrains(_ kind: TransportUnderTest) async throws {
        let total = 16 << 20
        let piece = 64 << 10
        let pattern = (0..<piece + 251).map(Self.patternByte)
        let written = Shared(0)
        var configuration = HTTPTestServer.configuration
        configuration.sendTimeout = .seconds(60)
        try await HTTPTestServer.with(
            configuration: configuration,
            handler: { _, response in
                try response.startStream(status: 200, headers: [("Content-Type", "application/octet-stream")])
                var offset = 0
                while offset < total {
                    try response.write(Array(pattern[offset % 251..<offset % 251 + piece]))
                    offset += piece
                    written.value = offset
                }
                try response.finishStream()
            }
        ) { server in
            let transport = kind.make(URLSessionTransport.Limits(maxBufferedBytes: 256 << 10))
            #expect(kind.limits(of: transport)?.maxBufferedBytes == 256 << 10)
            let response = try await transport.send(
                HTTPRequest(url: HTTPTestServer.url(server, "/big"), idleTimeout: .seconds(1)))
            var iterator = response.body.makeAsyncIterator()
            var count = 0
            var mismatch: Int? = nil
            func check(_ chunk: [UInt8]) {
                if mismatch == nil,
                    let position = chunk.indices.first(where: { chunk[$0] != Self.patternByte(count + $0) })
                {
                    mismatch = count + position
                }
                count += chunk.count
            }
            check(try await iterator.next() ?? [])
            // The consumer stops; the server must stall well before the end (without flow control
            // the client takes all 16 MiB at once).
            var last = -1
            var stableSince = ContinuousClock.now
            while ContinuousClock.now - stableSince < .milliseconds(1500), written.value < total {
                if written.value != last {
                    last = written.value
                    stableSince = .now
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            // What the server got out: the 256 KiB ceiling, both sockets' buffers, the server's send buffer.
            #expect(
                written.value < 8 << 20, "the server wrote \(written.value) bytes to a consumer that read one chunk")
            // Paused longer than the idle timeout (1 s): the consumer's pause, not the server's silence.
            while let chunk = try await iterator.next() { check(chunk) }
            #expect(count == total)
            #expect(mismatch == nil, "byte \(mismatch ?? 0) differs")
        }
    }

    // MARK: Compressed bodies

    @Test(arguments: TransportUnderTest.decodingCompressedBodies)
    func aCompressedBodyUnderTheLimitIsDecoded(_ kind: TransportUnderTest) async throws {
        let gzip = GzipFixture.repeated(UInt8(ascii: "z"), repeats: 1000)
        try await HTTPTestServer.with(handler: { _, response in
            try response.respond(status: 200, headers: [("Content-Encoding", "gzip")], body: gzip)
        }) { server in
            let response = try await kind.make().send(
                HTTPRequest(url: HTTPTestServer.url(server, "/small"), idleTimeout: .seconds(20)))
            let body = try await response.body.collect(upTo: 1 << 20)
            #expect(gzip.count < 2000)
            #expect(body == [UInt8](repeating: UInt8(ascii: "z"), count: 1 + 258 * 1000))
        }
    }

    @Test(arguments: TransportUnderTest.decodingCompressedBodies, ["gzip", "deflate"])
    func aCompressedBodyThatDecodesPastTheLimitFailsNamingIt(_ kind: TransportUnderTest, encoding: String) async throws
    {
        // About 650 KB on the wire, 103 MB decoded.
        let bomb =
            encoding == "gzip"
            ? GzipFixture.repeated(UInt8(ascii: ":"), repeats: 400_000, trailer: false)
            : GzipFixture.zlibRepeated(UInt8(ascii: ":"), repeats: 400_000)
        try await HTTPTestServer.with(handler: { _, response in
            try? response.respond(status: 200, headers: [("Content-Encoding", encoding)], body: bomb)
        }) { server in
            let limits = URLSessionTransport.Limits(maxDecodedBodyBytes: 1 << 20)
            let response = try await kind.make(limits).send(
                HTTPRequest(url: HTTPTestServer.url(server, "/bomb"), idleTimeout: .seconds(20)))
            var received = 0
            var failure: (any Error)?
            do {
                for try await chunk in response.body { received += chunk.count }
            } catch {
                failure = error
            }
            let error = failure as? TransportError
            #expect(error?.kind == .bodyTooLarge, "got \(String(describing: failure)) after \(received) bytes")
            #expect(error?.message.contains("1048576") == true)
            #expect(error?.message.contains("maxDecodedBodyBytes") == true)
            #expect(received <= 1 << 20)
        }
    }

    // MARK: Response heads

    @Test(arguments: TransportUnderTest.allCases)
    func headerFieldsOverTheLimitFailWithHeaderTooLarge(_ kind: TransportUnderTest) async throws {
        let filler = String(repeating: "h", count: 1000)
        _ = try await HTTPTestServer.with(handler: { _, response in
            try? response.respond(status: 200, headers: (0..<100).map { ("X-Filler-\($0)", filler) }, body: [1])
        }) { server in
            await #expect {
                _ = try await kind.make().send(
                    HTTPRequest(url: HTTPTestServer.url(server, "/"), idleTimeout: .seconds(20)))
            } throws: { error in
                let error = error as? TransportError
                return error?.kind == .headerTooLarge && error?.message.contains("65536") == true
            }
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func oneHeaderLineOverTheHTTPLibrarysLimitFailsWithHeaderTooLarge(_ kind: TransportUnderTest) async throws {
        let huge = String(repeating: "h", count: 300_000)
        _ = try await HTTPTestServer.with(handler: { _, response in
            try? response.respond(status: 200, headers: [("X-Huge", huge)], body: [1])
        }) { server in
            await #expect {
                _ = try await kind.make().send(
                    HTTPRequest(url: HTTPTestServer.url(server, "/"), idleTimeout: .seconds(20)))
            } throws: { error in
                (error as? TransportError)?.kind == .headerTooLarge
            }
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func headerFieldsUnderTheLimitArrive(_ kind: TransportUnderTest) async throws {
        let filler = String(repeating: "h", count: 1000)
        try await HTTPTestServer.with(handler: { _, response in
            try response.respond(status: 200, headers: (0..<40).map { ("X-Filler-\($0)", filler) }, body: [1])
        }) { server in
            let response = try await kind.make().send(
                HTTPRequest(url: HTTPTestServer.url(server, "/"), idleTimeout: .seconds(20)))
            #expect(response.headers["x-filler-39"] == filler)
        }
    }

    // MARK: Redirects

    static let identity: HTTPHeaderFields = [
        "X-Device-Id": "device-1", "X-User-Token": "token-1", "Authorization": "Bearer secret", "X-Custom": "kept",
    ]

    /// Runs `body` with server A redirecting `/go` to server B's `/landed` (another origin: another
    /// port), `/same` to A's own `/landed`, and `/round-trip` to B's `/back`, which redirects to A's
    /// `/landed`; both answer `/landed` with the headers they saw.
    static func withRedirectingServers(
        _ body: (_ a: HTTPServer, _ bHits: Shared<Int>) async throws -> Void
    ) async throws {
        let hits = Shared(0)
        let aPort = Shared(0)
        let echo: @Sendable (HTTPServerRequest, HTTPServerResponseWriter) throws -> Void = { request, response in
            let seen = ["x-device-id", "x-user-token", "authorization", "x-custom"].map {
                "\($0)=\(request.headers[$0] ?? "-")"
            }
            try response.respond(status: 200, body: Array(seen.joined(separator: " ").utf8))
        }
        try await HTTPTestServer.with(handler: { request, response in
            hits.update { $0 += 1 }
            if request.path == "/back" {
                try response.respond(status: 302, headers: [("Location", "http://127.0.0.1:\(aPort.value)/landed")])
            } else {
                try echo(request, response)
            }
        }) { b in
            try await HTTPTestServer.with(handler: { request, response in
                switch request.path {
                case "/go":
                    try response.respond(
                        status: 302, headers: [("Location", HTTPTestServer.url(b, "/landed").absoluteString)])
                case "/same": try response.respond(status: 307, headers: [("Location", "/landed")])
                case "/round-trip":
                    try response.respond(
                        status: 302, headers: [("Location", HTTPTestServer.url(b, "/back").absoluteString)])
                default: try echo(request, response)
                }
            }) { a in
                aPort.value = Int(a.port)
                try await body(a, hits)
            }
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func aRedirectToAnotherOriginIsNotFollowedByDefault(_ kind: TransportUnderTest) async throws {
        try await Self.withRedirectingServers { a, bHits in
            await #expect {
                _ = try await kind.make().send(
                    HTTPRequest(url: HTTPTestServer.url(a, "/go"), headers: Self.identity, idleTimeout: .seconds(20)))
            } throws: { error in
                let error = error as? TransportError
                return error?.kind == .redirectRefused && error?.message.contains("/landed") == true
            }
            #expect(bHits.value == 0, "the other origin was asked")
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func aRedirectWithinTheOriginKeepsEveryHeader(_ kind: TransportUnderTest) async throws {
        try await Self.withRedirectingServers { a, _ in
            let response = try await kind.make().send(
                HTTPRequest(url: HTTPTestServer.url(a, "/same"), headers: Self.identity, idleTimeout: .seconds(20)))
            let text = String(decoding: try await response.body.collect(upTo: 10_000), as: UTF8.self)
            #expect(
                text == "x-device-id=device-1 x-user-token=token-1 authorization=Bearer secret x-custom=kept")
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func anAllowedRedirectToAnotherOriginDropsTheIdentityHeaders(_ kind: TransportUnderTest) async throws {
        try await Self.withRedirectingServers { a, bHits in
            let transport = kind.make(URLSessionTransport.Limits(redirects: .anyOrigin))
            let response = try await transport.send(
                HTTPRequest(url: HTTPTestServer.url(a, "/go"), headers: Self.identity, idleTimeout: .seconds(20)))
            let text = String(decoding: try await response.body.collect(upTo: 10_000), as: UTF8.self)
            #expect(text == "x-device-id=- x-user-token=- authorization=- x-custom=kept")
            #expect(bHits.value == 1)
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func identityHeadersStayDroppedWhenARedirectComesBackToTheOrigin(_ kind: TransportUnderTest) async throws {
        try await Self.withRedirectingServers { a, bHits in
            let transport = kind.make(URLSessionTransport.Limits(redirects: .anyOrigin))
            let response = try await transport.send(
                HTTPRequest(
                    url: HTTPTestServer.url(a, "/round-trip"), headers: Self.identity, idleTimeout: .seconds(20)))
            let text = String(decoding: try await response.body.collect(upTo: 10_000), as: UTF8.self)
            #expect(text == "x-device-id=- x-user-token=- authorization=- x-custom=kept")
            #expect(bHits.value == 1)
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func noRedirectIsFollowedUnderThePolicyNone(_ kind: TransportUnderTest) async throws {
        try await Self.withRedirectingServers { a, _ in
            let transport = kind.make(URLSessionTransport.Limits(redirects: .none))
            await #expect {
                _ = try await transport.send(
                    HTTPRequest(url: HTTPTestServer.url(a, "/same"), idleTimeout: .seconds(20)))
            } throws: { ($0 as? TransportError)?.kind == .redirectRefused }
        }
    }
}
