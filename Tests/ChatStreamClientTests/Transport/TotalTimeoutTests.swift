// The total timeout (issue 31, deliverable 5): a stream that trickles (never idle) ends with a
// timeout once the deadline passes, every chunk received before it handed over; without one it
// runs to its end; the live event stream is not limited by it.

import ChatStream
import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient
@testable import ChatStreamServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("A total timeout ends a stream that trickles", .blockingAllowed)
struct TotalTimeoutTests {
    @Test func aBodyHandsOverWhatCameBeforeItsDeadlineThenTimesOut() async throws {
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let feeder = Task {
            for index in 0..<200 {
                continuation.yield([UInt8(index)])
                try? await Task.sleep(for: .milliseconds(20))
            }
            continuation.finish()
        }
        defer { feeder.cancel() }
        let started = ContinuousClock.now
        let body = HTTPBody(stream).ending(at: started + .seconds(1))
        var received: [UInt8] = []
        var failure: TransportError?
        do {
            for try await chunk in body { received += chunk }
        } catch let error as TransportError {
            failure = error
        }
        #expect(failure?.kind == .timedOut)
        // Before the stream's end (it runs at least 4 s), with the chunks in order and none lost.
        // (No bound on the time: a loaded machine may starve the consumer, never the check.)
        #expect(received == (0..<UInt8(received.count)).map { $0 })
        #expect(received.count >= 1 && received.count < 200)
    }

    /// A server whose every answer is a JSON list trickled a byte every 50 ms (about 3 s in all).
    static func trickling(_ body: (HTTPServer) async throws -> Void) async throws {
        try await HTTPTestServer.with(
            handler: { _, response in
                try response.startStream(status: 200, headers: [("Content-Type", "application/json")])
                let text = #"{"data":[],"pagination":{"cursor":null,"hasMore":false,"total":0}}"#
                for byte in text.utf8 {
                    try response.write([byte])
                    usleep(50_000)
                }
                try response.finishStream()
            }, body)
    }

    static func client(_ server: HTTPServer) -> ChatbaseClient {
        ChatbaseClient(
            agentId: "agent-slow", baseURL: HTTPTestServer.url(server, ""),
            identityStore: InMemoryIdentityStore(deviceId: "device-slow"), retryPolicy: .none, store: nil)
    }

    @Test func aTricklingAnswerEndsAtTheClientsTotalTimeout() async throws {
        try await Self.trickling { server in
            let client = Self.client(server)
            #expect(client.totalTimeout == nil)
            client.totalTimeout = .milliseconds(700)
            // It times out (the same answer completes without a total timeout, below). No bound on
            // the wall clock: under a loaded suite the whole exchange once took 4.8 s.
            let error = await #expect(throws: ChatStreamClient.APIError.self) { try await client.listConversations() }
            guard case .networkError(let underlying)? = error else {
                Issue.record("expected a network error, got \(String(describing: error))")
                return
            }
            #expect((underlying as? TransportError)?.kind == .timedOut)
        }
    }

    @Test func withoutATotalTimeoutTheSameAnswerCompletes() async throws {
        try await Self.trickling { server in
            let page = try await Self.client(server).listConversations()
            #expect(page.data.isEmpty && !page.hasMore)
        }
    }
}
