// What keeps a stream alive: with `.serverSentEvents` only complete events (and the named
// keep-alive comment) reset the idle timeout; a chat reply of comments alone times out.

import ChatStreamClient
import Dispatch
import Foundation
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
        var request = HTTPRequest(url: TestHelpers.url(server, "/"), idleTimeout: .milliseconds(600))
        request.idleActivity = activity
        return request
    }

    @Test func commentsAloneEndAnEventCountingStreamWithATimeout() async throws {
        try await TestHelpers.withServer(handler: Self.writing(": keep-alive\n\n", for: .seconds(20))) { server in
            let start = ContinuousClock.now
            let response = try await URLSessionTransport().send(Self.request(server, .serverSentEvents))
            let (bytes, error) = await Self.read(response)
            let failure = error as? TransportError
            #expect(failure?.kind == .timedOut, "got \(String(describing: error))")
            #expect(failure?.message.contains("event") == true)
            #expect(!bytes.isEmpty, "the comments were delivered before the timeout")
            #expect(ContinuousClock.now - start < .seconds(15))
        }
    }

    @Test func theNamedKeepAliveCommentKeepsTheStreamAlive() async throws {
        try await TestHelpers.withServer(handler: Self.writing(": ping\n\n", for: .milliseconds(1800))) { server in
            let response = try await URLSessionTransport().send(
                Self.request(server, .serverSentEvents(keepAliveComment: "ping")))
            let (bytes, error) = await Self.read(response)
            #expect(error == nil, "got \(String(describing: error))")
            #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("data: end\n\n"))
        }
    }

    @Test func otherCommentsDoNotCountAsTheKeepAlive() async throws {
        try await TestHelpers.withServer(handler: Self.writing(": pong\n\n", for: .seconds(20))) { server in
            let response = try await URLSessionTransport().send(
                Self.request(server, .serverSentEvents(keepAliveComment: "ping")))
            #expect((await Self.read(response).error as? TransportError)?.kind == .timedOut)
        }
    }

    @Test func eventsKeepTheStreamAlive() async throws {
        try await TestHelpers.withServer(handler: Self.writing("data: {}\n\n", for: .milliseconds(1800))) { server in
            let response = try await URLSessionTransport().send(Self.request(server, .serverSentEvents))
            let (bytes, error) = await Self.read(response)
            #expect(error == nil, "got \(String(describing: error))")
            #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("data: end\n\n"))
        }
    }

    @Test func anyBytesKeepADefaultRequestAlive() async throws {
        try await TestHelpers.withServer(handler: Self.writing(": keep-alive\n\n", for: .milliseconds(1800))) {
            server in
            let response = try await URLSessionTransport().send(Self.request(server, .anyBytes))
            #expect(await Self.read(response).error == nil)
        }
    }

    @Test func aChatReplyOfCommentsAloneFailsWithATimeout() async throws {
        try await TestHelpers.withServer(handler: Self.writing(": keep-alive\n\n", for: .seconds(20))) { server in
            let client = ChatbaseClient(
                agentId: "agent", baseURL: TestHelpers.url(server, ""), identityStore: InMemoryIdentityStore(),
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
}
