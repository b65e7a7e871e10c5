// Issue 31, deliverable 3: live event streams are served after their head by one poll-based
// writer, not by connection threads, under caps of their own (global, per address, per /24 or
// /64 network): streams hold no worker, a slow reader does not stall the others (nor does reading
// a lagging one's backlog from the database), and a stream the client closes frees its place at once.

import ChatStream
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Live streams on one writer", .blockingAllowed)
struct LiveStreamWriterTests {
    /// Opens `GET .../events` for `device` from `source` and returns the connection unread.
    static func subscribe(_ fixture: APIFixture, device: String, source: String? = nil, receiveBuffer: Int32? = nil)
        throws -> RawHTTPConnection
    {
        let connection = try RawHTTPConnection(port: fixture.server.port, source: source, timeout: 5)
        if var size = receiveBuffer {
            setsockopt(connection.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        try connection.send(
            "GET \(fixture.api("events")) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Device-Id: \(device)\r\n\r\n")
        return connection
    }

    @Test func streamsHoldNoConnectionThread() throws {
        let fixture = try APIFixture { configuration in
            configuration.http.maxConnections = 8
            configuration.http.maxConnectionsPerAddress = 8
        }
        // Opened one after another: each takes a worker only until its opening is sent.
        var streams: [RawHTTPConnection] = []
        for index in 0..<40 {
            streams.append(try Self.subscribe(fixture, device: "many"))
            #expect(eventually { fixture.server.liveSubscriberCount == index + 1 })
        }
        usleep(200_000)  // the last connection thread returns after its hand-off
        // Every worker is free: eight requests at once are all answered.
        let answers = Mutex<[Int]>([])
        let port = fixture.server.port
        let list = Array(
            "GET \(fixture.api("conversations")) HTTP/1.1\r\nHost: x\r\nX-Device-Id: d\r\nConnection: close\r\n\r\n"
                .utf8)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let status = (try? APIFixture.exchange(port: port, bytes: list).status) ?? 0
            answers.withLock { $0.append(status) }
        }
        #expect(answers.withLock { $0 } == Array(repeating: 200, count: 8))
        // And each stream gets its events.
        let id = try fixture.startConversation("to every stream", device: "many")
        for stream in streams.prefix(5) {
            let bytes = LiveEventRouteTests.read(stream.fd, for: .seconds(10)) {
                LiveEventRouteTests.occurrences(of: id, in: $0) > 0
            }
            #expect(LiveEventRouteTests.occurrences(of: "event: conversation.created", in: bytes) == 1)
        }
    }

    @Test func aSlowReaderDoesNotStallTheOthers() throws {
        let fixture = try APIFixture { configuration in
            configuration.liveEvents.writeTimeout = .seconds(3)
            configuration.http.sendBufferBytes = 16 << 10
        }
        let id = try fixture.startConversation("tags will grow")
        let stalled = try Self.subscribe(fixture, device: "device-a", receiveBuffer: 4096)
        let reader = try Self.subscribe(fixture, device: "device-a")
        #expect(eventually { fixture.server.liveSubscriberCount == 2 })
        let tags = (0..<25).map { "\"tag-\($0)-" + String(repeating: "x", count: 52) + "\"" }
        let changes = 100
        // The reader reads all along, on its own thread.
        let received = Mutex<[UInt8]>([])
        let readerDone = DispatchSemaphore(value: 0)
        let readerFD = reader.fd
        Thread.detachNewThread {
            let bytes = LiveEventRouteTests.read(readerFD, for: .seconds(120)) {
                LiveEventRouteTests.occurrences(of: "change-\(changes - 1)\"", in: $0) > 0
            }
            received.withLock { $0 = bytes }
            readerDone.signal()
        }
        let start = ContinuousClock.now
        for index in 0..<changes {
            var shuffled = tags
            shuffled[0] = "\"change-\(index)\""
            let answer = try fixture.request(
                "PUT", fixture.api("conversations/\(id)/tags"), body: "{\"tags\":[\(shuffled.joined(separator: ","))]}")
            #expect(answer.status == 200)
        }
        let written = ContinuousClock.now - start
        // The reader has every change, while the stalled one has taken a few kilobytes.
        readerDone.wait()
        let bytes = received.withLock { $0 }
        #expect(LiveEventRouteTests.occurrences(of: "change-\(changes - 1)\"", in: bytes) == 1)
        #expect(LiveEventRouteTests.occurrences(of: "event: conversation.updated", in: bytes) >= changes)
        print("\(changes) changes took \(written) with a stalled subscriber; the reader had them all")
        // The stalled one is dropped after the write timeout; the reader stays.
        #expect(eventually { fixture.server.liveSubscriberCount == 1 })
        _ = LiveEventRouteTests.read(stalled.fd, for: .seconds(5))
        #expect(try stalled.isClosedByPeer())
    }

    @Test func aLaggingSubscribersBacklogIsReadOffTheWriterThread() throws {
        // A small in-memory tail (about ten events here): a subscriber that falls behind is read
        // from the events table.
        let fixture = try APIFixture { configuration in
            configuration.liveEvents.memoryBytes = 16 << 10
            configuration.liveEvents.writeTimeout = .seconds(60)
            configuration.http.sendBufferBytes = 4096
        }
        let id = try fixture.startConversation("lagging and prompt")
        let lagging = try Self.subscribe(fixture, device: "device-a", receiveBuffer: 4096)
        let prompt = try Self.subscribe(fixture, device: "device-a")
        #expect(eventually { fixture.server.liveSubscriberCount == 2 })
        let promptBytes = Mutex<[UInt8]>([])
        let promptFD = prompt.fd
        Thread.detachNewThread {
            _ = LiveEventRouteTests.read(promptFD, for: .seconds(60)) { bytes in
                promptBytes.withLock { $0 = bytes }
                return LiveEventRouteTests.occurrences(of: "while-reading", in: bytes) > 0
            }
        }
        // The lagging one takes nothing while 80 changes of about 1.5 KB each are committed.
        let tags = (0..<20).map { "\"tag-\($0)-" + String(repeating: "x", count: 52) + "\"" }
        func change(_ marker: String) throws {
            var shuffled = tags
            shuffled[0] = "\"\(marker)\""
            let answer = try fixture.request(
                "PUT", fixture.api("conversations/\(id)/tags"), body: "{\"tags\":[\(shuffled.joined(separator: ","))]}")
            #expect(answer.status == 200)
        }
        for index in 0..<80 { try change("change-\(index)") }
        #expect(eventually { LiveEventRouteTests.occurrences(of: "change-79\"", in: promptBytes.withLock { $0 }) > 0 })
        // The backlog read waits for the test: a read on the writer thread would hold every stream.
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        fixture.server.handlers.liveStreams.beforeBacklogRead.withLock {
            $0 = {
                entered.signal()
                gate.wait()
            }
        }
        // It reads again: what it missed is past the tail, so its backlog is read (and held there).
        let laggingBytes = Mutex<[UInt8]>([])
        let laggingFD = lagging.fd
        Thread.detachNewThread {
            _ = LiveEventRouteTests.read(laggingFD, for: .seconds(60)) { bytes in
                laggingBytes.withLock { $0 = bytes }
                return LiveEventRouteTests.occurrences(of: "while-reading", in: bytes) > 0
            }
        }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        // Meanwhile the prompt subscriber is served at once.
        try change("while-reading")
        let served = eventually(within: 120) {
            LiveEventRouteTests.occurrences(of: "while-reading", in: promptBytes.withLock { $0 }) > 0
        }
        #expect(served)
        gate.signal()
        fixture.server.handlers.liveStreams.beforeBacklogRead.withLock { $0 = nil }
        // Once its read is done, the lagging one gets every change it missed, in order, then the new one.
        #expect(
            eventually(within: 120) {
                LiveEventRouteTests.occurrences(of: "while-reading", in: laggingBytes.withLock { $0 }) > 0
            })
        let text = String(decoding: laggingBytes.withLock { $0 }, as: UTF8.self)
        let positions = (0..<80).compactMap { text.range(of: "change-\($0)\"")?.lowerBound }
        #expect(positions.count == 80)
        #expect(positions == positions.sorted())
        #expect(!text.contains("event: reset"))
    }

