// What keeps a stream alive, over both transports and a loopback server: the transport counts any
// byte (a pause for a slow consumer is not the server's silence); above it, a chat reply must
// bring events (comments alone time out, EventIdleWatch) and the live stream events or its
// `: ping` heartbeat (other comments have it reopened). EventIdleTimeoutTests checks the same
// rules on a clock of its own at every chunking.

import ChatStreamClient
import Dispatch
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Idle streams: transport bytes, decoded events", .blockingAllowed)
struct StreamIdleTimeoutTests {
    /// A handler that writes `line` every 50 ms for `duration`, then `data: end` and ends.
    static func writing(_ line: String, for duration: Duration) -> HTTPServer.Handler {
        { _, response in
            try response.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
            let start = ContinuousClock.now
            do {
                while ContinuousClock.now - start < duration {
                    try response.write(line)
                    Thread.sleep(forTimeInterval: 0.05)
                }
                try response.write("data: end\n\n")
                try response.finishStream()
            } catch {
                // The client gave up: what the timeout tests expect.
            }
        }
    }

    /// Reads the body to its end; the bytes and the error it ended with.
    static func read(_ response: HTTPResponse) async -> (bytes: [UInt8], error: (any Error)?) {
        var bytes: [UInt8] = []
        do {
            for try await chunk in response.body { bytes += chunk }
            return (bytes, nil)
        } catch {
            return (bytes, error)
        }
    }

    static func request(_ server: HTTPServer) -> HTTPRequest {
        HTTPRequest(url: HTTPTestServer.url(server, "/"), idleTimeout: .milliseconds(600))
    }

