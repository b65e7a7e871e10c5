// What only CurlTransport does: bodies handed out in batches, and being Linux's default for https
// (PlainHTTPTransport's fallback). Everything the transports share is tested against each
// (TransportUnderTest).

#if os(Linux)
    import ChatStreamClient
    import Dispatch
    import Foundation
    import HTTPTestSupport
    import TestSupport
    import Testing

    @testable import ChatStreamServer

    @Suite("CurlTransport", .blockingAllowed)
    struct CurlTransportTests {
        @Test func isTheDefaultTransportForHTTPSOnLinux() {
            let limits = URLSessionTransport.Limits(maxBufferedBytes: 4096)
            let transport = DefaultHTTPTransport.make(limits: limits) as? PlainHTTPTransport
            #expect(transport?.limits == limits)
            #expect((transport?.fallback as? CurlTransport)?.limits == limits)
        }

        @Test func aConsumerBehindTheNetworkTakesWhatArrivedMeanwhileInOneBatch() async throws {
            let release = DispatchSemaphore(value: 0)
            let wroteAll = Shared(false)
            let pieces = (0..<200).map { "data: \($0)\n\n" }
            try await HTTPTestServer.with(handler: { _, response in
                try response.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
                try response.write("first\n")
                _ = release.wait(timeout: .now() + 60)
                for piece in pieces { try response.write(piece) }
                wroteAll.value = true
                _ = release.wait(timeout: .now() + 60)
                try response.finishStream()
            }) { server in
                let response = try await CurlTransport().send(
                    HTTPRequest(url: HTTPTestServer.url(server, "/batches"), idleTimeout: .seconds(30)))
                var iterator = response.body.makeAsyncIterator()
                #expect(try await iterator.next() == Array("first\n".utf8))
                release.signal()
                // The consumer is busy while the server writes 200 pieces, each its own chunk.
                #expect(await eventually { wroteAll.value })
                try await Task.sleep(for: .milliseconds(200))
                release.signal()
                var rest: [UInt8] = []
                var batches = 0
                while let batch = try await iterator.next() {
                    rest += batch
                    batches += 1
                }
                #expect(String(decoding: rest, as: UTF8.self) == pieces.joined())
                #expect(batches < pieces.count / 2, "\(batches) batches for \(pieces.count) pieces written meanwhile")
            }
        }
    }
#endif