    @Test func aStreamClosedByTheClientFreesItsPlace() throws {
        let fixture = try APIFixture { configuration in
            configuration.http.maxStreamsPerAddress = 2
        }
        var streams = try (0..<2).map { _ in try Self.subscribe(fixture, device: "capped") }
        #expect(eventually { fixture.server.liveSubscriberCount == 2 })
        let refused = try fixture.request("GET", fixture.api("events"), device: "capped")
        #expect(refused.status == 503)
        #expect(refused.errorCode == "SERVICE_STREAMS_BUSY")
        #expect(refused.header("Retry-After") == "5")
        // Ordinary requests from the same address are not affected.
        #expect(try fixture.request("GET", fixture.api("conversations"), device: "capped").status == 200)
        streams.removeFirst()  // closes its socket
        #expect(eventually { fixture.server.liveSubscriberCount == 1 })
        let again = try Self.subscribe(fixture, device: "capped")
        #expect(eventually { fixture.server.liveSubscriberCount == 2 })
        let opening = LiveEventRouteTests.read(again.fd, for: .seconds(5)) {
            LiveEventRouteTests.occurrences(of: "event: subscribed", in: $0) > 0
        }
        #expect(String(decoding: opening, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        withExtendedLifetime(streams) {}
    }

    @Test func oneNetworkCannotTakeMoreThanItsShareOfStreams() throws {
        let fixture = try APIFixture { configuration in
            configuration.http.maxStreamsPerAddress = 2
            configuration.http.maxStreamsPerNetwork = 3
        }
        let held = try [("127.0.0.2", "a"), ("127.0.0.2", "b"), ("127.0.0.3", "c")].map {
            try Self.subscribe(fixture, device: $0.1, source: $0.0)
        }
        #expect(eventually { fixture.server.liveSubscriberCount == 3 })
        // A fourth address of the same /24 is refused; another /24 is served.
        let sameNetwork = try Self.subscribe(fixture, device: "d", source: "127.0.0.4")
        let refused = try sameNetwork.readResponse(head: true)
        #expect(refused.status == 503)
        let otherNetwork = try Self.subscribe(fixture, device: "e", source: "127.0.1.1")
        #expect(eventually { fixture.server.liveSubscriberCount == 4 })
        withExtendedLifetime((held, otherNetwork)) {}
    }

