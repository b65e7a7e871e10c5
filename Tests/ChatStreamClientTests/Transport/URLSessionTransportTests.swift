// URLSessionTransport against HTTPServer: streaming, cancellation, idle timeout, broken streams.

import ChatStreamClient
import Dispatch
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLSessionTransport", .blockingAllowed)
struct URLSessionTransportTests {
    /// GETs `url` with a fresh transport and returns the body as text.
    static func fetch(_ url: URL) async throws -> String {
        let response = try await URLSessionTransport().send(HTTPRequest(url: url, idleTimeout: .seconds(20)))
        return String(decoding: try await response.body.collect(upTo: 1 << 20), as: UTF8.self)
    }

    @Test(arguments: TransportUnderTest.allCases)
    func deliversStatusHeadersAndBody(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: { request, response in
            let body =
                "\(request.method) \(request.headers["x-custom"] ?? "-") \(String(decoding: request.body, as: UTF8.self))"
            try response.respond(
                status: 201, headers: [("Content-Type", "text/plain"), ("X-Reply", "yes")], body: Array(body.utf8))
        }) { server in
            let transport = kind.make()
            let request = HTTPRequest(
                method: "POST", url: HTTPTestServer.url(server, "/echo"), headers: ["X-Custom": "abc"],
                body: Array(String(repeating: "z", count: 3000).utf8), idleTimeout: .seconds(20))
            let response = try await transport.send(request)
            #expect(response.status == 201)
            #expect(response.headers["x-reply"] == "yes")
            #expect(response.headers["CONTENT-TYPE"] == "text/plain")
            let text = String(decoding: try await response.body.collect(upTo: 10_000), as: UTF8.self)
            #expect(text == "POST abc " + String(repeating: "z", count: 3000))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func collectStopsAtItsLimit(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: { _, response in
            try response.respond(status: 200, body: [UInt8](repeating: 1, count: 100))
        }) { server in
            let response = try await kind.make().send(HTTPRequest(url: HTTPTestServer.url(server, "/")))
            await #expect { _ = try await response.body.collect(upTo: 99) } throws: {
                ($0 as? TransportError)?.kind == .bodyTooLarge
            }
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func streamedChunksArriveAsTheServerWritesThem(_ kind: TransportUnderTest) async throws {
        let release = DispatchSemaphore(value: 0)
        let wroteLast = Shared(false)
        try await HTTPTestServer.with(handler: { _, response in
            try response.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
            try response.write("data: 1\n\n")
            // Wait for the test to confirm it saw chunk 1 (bounded so a failing test cannot hang).
            _ = release.wait(timeout: .now() + 60)
            wroteLast.value = true
            try response.write("data: 2\n\n")
            try response.finishStream()
        }) { server in
            let response = try await kind.make().send(
                HTTPRequest(url: HTTPTestServer.url(server, "/stream"), idleTimeout: .seconds(30)))
            var iterator = response.body.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first == Array("data: 1\n\n".utf8))
            #expect(wroteLast.value == false, "chunk 1 only arrived after the server wrote the last chunk")
            release.signal()
            var rest: [UInt8] = []
            while let chunk = try await iterator.next() { rest += chunk }
            #expect(rest == Array("data: 2\n\n".utf8))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func cancellingTheConsumerMakesTheServerWriteFail(_ kind: TransportUnderTest) async throws {
        let writeError = Shared<String?>(nil)
        let chunksWritten = Shared(0)
        try await HTTPTestServer.with(handler: { _, response in
            do {
                try response.startStream(status: 200)
                for _ in 0..<2000 {  // 2000 x 10 ms: far longer than the test waits
                    try response.write(Array(repeating: UInt8(ascii: "x"), count: 100))
                    chunksWritten.update { $0 += 1 }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                try response.finishStream()
            } catch {
                writeError.value = "\(error)"
                throw error
            }
        }) { server in
            let transport = kind.make()
            let url = HTTPTestServer.url(server, "/endless")
            let consumer = Task(executorPreference: NetworkTestExecutor.shared) {
                let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
                var received = 0
                for try await chunk in response.body { received += chunk.count }
                return received
            }
            #expect(await eventually { chunksWritten.value >= 3 })
            consumer.cancel()
            await #expect(throws: (any Error).self) { try await consumer.value }
            #expect(await eventually { writeError.value != nil }, "the handler never saw its write fail")
            #expect(chunksWritten.value < 2000)
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func droppingTheBodyCancelsTheRequest(_ kind: TransportUnderTest) async throws {
        let writeFailed = Shared(false)
        try await HTTPTestServer.with(handler: { _, response in
            try response.startStream(status: 200)
            do {
                for _ in 0..<2000 {
                    try response.write("tick\n")
                    Thread.sleep(forTimeInterval: 0.01)
                }
            } catch {
                writeFailed.value = true
            }
        }) { server in
            let transport = kind.make()
            do {
                let response = try await transport.send(HTTPRequest(url: HTTPTestServer.url(server, "/")))
                var iterator = response.body.makeAsyncIterator()
                _ = try await iterator.next()
            }  // response and iterator dropped here
            #expect(await eventually { writeFailed.value })
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func idleTimeoutFiresWhenTheServerStalls(_ kind: TransportUnderTest) async throws {
        let release = DispatchSemaphore(value: 0)
        try await HTTPTestServer.with(handler: { _, response in
            try response.startStream(status: 200)
            try response.write("first")
            _ = release.wait(timeout: .now() + 15)  // stall
            try? response.write("late")
        }) { server in
            defer { release.signal() }
            let response = try await kind.make().send(
                // 1.5 s: the first libcurl request of a process (loading it) took over 0.5 s to
                // its head once under a parallel build.
                HTTPRequest(url: HTTPTestServer.url(server, "/stall"), idleTimeout: .milliseconds(1500)))
            let start = ContinuousClock.now
            var received: [UInt8] = []
            var failure: (any Error)?
            do {
                for try await chunk in response.body { received += chunk }
            } catch {
                failure = error
            }
            #expect(received == Array("first".utf8))
            #expect((failure as? TransportError)?.kind == .timedOut, "got \(String(describing: failure))")
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func idleTimeoutWaitsForTheResponseHeadToo(_ kind: TransportUnderTest) async throws {
        let release = DispatchSemaphore(value: 0)
        try await HTTPTestServer.with(handler: { _, response in
            _ = release.wait(timeout: .now() + 15)
            try? response.respond(status: 200)
        }) { server in
            defer { release.signal() }
            await #expect {
                _ = try await kind.make().send(
                    HTTPRequest(url: HTTPTestServer.url(server, "/slow"), idleTimeout: .milliseconds(400)))
            } throws: {
                ($0 as? TransportError)?.kind == .timedOut
            }
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func slowSteadyStreamIsNotCutByTheIdleTimeout(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: { _, response in
            try response.startStream(status: 200)
            for index in 0..<30 {
                try response.write("\(index % 10)")
                Thread.sleep(forTimeInterval: 0.1)
            }
            try response.finishStream()
        }) { server in
            let start = ContinuousClock.now
            // 2 s (and a 3 s stream): with 1 s the head of a process's first libcurl request came
            // too late once under a parallel build.
            let response = try await kind.make().send(
                HTTPRequest(url: HTTPTestServer.url(server, "/slow"), idleTimeout: .seconds(2)))
            let text = String(decoding: try await response.body.collect(upTo: 1000), as: UTF8.self)
            #expect(text == "012345678901234567890123456789")
            #expect(ContinuousClock.now - start > .seconds(2), "the stream must outlast the idle timeout")
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func connectionDroppedMidStreamFailsAfterTheChunksReceived(_ kind: TransportUnderTest) async throws {
        let release = DispatchSemaphore(value: 0)
        try await HTTPTestServer.with(handler: { _, response in
            try response.startStream(status: 200)
            try response.write("one")
            try response.write("two")
            _ = release.wait(timeout: .now() + 60)
            response.abortConnection()
            #expect(throws: HTTPServerError.connectionClosed) { try response.write("three") }
        }) { server in
            let response = try await kind.make().send(
                HTTPRequest(url: HTTPTestServer.url(server, "/cut"), idleTimeout: .seconds(20)))
            var received: [UInt8] = []
            var failure: (any Error)?
            do {
                for try await chunk in response.body {
                    received += chunk
                    if received.count == 6 { release.signal() }
                }
            } catch {
                failure = error
            }
            #expect(String(decoding: received, as: UTF8.self) == "onetwo")
            let kind = (failure as? TransportError)?.kind
            #expect(kind == .connectionLost, "got \(String(describing: failure))")
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func handlerThrowingMidStreamTruncatesTheResponse(_ kind: TransportUnderTest) async throws {
        try await HTTPTestServer.with(handler: { _, response in
            try response.startStream(status: 200)
            try response.write("partial")
            throw HTTPServerError.invalidState
        }) { server in
            let response = try await kind.make().send(HTTPRequest(url: HTTPTestServer.url(server, "/")))
            await #expect {
                _ = try await response.body.collect(upTo: 100)
            } throws: {
                ($0 as? TransportError)?.kind == .connectionLost
            }
        }
    }

    @Test(arguments: TransportUnderTest.allCases)
    func refusedConnectionIsConnectionFailed(_ kind: TransportUnderTest) async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        await #expect {
            _ = try await kind.make().send(
                HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/")!, idleTimeout: .seconds(20)))
        } throws: { error in
            // The client documents a network error as holding URLSession's URLError: both transports give one.
            let error = error as? TransportError
            return error?.kind == .connectionFailed
                && (error?.underlyingError as? URLError)?.code == .cannotConnectToHost
        }
        withExtendedLifetime(refusing) {}  // bound until the connection was tried
    }

    @Test(arguments: TransportUnderTest.allCases)
    func cancellingSendBeforeTheHeadThrowsCancelled(_ kind: TransportUnderTest) async throws {
        let release = DispatchSemaphore(value: 0)
        let started = Shared(false)
        try await HTTPTestServer.with(handler: { _, response in
            started.value = true
            _ = release.wait(timeout: .now() + 15)
            try? response.respond(status: 200)
        }) { server in
            defer { release.signal() }
            let transport = kind.make()
            let url = HTTPTestServer.url(server, "/")
            let task = Task(executorPreference: NetworkTestExecutor.shared) {
                try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
            }
            #expect(await eventually { started.value })
            let start = ContinuousClock.now
            task.cancel()
            await #expect {
                _ = try await task.value
            } throws: {
                ($0 as? TransportError)?.kind == .cancelled
            }
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }
}