    static func client(_ server: HTTPServer, _ kind: TransportUnderTest) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent", baseURL: HTTPTestServer.url(server, ""), transport: kind.make(),
            identityStore: InMemoryIdentityStore(), retryPolicy: .none, idleTimeout: .milliseconds(600))
    }

    /// Whether `error` is a reply that ended with the transport's or the event watch's timeout.
    static func timedOutReply(_ error: any Error) -> Bool {
        guard case .networkError(let inner)? = error as? ChatStreamClient.APIError,
            let stream = inner as? ReplyStreamError
        else {
            return false
        }
        return stream.transportError?.kind == .timedOut
    }

    @Test(arguments: TransportUnderTest.allCases)
    func commentsKeepAPlainRequestAliveAtTheTransport(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.writing(": keep-alive\n\n", for: .milliseconds(1800))) {
            server in
            let response = try await kind.make().send(Self.request(server))
            let (bytes, error) = await Self.read(response)
            #expect(error == nil, "got \(String(describing: error))")
            #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("data: end\n\n"))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func aChatReplyOfCommentsAloneFailsWithATimeout(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.writing(": keep-alive\n\n", for: .seconds(20))) { server in
            let client = Self.client(server, kind)
            let start = ContinuousClock.now
            await #expect {
                _ = try await client.send("hello")
            } throws: { error in
                Self.timedOutReply(error)
            }
            #expect(ContinuousClock.now - start < .seconds(15))
        }
    }

    /// A handler that writes `line` as fast as the client takes it for `duration`, then `data: end`.
    static func flooding(_ line: String, for duration: Duration) -> HTTPServer.Handler {
        { _, response in
            try response.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
            let block = String(repeating: line, count: max(1, 4096 / line.utf8.count))
            let start = ContinuousClock.now
            do {
                while ContinuousClock.now - start < duration { try response.write(block) }
                try response.write("data: end\n\n")
                try response.finishStream()
            } catch {
                // The client gave up.
            }
        }
    }

    /// Reads with a pause after every chunk (a consumer slower than the network); the error it ended with.
    static func readSlowly(_ response: HTTPResponse) async -> (bytes: Int, tail: [UInt8], error: (any Error)?) {
        var count = 0
        var tail: [UInt8] = []
        do {
            for try await chunk in response.body {
                count += chunk.count
                tail = Array((tail + chunk).suffix(64))
                try await Task.sleep(for: .milliseconds(2))
            }
            return (count, tail, nil)
        } catch {
            return (count, tail, error)
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func aChatReplyOfCommentsAtFullSpeedStillTimesOut(_ kind: TransportUnderTest) async throws {
        // Bytes never stop, so the transport's clock never runs out; no event comes, so the reply's does.
        try await HTTPTestServer.with(handler: Self.flooding(": keep-alive\n", for: .seconds(30))) { server in
            let start = ContinuousClock.now
            await #expect {
                _ = try await Self.client(server, kind).send("hello")
            } throws: { error in
                Self.timedOutReply(error)
            }
            #expect(ContinuousClock.now - start < .seconds(20))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func eventsAtFullSpeedToASlowConsumerDoNotTimeOut(_ kind: TransportUnderTest) async throws {
        // The server's send timeout is not what is tested: a consumer the loaded machine leaves
        // unscheduled for seconds must not have the server drop it (CI's first run: 10 s passed).
        var configuration = HTTPTestServer.configuration
        configuration.sendTimeout = .seconds(300)
        try await HTTPTestServer.with(
            configuration: configuration, handler: Self.flooding("data: {}\n\n", for: .milliseconds(1500))
        ) { server in
            let transport = kind.make(URLSessionTransport.Limits(maxBufferedBytes: 32 << 10))
            let response = try await transport.send(Self.request(server))
            let (_, tail, error) = await Self.readSlowly(response)
            #expect(error == nil, "got \(String(describing: error))")
            #expect(String(decoding: tail, as: UTF8.self).hasSuffix("data: end\n\n"))
        }
    }

    /// An events route: the first connection says `subscribed`, writes `comment` every 20 ms for
    /// `duration`, then an event; later ones the event at once. Counts the connections.
    static func live(_ comment: String, for duration: Duration, connections: Shared<Int>) -> HTTPServer.Handler {
        { _, response in
            var count = 0
            connections.update {
                $0 += 1
                count = $0
            }
            let event =
                "id: 2\nevent: typing\ndata: {\"conversationId\":\"c1\",\"participant\":\"agent\",\"active\":true}\n\n"
            try response.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
            do {
                if count == 1 {
                    try response.write("id: 1\nevent: subscribed\ndata: {}\n\n")
                    let start = ContinuousClock.now
                    while ContinuousClock.now - start < duration {
                        try response.write(comment)
                        Thread.sleep(forTimeInterval: 0.02)
                    }
                }
                try response.write(event)
                // Then heartbeats until the client goes (at most 10 s): a stream that ended here
                // would be reopened 10 ms later, and a test slow to read the count counted it.
                let after = ContinuousClock.now
                while ContinuousClock.now - after < .seconds(10) {
                    try response.write(": ping\n\n")
                    Thread.sleep(forTimeInterval: 0.05)
                }
                try response.finishStream()
            } catch {
                // The client gave up on this connection.
            }
        }
    }

    /// The first event of a subscription to `server`, and the connections made until it came.
    static func firstLiveEvent(_ server: HTTPServer, _ kind: TransportUnderTest, connections: Shared<Int>)
        async throws -> (LiveEvent?, Int)
    {
        let client = ChatbaseClient(
            agentId: "agent", baseURL: HTTPTestServer.url(server, ""), transport: kind.make(),
            identityStore: InMemoryIdentityStore(), retryPolicy: .none)
        let options = LiveEventOptions(defaultRetry: .milliseconds(10), jitter: 0, idleTimeout: .milliseconds(1500))
        for try await event in client.events(options: options) {
            return (event, connections.value)
        }
        return (nil, connections.value)
    }

    @Test(arguments: TransportUnderTest.allCases)
    func heartbeatsKeepALiveStreamOnItsConnection(_ kind: TransportUnderTest) async throws {
        let connections = Shared(0)
        try await HTTPTestServer.with(handler: Self.live(": ping\n\n", for: .seconds(3), connections: connections)) {
            server in
            let (event, count) = try await Self.firstLiveEvent(server, kind, connections: connections)
            #expect(event?.id == "2")
            #expect(count == 1, "the stream of heartbeats outlasted the idle timeout on one connection")
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func otherCommentsDoNotKeepALiveStreamOpen(_ kind: TransportUnderTest) async throws {
        let connections = Shared(0)
        try await HTTPTestServer.with(
            handler: Self.live(": keep-alive\n\n", for: .seconds(20), connections: connections)
        ) { server in
            let start = ContinuousClock.now
            let (event, count) = try await Self.firstLiveEvent(server, kind, connections: connections)
            #expect(event?.id == "2")
            #expect(count == 2, "the stream of comments was given up and reopened")
            #expect(ContinuousClock.now - start < .seconds(15))
        }
    }
}