    @Test func requestConnectionsAreCappedPerNetworkToo() throws {
        let fixture = try APIFixture { configuration in
            configuration.http.maxConnectionsPerAddress = 2
            configuration.http.maxConnectionsPerNetwork = 3
            configuration.http.idleTimeout = .seconds(30)
        }
        let held = try ["127.0.0.2", "127.0.0.2", "127.0.0.3"].map { source in
            let connection = try RawHTTPConnection(port: fixture.server.port, source: source)
            try connection.send("GET \(fixture.api("conversations")) HTTP/1.1\r\nHost: x\r\nX-Device-Id: d\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
            return connection
        }
        let refused = try RawHTTPConnection(port: fixture.server.port, source: "127.0.0.4")
        try refused.send("GET \(fixture.api("conversations")) HTTP/1.1\r\nHost: x\r\nX-Device-Id: d\r\n\r\n")
        #expect(try refused.readResponse().status == 503)
        let other = try RawHTTPConnection(port: fixture.server.port, source: "127.0.1.1")
        try other.send("GET \(fixture.api("conversations")) HTTP/1.1\r\nHost: x\r\nX-Device-Id: d\r\n\r\n")
        #expect(try other.readResponse().status == 200)
        withExtendedLifetime(held) {}
    }

    @Test func networksAreSlash24AndSlash64() {
        #expect(AddressCaps.network(of: "192.0.2.17") == "192.0.2.0/24")
        #expect(AddressCaps.network(of: "::ffff:192.0.2.17") == "192.0.2.0/24")
        #expect(AddressCaps.network(of: "2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64")
        #expect(AddressCaps.network(of: "2001:db8:1:2::9") == "2001:db8:1:2::/64")
        #expect(AddressCaps.network(of: "not an address") == "not an address")
        let caps = AddressCaps(global: 4, perAddress: 2, perNetwork: 3)
        let a = [caps.reserve("10.0.0.1"), caps.reserve("10.0.0.1"), caps.reserve("10.0.0.1")]
        #expect(a.map { $0 != nil } == [true, true, false])
        #expect(caps.reserve("10.0.0.2") != nil)
        #expect(caps.reserve("10.0.0.3") == nil)  // the /24 holds 3
        #expect(caps.reserve("10.0.1.1") != nil)
        #expect(caps.reserve("10.0.2.1") == nil)  // 4 in all
        caps.release(a[0]!)
        #expect(caps.held == 3)
        #expect(caps.reserve("10.0.0.3") != nil)
    }
}
