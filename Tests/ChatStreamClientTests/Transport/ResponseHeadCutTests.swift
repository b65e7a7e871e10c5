// A response head cut at any byte (the connection closed before its blank line) is a lost
// connection, which the client retries or queues, not an answer that "was not HTTP", which it
// does not: found by the fault-proxy end-to-end run, where such a cut left a message the server
// had stored marked failed in the outbox. libcurl ends a transfer cut after the status line
// without an error. Every transport under test (libcurl's and the plain socket one on Linux).

#if os(Linux)
    import ChatStreamClient
    import Foundation
    import HTTPTestSupport
    import TestSupport
    import Testing

    @testable import ChatStreamServer

    @Suite("A response head cut at any byte", .blockingAllowed)
    struct ResponseHeadCutTests {
        @Test(arguments: TransportUnderTest.allCases)
        func isALostConnection(_ kind: TransportUnderTest) async throws {
            try await HTTPTestServer.with(handler: { _, response in
                try response.respond(status: 200, headers: [("Content-Type", "text/plain")], body: Array("hello".utf8))
            }) { server in
                let proxy = try FaultProxy(upstreamPort: server.port)
                defer { proxy.stop() }
                let url = URL(string: "http://127.0.0.1:\(proxy.port)/head")!
                // Every request on a connection of its own, cut as the plan says when it is accepted.
                let request = HTTPRequest(url: url, headers: ["Connection": "close"], idleTimeout: .seconds(20))
                // The whole answer once, uncut: the head is what comes before the 5-byte body.
                let whole = try await kind.make().send(request)
                #expect(try await whole.body.collect(upTo: 100) == Array("hello".utf8))
                // The proxy counts a byte after handing it over: wait for the count.
                #expect(await eventually(timeout: .seconds(60)) { proxy.counters.bytesToClient > 5 })
                let headLength = proxy.counters.bytesToClient - 5
                try #require(headLength > 20)
                for offset in 1..<headLength {
                    proxy.setPlan(.init(cutProbability: 1, cutOffsets: offset...offset, cuts: [.close]))
                    do {
                        let response = try await kind.make().send(request)
                        Issue.record("cut at byte \(offset) of \(headLength): a response \(response.status)")
                    } catch let error as TransportError {
                        #expect(error.kind == .connectionLost, "cut at byte \(offset) of \(headLength): \(error)")
                    }
                }
            }
        }
    }
#endif
