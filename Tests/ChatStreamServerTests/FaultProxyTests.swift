// The fault rig of the delivery tests (Tests/HTTPTestSupport): FaultProxy forwards unchanged,
// cuts at the planned byte (close, reset, stall) or on demand, and RestartableServer restarts a
// server on the same port and data file behind it.

import ChatStream
import ChatStreamServer
import Foundation
import Glibc
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@Suite("Fault proxy and restartable server", .blockingAllowed)
struct FaultProxyTests {
    /// What a raw exchange through the proxy got: every byte, and how it ended.
    struct RawOutcome {
        var bytes: [UInt8]
        /// 0 for a clean end, else the errno of the failing read (ECONNRESET for a reset).
        var endError: Int32
        var elapsed: Duration
    }

    /// Sends `request` to `port` and reads until the connection ends.
    static func exchange(port: UInt16, _ request: String) throws -> RawOutcome {
        let connection = try RawHTTPConnection(port: port, timeout: 10)
        try connection.send(request)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let started = ContinuousClock.now
        while true {
            let count = recv(connection.fd, &buffer, buffer.count, 0)
            if count > 0 {
                bytes += buffer[0..<count]
                continue
            }
            return RawOutcome(bytes: bytes, endError: count == 0 ? 0 : errno, elapsed: .now - started)
        }
    }

    static func chatRequest(_ message: String) -> String {
        let body = APIFixture.chatBody(message)
        return "POST /api/sdk/agents/demo-agent/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + "X-Device-Id: proxy-device\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            + body
    }

    @Test func withoutAPlanTheProxyForwardsEveryByte() throws {
        let fixture = try APIFixture()
        let proxy = try FaultProxy(upstreamPort: fixture.server.port)
        defer { proxy.stop() }
        let through = try Self.exchange(port: proxy.port, Self.chatRequest("through the proxy"))
        #expect(through.endError == 0)
        let response = try APIFixture.parse(through.bytes)
        #expect(response.complete)
        #expect(ReplyEvent.text(ReplyEvent.parse(response.body)).hasPrefix("You said: through the proxy."))
        let counters = proxy.counters
        #expect(counters.connections == 1)
        #expect(counters.bytesToClient == through.bytes.count)
        #expect(counters.cuts.isEmpty)
    }

    @Test(arguments: [FaultProxy.Cut.close, .reset, .stall])
    func aPlannedCutHappensAtItsByte(cut: FaultProxy.Cut) throws {
        let fixture = try APIFixture()
        let plan = FaultProxy.Plan(
            cutProbability: 1, cutOffsets: 345...345, cuts: [cut], stallDuration: .milliseconds(600))
        let proxy = try FaultProxy(upstreamPort: fixture.server.port, plan: plan)
        defer { proxy.stop() }
        let outcome = try Self.exchange(port: proxy.port, Self.chatRequest("cut me at byte 345 of the answer"))
        switch cut {
        case .close:
            #expect(outcome.bytes.count == 345)
            #expect(outcome.endError == 0)
        case .reset:
            #expect(outcome.bytes.count <= 345)
            #expect(outcome.endError == ECONNRESET)
        case .stall:
            #expect(outcome.bytes.count == 345)
            #expect(outcome.elapsed >= .milliseconds(550))
        }
        #expect(proxy.counters.cuts[cut] == 1)
        // The server finished the reply anyway; it is in history.
        #expect(
            try eventually {
                try fixture.page(fixture.api("conversations"), device: "proxy-device").items.first?["lastMessage"]?[
                    "role"] == "assistant"
            })
    }

    @Test func cutsAreDrawnFromTheSeedSoARunRepeats() throws {
        let fixture = try APIFixture()
        func run() throws -> [Int] {
            let proxy = try FaultProxy(
                upstreamPort: fixture.server.port,
                plan: .init(cutProbability: 0.5, cutOffsets: 50...900, cuts: [.close], seed: 99))
            defer { proxy.stop() }
            return try (0..<8).map { _ in try Self.exchange(port: proxy.port, Self.chatRequest("seeded")).bytes.count }
        }
        let first = try run()
        #expect(first == (try run()))
        #expect(Set(first).count > 2)
    }

    @Test func cutAllEndsOpenConnectionsNow() throws {
        let fixture = try APIFixture()
        let proxy = try FaultProxy(upstreamPort: fixture.server.port)
        defer { proxy.stop() }
        let connection = try RawHTTPConnection(port: proxy.port, timeout: 5)
        try connection.send("GET \(fixture.api("events")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: d\r\n\r\n")
        let opening = LiveEventRouteTests.read(connection.fd, for: .seconds(5)) {
            String(decoding: $0, as: UTF8.self).contains("event: subscribed")
        }
        #expect(String(decoding: opening, as: UTF8.self).contains("event: subscribed"))
        proxy.cutAll(.reset)
        var buffer = [UInt8](repeating: 0, count: 1024)
        var result = 0
        #expect(
            eventually(within: 60) {
                result = recv(connection.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                return result == 0 || (result < 0 && errno != EAGAIN)
            })
        #expect(proxy.counters.cuts[.reset] == 1)
    }

    @Test func aRestartBehindTheProxyKeepsThePortAndTheStore() throws {
        var configuration = RestartableServer.testConfiguration
        configuration.replyDelay = .milliseconds(40)
        let server = try RestartableServer(configuration: configuration)
        defer { server.stop() }
        let proxy = try FaultProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        // A reply generating when the server restarts: the client's stream through the proxy ends early.
        let cut = Mutex<RawOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let port = proxy.port
        Thread.detachNewThread {
            let outcome = try? Self.exchange(port: port, Self.chatRequest("a reply long enough to outlive the restart"))
            cut.withLock { $0 = outcome }
            done.signal()
        }
        #expect(eventually { server.server?.generatingReplyCount == 1 })
        usleep(200_000)
        try server.restart()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let outcome = try #require(cut.withLock { $0 })
        let response = try APIFixture.parse(outcome.bytes)
        #expect(!response.complete)
        let messageId = try #require(response.header("X-Message-Id"))
        let events = ReplyEvent.parse(response.body)
        let conversation = try #require(events.first?.json?["messageMetadata"]?["conversationId"]?.stringValue)
        // The new server on the same port, through the same proxy, has it interrupted.
        let resume = try Self.exchange(
            port: port,
            "GET /api/sdk/agents/demo-agent/conversations/\(conversation)/messages/\(messageId)/stream HTTP/1.1\r\n"
                + "Host: 127.0.0.1\r\nConnection: close\r\nX-Device-Id: proxy-device\r\n"
                + "Last-Event-ID: \(events.last?.id ?? 0)\r\n\r\n")
        let resumed = ReplyEvent.parse(try APIFixture.parse(resume.bytes).body)
        #expect(resumed.map(\.type) == ["error", "[DONE]"])
        #expect(server.server?.port == server.port)
        #expect(proxy.counters.connections == 2)
    }

    @Test func aServerThatIsDownIsAConnectionClosedAtOnce() throws {
        let server = try RestartableServer()
        defer { server.stop() }
        let proxy = try FaultProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        server.stopServer()
        let outcome = try Self.exchange(port: proxy.port, Self.chatRequest("anyone there?"))
        #expect(outcome.bytes.isEmpty)
        #expect(proxy.counters.refused == 1)
        try server.start()
        let after = try Self.exchange(port: proxy.port, Self.chatRequest("back again"))
        #expect(try APIFixture.parse(after.bytes).complete)
    }
}
