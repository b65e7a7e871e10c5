// What keeps a stream alive: with `.serverSentEvents` only complete events (and the named
// keep-alive comment) reset the idle timeout; a chat reply of comments alone times out.

import ChatStreamClient
import Dispatch
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("URLSessionTransport idle activity")
struct URLSessionTransportIdleActivityTests {
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

    static func request(_ server: HTTPServer, _ activity: HTTPRequest.IdleActivity) -> HTTPRequest {
        var request = HTTPRequest(url: HTTPTestServer.url(server, "/"), idleTimeout: .milliseconds(600))
        request.idleActivity = activity
        return request
    }

    @Test(arguments: TransportUnderTest.allCases)
    func commentsAloneEndAnEventCountingStreamWithATimeout(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.writing(": keep-alive\n\n", for: .seconds(20))) { server in
            let start = ContinuousClock.now
            let response = try await kind.make().send(Self.request(server, .serverSentEvents))
            let (bytes, error) = await Self.read(response)
            let failure = error as? TransportError
            #expect(failure?.kind == .timedOut, "got \(String(describing: error))")
            #expect(failure?.message.contains("event") == true)
            #expect(!bytes.isEmpty, "the comments were delivered before the timeout")
            #expect(ContinuousClock.now - start < .seconds(15))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func theNamedKeepAliveCommentKeepsTheStreamAlive(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.writing(": ping\n\n", for: .milliseconds(1800))) { server in
            let response = try await kind.make().send(
                Self.request(server, .serverSentEvents(keepAliveComment: "ping")))
            let (bytes, error) = await Self.read(response)
            #expect(error == nil, "got \(String(describing: error))")
            #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("data: end\n\n"))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func otherCommentsDoNotCountAsTheKeepAlive(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.writing(": pong\n\n", for: .seconds(20))) { server in
            let response = try await kind.make().send(
                Self.request(server, .serverSentEvents(keepAliveComment: "ping")))
            #expect((await Self.read(response).error as? TransportError)?.kind == .timedOut)
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func eventsKeepTheStreamAlive(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.writing("data: {}\n\n", for: .milliseconds(1800))) { server in
            let response = try await kind.make().send(Self.request(server, .serverSentEvents))
            let (bytes, error) = await Self.read(response)
            #expect(error == nil, "got \(String(describing: error))")
            #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("data: end\n\n"))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func anyBytesKeepADefaultRequestAlive(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.writing(": keep-alive\n\n", for: .milliseconds(1800))) {
            server in
            let response = try await kind.make().send(Self.request(server, .anyBytes))
            #expect(await Self.read(response).error == nil)
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func aChatReplyOfCommentsAloneFailsWithATimeout(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.writing(": keep-alive\n\n", for: .seconds(20))) { server in
            let client = ChatbaseClient(
                agentId: "agent", baseURL: HTTPTestServer.url(server, ""), transport: kind.make(),
                identityStore: InMemoryIdentityStore(),
                retryPolicy: .none, idleTimeout: .milliseconds(600))
            let start = ContinuousClock.now
            await #expect {
                _ = try await client.send("hello")
            } throws: { error in
                guard case .networkError(let inner)? = error as? ChatStreamClient.APIError,
                    let stream = inner as? ReplyStreamError
                else {
                    return false
                }
                return stream.transportError?.kind == .timedOut
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
    func commentsAtFullSpeedToASlowConsumerStillTimeOut(_ kind: TransportUnderTest) async throws {
        // Reading pauses all the time here; pauses over a buffer of comments are not the consumer's delay.
        try await HTTPTestServer.with(handler: Self.flooding(": keep-alive\n", for: .seconds(30))) { server in
            let transport = kind.make(URLSessionTransport.Limits(maxBufferedBytes: 32 << 10))
            let start = ContinuousClock.now
            let response = try await transport.send(Self.request(server, .serverSentEvents))
            let (bytes, _, error) = await Self.readSlowly(response)
            #expect((error as? TransportError)?.kind == .timedOut, "got \(String(describing: error))")
            #expect(bytes > 32 << 10, "the comments were read until the timeout")
            #expect(ContinuousClock.now - start < .seconds(20))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func eventsAtFullSpeedToASlowConsumerDoNotTimeOut(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: Self.flooding("data: {}\n\n", for: .milliseconds(1500))) { server in
            let transport = kind.make(URLSessionTransport.Limits(maxBufferedBytes: 32 << 10))
            let response = try await transport.send(Self.request(server, .serverSentEvents))
            let (_, tail, error) = await Self.readSlowly(response)
            #expect(error == nil, "got \(String(describing: error))")
            #expect(String(decoding: tail, as: UTF8.self).hasSuffix("data: end\n\n"))
        }
    }
}
