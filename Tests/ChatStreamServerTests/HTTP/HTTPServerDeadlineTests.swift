// The server's defences against slow and abandoned clients: head deadline, minimum body rate,
// send timeout with a bounded send buffer, and the per-address connection cap.

import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

private let ok: HTTPServer.Handler = { _, response in
    try response.respond(status: 200, body: Array("ok".utf8))
}

@Suite("HTTPServer deadlines and caps", .blockingAllowed)
struct HTTPServerDeadlineTests {
    /// A head trickling in a byte at a time never trips the per-read timeout, but the head deadline ends it.
    @Test func aHeadThatTricklesInIsCutAtTheHeadDeadline() async throws {
        var configuration = HTTPTestServer.configuration
        configuration.requestHeadTimeout = .milliseconds(600)
        configuration.requestReadTimeout = .seconds(30)
        try await HTTPTestServer.with(configuration: configuration, handler: ok) { server in
            let connection = try RawHTTPConnection(port: server.port)
            let start = ContinuousClock.now
            var status: Int?
            for byte in "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8 + Array(repeating: UInt8(ascii: "a"), count: 200) {
                guard (try? connection.send([byte])) != nil else { break }
                try await Task.sleep(for: .milliseconds(20))
                if ContinuousClock.now - start > .seconds(2) { break }
            }
            status = try connection.readResponse().status
            #expect(status == 408)
            // Without the head deadline the per-read timeout would answer, 30 s after the last
            // byte; 20 s leaves room for a machine stalled by a full parallel run (7.06 s once).
            #expect(ContinuousClock.now - start < .seconds(20))
        }
    }

    @Test func aBodyBelowTheMinimumRateIs408() async throws {
        var configuration = HTTPTestServer.configuration
        configuration.minimumBodyBytesPerSecond = 1000
        configuration.bodyRateGracePeriod = .milliseconds(300)
        try await HTTPTestServer.with(configuration: configuration, handler: ok) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
            let start = ContinuousClock.now
            // 100 bytes/s: a tenth of the minimum.
            while ContinuousClock.now - start < .seconds(3) {
                guard (try? connection.send(Array(repeating: 0x61, count: 10))) != nil else { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let response = try connection.readResponse()
            #expect(response.status == 408)
            #expect(response.text.contains("too slowly"))
        }
    }

    @Test func aBodyAtTheMinimumRateIsServed() async throws {
        var configuration = HTTPTestServer.configuration
        configuration.minimumBodyBytesPerSecond = 1000
        configuration.bodyRateGracePeriod = .milliseconds(300)
        try await HTTPTestServer.with(configuration: configuration, handler: ok) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n")
            // 4000 bytes in about a second: four times the minimum. Each send catches up to that
            // rate since the start, so a sleep that a loaded machine stretches does not slow the body.
            // The pauses block this thread (a network-test thread) instead of suspending the task:
            // a suspended task waits for a free Dispatch thread to resume it, which the parallel
            // suite's CPU-bound tests once delayed by about 30 s, long enough to fall below the rate.
            let start = ContinuousClock.now
            var sent = 0
            while sent < 4000 {
                let elapsed = (ContinuousClock.now - start) / .milliseconds(1)
                let due = min(4000, max(sent + 400, Int(elapsed * 4)))
                try connection.send(Array(repeating: 0x61, count: due - sent))
                sent = due
                usleep(100_000)
            }
            #expect(try connection.readResponse().status == 200)
        }
    }

    /// A client that never reads a large response loses its connection after the send timeout, and the
    /// handler's write fails, instead of holding the thread.
    @Test func aPeerThatDoesNotReadIsDroppedAfterTheSendTimeout() async throws {
        var configuration = HTTPTestServer.configuration
        configuration.sendTimeout = .milliseconds(500)
        configuration.sendBufferBytes = 16 * 1024
        let outcome = Shared<String>("")
        try await HTTPTestServer.with(
            configuration: configuration,
            handler: { _, response in
                do {
                    try response.startStream(status: 200)
                    for _ in 0..<1000 { try response.write(Array(repeating: 0x61, count: 64 * 1024)) }
                    outcome.value = "wrote everything"
                } catch {
                    outcome.value = "write failed"
                    throw error
                }
            }
        ) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            let start = ContinuousClock.now
            #expect(await eventually(timeout: .seconds(60)) { outcome.value == "write failed" })
            // Well under a peer's patience (a write that never timed out would hang here until the
            // 60 s above); 20 s, not 5: it took 5.05 s once in a full parallel run.
            #expect(ContinuousClock.now - start < .seconds(20))
            #expect(await eventually(timeout: .seconds(60)) { server.openConnections == 0 })
            withExtendedLifetime(connection) {}
        }
    }

    @Test func oneAddressCannotTakeMoreThanItsShareOfConnections() async throws {
        var configuration = HTTPTestServer.configuration
        configuration.maxConnectionsPerAddress = 2
        configuration.idleTimeout = .seconds(30)
        try await HTTPTestServer.with(configuration: configuration, handler: ok) { server in
            let held = try (0..<2).map { _ in try RawHTTPConnection(port: server.port, source: "127.0.0.2") }
            for connection in held {
                try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try connection.readResponse().status == 200)
            }
            let third = try RawHTTPConnection(port: server.port, source: "127.0.0.2")
            try third.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let refused = try third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            // Another address is still served.
            let other = try RawHTTPConnection(port: server.port, source: "127.0.0.1")
            try other.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try other.readResponse().status == 200)
            #expect(server.openConnections == 3)
        }
    }

    @Test func theGlobalCapIsSizedToTheMachine() {
        let cap = HTTPServerConfiguration.machineConnectionCap
        #expect(cap >= 16 && cap <= 4096)
        #expect(HTTPServerConfiguration().maxConnectionsPerAddress < HTTPServerConfiguration().maxConnections)
    }
}
